package step3

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/ui"
)

// settleWait bounds the wait for the quota controller before a snapshot.
const settleWait = 20 * time.Second

// takeSnapshot waits until the quota controller has caught up with every
// quota in scope (it writes status.hard after each spec change), then
// records the resourceVersions.
func takeSnapshot(ctx context.Context, env *labenv.Env, finalizerOn bool) (*check.Snapshot, error) {
	var s *check.Snapshot
	_, err := poll.Until(ctx, 200*time.Millisecond, settleWait, func(context.Context) (bool, string, error) {
		// Read with ctx, not the wait's: settleWait bounds the waiting,
		// never a read, whose snapshot must be whole.
		var err error
		if s, err = check.ReadSnapshot(ctx, env, finalizerOn); err != nil {
			return false, "", err
		}
		return len(s.Unsettled) == 0, "", nil
	})
	var timeout *poll.TimeoutError
	if errors.As(err, &timeout) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// settleWait passed: the snapshot stands, its unsettled quotas are
		// reported if anything differs.
		return s, nil
	}
	return s, err
}

// diff lists what changed from a to b, one entry per object, sorted; an
// object whose owner is in excused is left out.
func diff(a, b *check.Snapshot, excused map[string]string) []string {
	var out []string
	for k, rv := range b.RV {
		if _, ok := excused[b.Owner[k]]; ok {
			continue
		}
		switch old, ok := a.RV[k]; {
		case !ok:
			out = append(out, i18n.T("check.rerun.created", i18n.Args{"Key": k}))
		case old != rv:
			out = append(out, i18n.T("check.rerun.written", i18n.Args{"Key": k, "Old": old, "New": rv}))
		}
	}
	for k := range a.RV {
		if _, ok := excused[a.Owner[k]]; ok {
			continue
		}
		if _, ok := b.RV[k]; !ok {
			out = append(out, k+" deleted")
		}
	}
	sort.Strings(out)
	return out
}

// scriptRun is how long one run of reconcile.sh may take.
const scriptRun = 2 * time.Minute

// Rerun runs <dir>/reconcile.sh twice more, as the lab's grader
// does, and proves it wrote nothing. Phases:
//  1. the script exists and is executable (step3.script_runs);
//  2. snapshot, run, snapshot, run, snapshot (each snapshot after the quota
//     controller caught up);
//  3. no object changed across the runs (step3.rerun_writes_nothing), but
//     a TeamSpace that was not converged before the first run may change in
//     that run: the script then did its job, and the drift itself fails the
//     check that looks at it (step5.quota_in_sync, say);
//  4. alpha's status is what a pass writes (step3.status_written), read
//     live after the runs: a status the server dropped writes nothing
//     either, so only this row tells it.
func Rerun(ctx context.Context, r *check.Session) []lab.Verdict {
	r.Note(i18n.T("check.progress.rerun", i18n.Args{"Script": lab.ScriptName}))
	runs, writes, ran := rerun(ctx, r.Env(), ProbeScriptRuns.Hint(r.Facts()))
	return []lab.Verdict{runs, writes, passStatus(ctx, r.Env(), ran)}
}

