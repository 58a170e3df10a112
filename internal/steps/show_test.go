package steps

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"alpha", "alpha"},
		{"owner=platform", "owner=platform"},
		{"jsonpath={.metadata.uid}", "jsonpath='{.metadata.uid}'"},
		{"--for=jsonpath={.status.hard.pods}=6", "--for=jsonpath='{.status.hard.pods}=6'"},
		{`{"spec":{"pods":6}}`, `'{"spec":{"pods":6}}'`},
		{"it's", `'it'\''s'`},
		{"", "''"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q): got %s, want %s", c.in, got, c.want)
		}
	}
}

// A read-back shows what `kubectl get -o jsonpath` prints for the object
// the Go code read.
func TestJSONPath(t *testing.T) {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{UID: "u1"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{
		{Kind: "Other", UID: "x"}, {Kind: "TeamSpace", UID: "ts-uid"}}}}
	for _, c := range []struct {
		v          any
		path, want string
	}{
		{q, "{.spec.hard.pods}", "6"},
		{q, "{.metadata.uid}", "u1"},
		{q, "{.status.hard.pods}", ""}, // missing: empty, as kubectl prints it
		{ns, `{.metadata.ownerReferences[?(@.kind=="TeamSpace")].uid}`, "ts-uid"},
	} {
		got, err := jsonPath(c.v, c.path)
		if err != nil || got != c.want {
			t.Errorf("jsonPath(%s): got %q, %v, want %q", c.path, got, err, c.want)
		}
	}
}

// The jq command shown for an evidence file writes that file, with the
// keys and JSON types its step's Shape gives, from shell variables.
func TestEvidenceCmd(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("jq is missing: %v", err)
		}
		t.Skipf("jq is missing: %v", err)
	}
	path := filepath.Join(t.TempDir(), lab.CatchupFile)
	script := "generation=3 observed_while_stopped=2 quota_pods_while_stopped=6 observed_after_start=3 quota_pods_after_start=8\n" +
		evidenceCmd(path, catchupShape)
	if out, err := exec.Command("bash", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	var got lab.CatchupRecord
	problems, err := evidence.Read(filepath.Dir(path), lab.CatchupFile, catchupShape, &got)
	if err != nil || len(problems) > 0 {
		t.Fatalf("catchup.json from the shown jq: %v %v", err, problems)
	}
	want := lab.CatchupRecord{Generation: 3, ObservedWhileStopped: 2, QuotaPodsWhileStopped: "6", ObservedAfterStart: 3, QuotaPodsAfterStart: "8"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// With --context, every kubectl of a shown command names it; a heredoc's
// content is left as written.
func TestCmdContext(t *testing.T) {
	var buf strings.Builder
	sh := Shell{p: &ui.Printer{W: &buf}, context: "lab vm"}
	sh.Cmd(`until x=$(kubectl get ns a) && kubectl get ns b; do sleep 0.2; done`)
	sh.Cmd("kubectl apply -f - <<'EOF'\nkubectl stays\nEOF")
	// wider than 80 columns with --context: continued as bash reads it
	want := "  $ until x=$(kubectl --context 'lab vm' get ns a) && kubectl --context \\\n  >   'lab vm' get ns b; do sleep 0.2; done\n" +
		"  $ kubectl --context 'lab vm' apply -f - <<'EOF'\n  > kubectl stays\n  > EOF\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// catchupShape is step 7's catchup.json as LAB.md gives it.
var catchupShape = []evidence.Key{
	{Name: "generation", Kind: evidence.Integer},
	{Name: "observed_while_stopped", Kind: evidence.Integer},
	{Name: "quota_pods_while_stopped", Kind: evidence.String},
	{Name: "observed_after_start", Kind: evidence.Integer},
	{Name: "quota_pods_after_start", Kind: evidence.String},
}

// TestContinueLines: a shown command wider than 80 columns goes on as
// bash's line continuations, broken only at spaces outside quotes, and
// bash reads it back as the same command (issue 57).
func TestContinueLines(t *testing.T) {
	line := `jq -n --arg uid "$uid" --argjson gen_initial "$gen_initial" --argjson gen_after_label "$gen_after_label" '{uid: $uid, gen_initial: $gen_initial, gen_after_label: $gen_after_label}' 'a b' "c d"`
	lines := ContinueLines(line, 76)
	if len(lines) < 2 {
		t.Fatalf("not continued: %q", lines)
	}
	for i, l := range lines {
		if i < len(lines)-1 && !strings.HasSuffix(l, " \\") {
			t.Errorf("line %d does not end in a continuation: %q", i, l)
		}
		if ui.Width(l) > 76 && !strings.HasPrefix(strings.TrimSpace(l), "'") {
			t.Errorf("line %d is %d columns: %q", i, ui.Width(l), l)
		}
	}
	out, err := exec.Command("bash", "-c", `printf '%s\n' `+strings.Join(lines, "\n")[len("jq -n "):]).CombinedOutput()
	want, _ := exec.Command("bash", "-c", `printf '%s\n' `+line[len("jq -n "):]).CombinedOutput()
	if err != nil || string(out) != string(want) {
		t.Errorf("bash reads the continued lines as %q, want %q (%v)", out, want, err)
	}
	if got := ContinueLines("kubectl get ns", 76); len(got) != 1 {
		t.Errorf("a short line: %q", got)
	}
}
