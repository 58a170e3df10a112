package step3

import (
	"testing"

	"github.com/labhub/cnpa/internal/lab"
)

// reconcile.json's quota_uid is team-quota's uid now, or the one step 5
// deleted (drift.json's deleted_uid); any other is not checked, and says
// why, never passed unseen (issue 57: a made-up uid written before the
// script ran passed beside a quota that did not exist).
func TestQuotaUID(t *testing.T) {
	drift := func(deleted string) func(file, key string) (any, string) {
		return func(file, key string) (any, string) {
			if deleted == "" || file != lab.DriftFile || key != "deleted_uid" {
				return nil, "missing"
			}
			return deleted, ""
		}
	}
	for _, c := range []struct {
		name string
		v    any
		in   lab.Inputs
		want string // pass, fail or skip
	}{
		{"empty", "", lab.Inputs{Value: drift(""), QuotaRead: true, QuotaUID: "q1"}, "fail"},
		{"the live quota's", "q1", lab.Inputs{Value: drift(""), QuotaRead: true, QuotaUID: "q1"}, "pass"},
		{"the one step 5 deleted", "q1", lab.Inputs{Value: drift("q1"), QuotaRead: true, QuotaUID: "q2"}, "pass"},
		{"made up, the quota there", "x", lab.Inputs{Value: drift(""), QuotaRead: true, QuotaUID: "q1"}, "skip"},
		{"made up, no quota", "x", lab.Inputs{Value: drift(""), QuotaRead: true}, "skip"},
		{"not step 5's either", "x", lab.Inputs{Value: drift("q1"), QuotaRead: true, QuotaUID: "q2"}, "skip"},
		{"no live quota read (a step's own lines)", "x", lab.Inputs{Value: drift("")}, "pass"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := quotaUID(c.v, &c.in)
			got := "fail"
			switch {
			case v.Skip != "":
				got = "skip"
			case v.OK:
				got = "pass"
			}
			if got != c.want {
				t.Errorf("got %s (%+v), want %s", got, v, c.want)
			}
		})
	}
}