// rerun is Rerun's first two verdicts, and whether the script ran twice
// (to its end or not); hint is the advice when the script is not there to
// run.
func rerun(ctx context.Context, env *labenv.Env, hint string) (runs, writes lab.Verdict, ran bool) {
	runsID := ProbeScriptRuns.ID
	path := env.ScriptPath()
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return lab.Holds(false, i18n.T("check.rerun.want_exec", i18n.Args{"Path": path}), i18n.T("check.rerun.missing")), lab.Skipped(i18n.T("check.rerun.skip_no_script", i18n.Args{"ID": runsID})), false
	case fi.Mode()&0o111 == 0:
		v := lab.Holds(false, i18n.T("check.rerun.want_exec", i18n.Args{"Path": path}), i18n.T("check.rerun.not_exec", i18n.Args{"Mode": fi.Mode().String()}))
		v.Advice = i18n.T("check.rerun.chmod", i18n.Args{"Path": path})
		return v, lab.Skipped(i18n.T("check.rerun.skip_no_script", i18n.Args{"ID": runsID})), false
	}
	finalizerOn := env.State != nil && env.State.Finalizer
	var (
		snaps []*check.Snapshot
		// exits are the runs that ended with a non-zero status: LAB.md asks
		// that a run converge and a rerun write nothing, not for exit 0.
		exits []string
		// as says whom the script ran as; refused, the requests the API
		// server refused it.
		as      string
		refused []string
	)
	for i := 0; i <= 2; i++ {
		s, err := takeSnapshot(ctx, env, finalizerOn)
		if err != nil {
			why := i18n.T("check.rerun.cannot_read", i18n.Args{"Err": err.Error()})
			return lab.Skipped(why), lab.Skipped(why), false
		}
		snaps = append(snaps, s)
		if i == 2 {
			break
		}
		out, ranAs, err := rerunScript(ctx, env)
		as = ranAs
		refused = append(refused, refusals(out)...)
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit) && exit.Exited() && ctx.Err() == nil:
			exits = append(exits, i18n.T("check.rerun.exit", i18n.Args{"N": i + 1, "Err": err.Error(), "Out": ui.Clean(lastChars(out, 400))}))
		default:
			v := lab.Holds(false, i18n.T("check.rerun.want_end"), i18n.T("check.rerun.failed", i18n.Args{"N": i + 1, "As": as, "Err": err.Error(), "Out": ui.Clean(lastChars(out, 400))}))
			v.Advice = i18n.T("check.rerun.by_hand_and", i18n.Args{"Path": path, "Hint": hint})
			return v, lab.Skipped(i18n.T("check.rerun.skip_not_run", i18n.Args{"ID": runsID})), false
		}
	}
	runs = lab.Holds(true, i18n.T("check.rerun.want_twice"), i18n.T("check.rerun.got_twice", i18n.Args{"As": as}))
	if len(exits) > 0 {
		runs = lab.Verdict{Want: i18n.T("check.rerun.want_exit0"), Got: strings.Join(exits, "; ") + " (" + as + ")", Optional: true,
			Note: i18n.T("check.rerun.exit_note")}
		if len(refused) > 0 {
			runs.Note += i18n.T("check.rerun.refused_note", i18n.Args{"As": as, "Refused": strings.Join(refused, "; ")})
		}
	}
	runs.Advice = i18n.T("check.rerun.by_hand", i18n.Args{"Path": path})

	first := diff(snaps[0], snaps[1], snaps[0].Pending)
	second := diff(snaps[1], snaps[2], nil)
	var got []string
	if len(first) > 0 {
		got = append(got, i18n.T("check.rerun.first", i18n.Args{"Writes": i18n.List(first)}))
	}
	if len(second) > 0 {
		got = append(got, i18n.T("check.rerun.second", i18n.Args{"Writes": i18n.List(second)}))
	}
	// A refused write is still a write request: LAB.md's grader, which
	// runs the script with more rights, would see it land. A refused read
	// means the script cannot work under the identity it runs under.
	if len(refused) > 0 {
		got = append(got, i18n.T("check.rerun.refused", i18n.Args{"As": as, "Refused": strings.Join(refused, "; ")}))
	}
	want := i18n.T("check.rerun.no_writes")
	if len(got) == 0 {
		return runs, lab.Holds(true, want, noWrites(snaps)), true
	}
	if u := snaps[2].Unsettled; len(u) > 0 {
		got = append(got, i18n.T("check.rerun.unsettled", i18n.Args{"Keys": fmt.Sprint(u), "Wait": settleWait.String()}))
	}
	return runs, lab.Holds(false, want, strings.Join(got, "; ")), true
}

// noWrites words a rerun that wrote nothing: how many objects, and of
// the TeamSpaces that were behind before it, which the first run
// converged and which are behind still (a status the server dropped, say:
// nothing written, nothing converged; step3.status_written says why).
func noWrites(snaps []*check.Snapshot) string {
	actual := i18n.T("check.rerun.no_writes_to", i18n.Args{"N": len(snaps[2].RV)})
	var converged, behind []string
	for _, k := range keys(snaps[0].Pending) {
		if _, still := snaps[2].Pending[k]; still {
			behind = append(behind, k)
		} else {
			converged = append(converged, k)
		}
	}
	if len(converged) > 0 {
		actual += i18n.T("check.rerun.pending", i18n.Args{"Keys": fmt.Sprint(converged)})
	}
	if len(behind) > 0 {
		actual += i18n.T("check.rerun.still_behind", i18n.Args{"Keys": fmt.Sprint(behind)})
	}
	return actual
}

// rerunScript runs reconcile.sh for the probe as the service runs it
// (under its identity once step 4 has made it), bounded by scriptRun; as
// says whom it ran as. (run_script.go's runScript is the step's own run,
// which shows the command it runs.)
func rerunScript(ctx context.Context, env *labenv.Env) (out, as string, err error) {
	ctx, cancel := context.WithTimeout(ctx, scriptRun)
	defer cancel()
	return env.RunScriptAsService(ctx)
}

// refusals are the lines of a script's output where the API server
// refused a request (RBAC or the admission policy), shortened and cleaned.
func refusals(out string) []string {
	var r []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "(Forbidden)") || strings.Contains(l, "is forbidden") {
			if why, ok := identity.ExplainRefusal(l); ok {
				r = append(r, ui.Clean(why)) // whole: the rule and the fix
				continue
			}
			// Whole, as check's log lines: the useful part of a refusal
			// is at its end.
			r = append(r, ui.Clean(ui.Whole(strings.TrimSpace(l), 2000)))
		}
	}
	if len(r) > 3 {
		r = append(r[:3], i18n.T("check.rerun.more", i18n.Args{"N": len(r) - 3}))
	}
	return r
}

// lastChars is the end of a script's output, at most n bytes, for a
// check's actual value.
func lastChars(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	if s == "" {
		return i18n.T("check.rerun.no_output")
	}
	return s
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
