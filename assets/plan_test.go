package assets_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/teamspace"
)

// gapCase is one TeamSpace with the namespace and quota the cluster holds
// for it. Both engines must see the same gaps in it: the Go engine through
// teamspace.FindGaps, the shell engine through reconcile.sh's jq plan.
type gapCase struct {
	name      string
	ts        teamspace.TeamSpace
	ns        *corev1.Namespace
	quota     *corev1.ResourceQuota
	finalizer bool
	// want: the gap kinds, "invalid" for an invalid spec, "foreign" for a
	// namespace that is not ours.
	want []string
}

const uid = types.UID("uid-a")

func ts(gen, observed int64, pods int64, cpu string, finalizers ...string) teamspace.TeamSpace {
	t := teamspace.TeamSpace{
		ObjectMeta: metav1.ObjectMeta{Name: "a", UID: uid, Generation: gen, ResourceVersion: "7", Finalizers: finalizers},
		Spec:       teamspace.Spec{Pods: pods, CPU: cpu},
	}
	if observed > 0 {
		t.Status = teamspace.Status{ObservedGeneration: observed, Namespace: "team-a"}
	}
	return t
}

func ns(label string, refs ...metav1.OwnerReference) *corev1.Namespace {
	n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", OwnerReferences: refs}}
	if label != "" {
		n.Labels = map[string]string{teamspace.OwnerLabel: label}
	}
	return n
}

func quota(label string, hard map[string]string) *corev1.ResourceQuota {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: teamspace.QuotaName, Namespace: "team-a"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{}}}
	if label != "" {
		q.Labels = map[string]string{teamspace.OwnerLabel: label}
	}
	for k, v := range hard {
		q.Spec.Hard[corev1.ResourceName(k)] = resource.MustParse(v)
	}
	return q
}

var (
	yes, no = true, false
	ours    = metav1.OwnerReference{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: "a", UID: uid, Controller: &yes}
	plain   = metav1.OwnerReference{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: "a", UID: uid, Controller: &no}
	other   = metav1.OwnerReference{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: "b", UID: "uid-b", Controller: &yes}
	hard41  = map[string]string{"pods": "4", "requests.cpu": "1"}
)

var gapCases = []gapCase{
	{name: "converged", ts: ts(1, 1, 4, "1"), ns: ns("a", ours), quota: quota("a", hard41)},
	{name: "converged, cpu written another way", ts: ts(1, 1, 4, "0.5"), ns: ns("a", ours), quota: quota("a", map[string]string{"pods": "4", "requests.cpu": "500m"})},
	{name: "converged with the finalizer", ts: ts(1, 1, 4, "1", "example.com/keep", teamspace.Finalizer), ns: ns("a", ours), quota: quota("a", hard41), finalizer: true},
	{name: "new", ts: ts(1, 0, 4, "1"), want: []string{"namespace", "quota", "status"}},
	{name: "new, finalizer on", ts: ts(1, 0, 4, "1"), finalizer: true, want: []string{"finalizer", "namespace", "quota", "status"}},
	{name: "quota deleted", ts: ts(1, 1, 4, "1"), ns: ns("a", ours), want: []string{"quota"}},
	{name: "quota edited", ts: ts(1, 1, 4, "1"), ns: ns("a", ours), quota: quota("a", map[string]string{"pods": "99", "requests.cpu": "1"}), want: []string{"quota-hard"}},
	{name: "quota cpu edited", ts: ts(1, 1, 4, "1"), ns: ns("a", ours), quota: quota("a", map[string]string{"pods": "4", "requests.cpu": "2"}), want: []string{"quota-hard"}},
	{name: "quota with an extra limit", ts: ts(1, 1, 4, "1"), ns: ns("a", ours), quota: quota("a", map[string]string{"pods": "4", "requests.cpu": "1", "requests.memory": "1Gi"}), want: []string{"quota-hard"}},
	{name: "quota lost its label", ts: ts(1, 1, 4, "1"), ns: ns("a", ours), quota: quota("b", hard41), want: []string{"quota-label"}},
	{name: "spec changed", ts: ts(2, 1, 6, "1"), ns: ns("a", ours), quota: quota("a", hard41), want: []string{"quota-hard", "status"}},
	{name: "namespace label edited", ts: ts(1, 1, 4, "1"), ns: ns("b", ours), quota: quota("a", hard41), want: []string{"namespace-label"}},
	{name: "foreign namespace", ts: ts(1, 0, 4, "1"), ns: ns("a", other), want: []string{"foreign"}},
	{name: "namespace owned but not as controller", ts: ts(1, 1, 4, "1"), ns: ns("a", plain), quota: quota("a", hard41), want: []string{"namespace-controller"}},
	{name: "invalid pods", ts: ts(1, 0, 51, "1"), want: []string{"invalid"}},
	{name: "invalid cpu", ts: ts(1, 0, 4, "lots"), want: []string{"invalid"}},
	{name: "invalid cpu, finalizer still owed", ts: ts(1, 0, 4, "-1"), finalizer: true, want: []string{"finalizer", "invalid"}},
	{name: "invalid name, no finalizer", ts: func() teamspace.TeamSpace { t := ts(1, 0, 4, "1"); t.Name = "dot.b"; return t }(), finalizer: true, want: []string{"invalid"}},
}

// TestFindGaps holds the Go engine to the table.
func TestFindGaps(t *testing.T) {
	for _, tt := range gapCases {
		t.Run(tt.name, func(t *testing.T) {
			gaps, err := teamspace.FindGaps(&tt.ts, tt.ns, tt.quota, tt.finalizer)
			var got []string
			for _, g := range gaps {
				got = append(got, string(g.Kind))
				if g.String() == "" {
					t.Errorf("gap %s says nothing", g.Kind)
				}
			}
			var invalid *teamspace.InvalidSpecError
			var foreign *teamspace.ForeignNamespaceError
			switch {
			case errors.As(err, &invalid):
				got = append(got, "invalid")
			case errors.As(err, &foreign):
				got = append(got, "foreign")
			case err != nil:
				t.Fatalf("FindGaps: unexpected error %v", err)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("FindGaps: got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPlanMatchesFindGaps holds the shell engine's jq plan to the same
// table: for each case it is fed the three lists reconcile.sh reads (only
// labelled namespaces and quotas, as its label selectors ask) and must
// decide on the same writes as FindGaps.
func TestPlanMatchesFindGaps(t *testing.T) {
	plan := planJQ(t)
	for _, tt := range gapCases {
		t.Run(tt.name, func(t *testing.T) {
			line := runPlan(t, plan, tt)
			want := map[string]bool{}
			for _, w := range tt.want {
				want[w] = true
			}
			// The plan discovers a namespace without our label as
			// "missing" (its list is label-selected) and finds out on
			// create; a namespace owned but not as controller it calls
			// foreign. Both engines leave such namespaces alone.
			nsWork := want["namespace"] || want["namespace-label"] || want["foreign"] || want["namespace-controller"]
			checks := []decision{
				{"finalizer to add", line["has_finalizer"] != "true" && tt.finalizer && !strings.HasPrefix(line["invalid"], "metadata.name"), want["finalizer"]},
				{"invalid spec", line["invalid"] != "", want["invalid"]},
			}
			// Past an invalid spec neither engine looks further; past a
			// foreign namespace neither writes the quota or status.
			if !want["invalid"] {
				checks = append(checks, decision{"namespace to write", line["ns_state"] != "ours" || line["ns_labelled"] != "true", nsWork})
			}
			if !want["invalid"] && !want["foreign"] {
				checks = append(checks,
					decision{"quota to write", line["quota_ok"] != "true", want["quota"] || want["quota-hard"] || want["quota-label"]},
					decision{"status to write", line["status_ok"] != "true", want["status"]})
			}
			for _, c := range checks {
				if c.planSays != c.want {
					t.Errorf("%s: plan says %t, FindGaps %t (plan line %v)", c.what, c.planSays, c.want, line)
				}
			}
		})
	}
}

// decision is one write a pass makes or not, as the plan and FindGaps see it.
type decision struct {
	what           string
	planSays, want bool
}

// planFields is reconcile.sh's PLAN_FIELDS as it ships.
var planFields = func() string {
	_, rest, _ := strings.Cut(string(assets.ReconcileScript), `readonly PLAN_FIELDS="`)
	fields, _, _ := strings.Cut(rest, `"`)
	return fields
}()

// planJQ cuts the jq program out of reconcile.sh as it ships.
func planJQ(t *testing.T) string {
	t.Helper()
	script := string(assets.ReconcileScript)
	const open, end = "read -r -d '' PLAN_JQ <<'JQ'\n", "\nJQ\n"
	i := strings.Index(script, open)
	if i < 0 {
		t.Fatal("reconcile.sh has no PLAN_JQ heredoc")
	}
	rest := script[i+len(open):]
	j := strings.Index(rest, end)
	if j < 0 {
		t.Fatal("reconcile.sh's PLAN_JQ heredoc does not end")
	}
	return rest[:j]
}

// runPlan runs the plan on one case and returns its one line as key=value.
func runPlan(t *testing.T, plan string, tt gapCase) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is needed for the shell engine's tests: apt-get install jq")
	}
	list := func(items ...any) string {
		if items == nil {
			items = []any{} // kubectl prints "items": [], never null
		}
		b, err := json.Marshal(map[string]any{"items": items})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tsObj := tt.ts
	tsObj.APIVersion, tsObj.Kind = teamspace.APIVersion, teamspace.Kind
	var nsItems, quotaItems []any
	if tt.ns != nil && tt.ns.Labels[teamspace.OwnerLabel] != "" {
		nsItems = append(nsItems, tt.ns)
	}
	if tt.quota != nil && tt.quota.Labels[teamspace.OwnerLabel] != "" {
		quotaItems = append(quotaItems, tt.quota)
	}
	cmd := exec.Command("jq", "-r", "--argjson", "namespaces", "["+list(nsItems...)+"]", "--argjson", "quotas", "["+list(quotaItems...)+"]",
		// The script's own names, as it passes them (TestScriptNamesAreTheConstants
		// holds them to the Go constants).
		"--arg", "finalizer", scriptConst(t, "FINALIZER"), "--arg", "ownerLabel", scriptConst(t, "OWNER_LABEL"), "--arg", "quotaName", scriptConst(t, "QUOTA_NAME"),
		"--arg", "fields", planFields, plan)
	cmd.Stdin = strings.NewReader(list(tsObj))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq plan: %v: %s", err, stderr.String())
	}
	// One line per TeamSpace, whatever its values hold (a cpu with a newline,
	// say): the script reads the plan line by line.
	if n := strings.Count(string(out), "\n"); n != 1 {
		t.Fatalf("plan for one TeamSpace: %d lines, want 1: %q", n, out)
	}
	// The plan prints the values of planFields in order, separated by 0x1f.
	values := strings.Split(strings.TrimSuffix(string(out), "\n"), "\x1f")
	names := strings.Fields(planFields)
	if len(values) != len(names) {
		t.Fatalf("plan line %q: %d values for %d fields", out, len(values), len(names))
	}
	fields := map[string]string{}
	for i, name := range names {
		fields[name] = values[i]
	}
	return fields
}

// cpuCase is one spec.cpu value of testdata/cpu.json, the one table of
// which values both engines and the CRD serve and which they refuse.
type cpuCase struct {
	CPU   string `json:"cpu"`
	Valid bool   `json:"valid"`
	Why   string `json:"why,omitempty"`
}

func cpuCases(t *testing.T) []cpuCase {
	t.Helper()
	data, err := os.ReadFile("testdata/cpu.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []cpuCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCPUGrammarBothEngines: the Go engine and the shell engine's plan
// accept and refuse the same spec.cpu values.
func TestCPUGrammarBothEngines(t *testing.T) {
	plan := planJQ(t)
	for _, tt := range cpuCases(t) {
		t.Run(strings.ReplaceAll(tt.CPU, "\n", `\n`), func(t *testing.T) {
			c := gapCase{ts: ts(1, 0, 4, tt.CPU)}
			_, err := teamspace.FindGaps(&c.ts, nil, nil, false)
			var invalid *teamspace.InvalidSpecError
			goRefuses := errors.As(err, &invalid) && invalid.Field == "spec.cpu"
			planRefuses := strings.HasPrefix(runPlan(t, plan, c)["invalid"], "spec.cpu")
			if goRefuses == tt.Valid || planRefuses == tt.Valid {
				t.Errorf("spec.cpu %q: Go engine refuses %t, shell engine refuses %t, want %t", tt.CPU, goRefuses, planRefuses, !tt.Valid)
			}
		})
	}
}
