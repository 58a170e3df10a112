package steps

// Every action a step takes on the cluster is shown as the command a
// learner would type on the lab's VM: `  $ kubectl label teamspace alpha
// owner=platform`, continuation lines as `  > ` (a shell's PS2), then the
// server's answer where it teaches something and the value read back as
// `    → 6`. The lines are built here, from the same values the Go code
// sends (the patch body, the jsonpath it evaluates on the object it read),
// so that what is shown is what was done; test/lab replays them with bash
// on a fresh cluster and gets the same evidence. --quiet (and -o json)
// leave env.Show nil, and nothing is shown. The view (Shell), the command
// lines (Kubectl, PatchCmd, KubectlWait, Until, …) and the objects they
// name (Obj) are exported for the runs in course/stepN: each run shows
// its own actions, all in the same shell.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/jsonpath"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// Shell shows a step's actions as a learner's shell session: the view
// every run prints through (Show), its methods the kubectl verbs and shell
// lines the runs in course/stepN need. The zero Shell shows nothing.
type Shell struct {
	p *ui.Printer
	// context is --context when one was named: every kubectl shown
	// carries it, as the steps' own requests go to that context.
	context string
	// verbose shows every heredoc whole (View.Verbose); without it
	// a heredoc of more than heredocShown lines shows as its first and
	// last line around a count, and the output is no longer a script.
	verbose bool
}

// heredocShown is the longest heredoc shown whole without --verbose: a
// TeamSpace's YAML is, the CRD, the RBAC and the unit are not.
const heredocShown = 8

// Show is the shell view of env: its printer, --verbose and --context.
func Show(env *Lab) Shell {
	s := Shell{p: env.Show, verbose: env.Verbose}
	if env.Target != nil && env.Target.ContextGiven {
		s.context = env.Target.Context
	}
	return s
}

// Verbose tells whether every heredoc is shown whole (View.Verbose): a
// run that shows a summary instead of the commands asks it.
func (s Shell) Verbose() bool { return s.verbose }

// WithoutContext is s showing commands without --context: for a command
// whose kubeconfig names its own (the service's, step 4).
func (s Shell) WithoutContext() Shell { return Shell{p: s.p} }

// kubectlWord is kubectl as a command word: at the start of a command,
// after a space, `(` or `$(`.
var kubectlWord = regexp.MustCompile(`(^|[\s(])kubectl `)

// Cmd shows one command; a command of several lines (a heredoc) shows its
// further lines as continuation lines.
func (s Shell) Cmd(line string) {
	if s.p == nil {
		return
	}
	lines := strings.Split(line, "\n")
	if n := len(lines) - 2; !s.verbose && n > heredocShown && strings.HasSuffix(lines[0], "<<'EOF'") && lines[len(lines)-1] == "EOF" {
		lines = []string{lines[0], Say("steps.show.heredoc_lines", "N", n), "EOF"}
	}
	if s.context != "" {
		// The first line only: the others are a heredoc's content.
		lines[0] = kubectlWord.ReplaceAllString(lines[0], "${1}kubectl --context "+Quote(s.context)+" ")
	}
	if len(lines) == 1 {
		// One line wider than a terminal goes on as bash's own line
		// continuations, each line still pasteable.
		lines = ContinueLines(lines[0], ui.Cols-len("  $ "))
	}
	s.p.Line("  %s %s", s.p.Bold("$"), lines[0])
	for _, l := range lines[1:] {
		s.p.Line("  > %s", l)
	}
}

// ContinueLines is a shell command line as lines of at most cols display
// columns, broken where bash allows it: at a space outside quotes, each
// line but the last ending in " \" (a line continuation), the next ones
// indented two spaces. A word wider than a line (a quoted jq program)
// stays whole on a line of its own. A line that fits is as it is.
func ContinueLines(line string, cols int) []string {
	if ui.Width(line) <= cols {
		return []string{line}
	}
	var words []string
	var cur strings.Builder
	quote := rune(0)
	escaped := false
	for _, r := range line {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if quote != 0 || escaped {
		return []string{line} // not a line bash would read whole: as it is
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	var out []string
	l := ""
	for _, w := range words {
		switch {
		case l == "":
			l = w
		case ui.Width(l)+1+ui.Width(w)+2 <= cols:
			l += " " + w
		default:
			out = append(out, l+" \\")
			l = "  " + w
		}
	}
	return append(out, l)
}

// Answer shows what the server (or the command) answered.
func (s Shell) Answer(format string, a ...any) {
	if s.p != nil {
		// What a command answers comes from the cluster: data, not
		// terminal commands; wrapped to 80 columns under itself (an
		// API server's refusal is one line of 300).
		s.p.Note("%s", ui.Indent("    ", "    ", ui.Clean(fmt.Sprintf(format, a...)), ui.Cols))
	}
}

// Value shows the value a read-back gave.
func (s Shell) Value(v any) {
	if s.p != nil {
		s.p.Line("    → %s", ui.Clean(fmt.Sprint(v)))
	}
}

// Comment shows a `#` line: what a command stands for where it is not the
// learner's literal keystrokes, wrapped to 80 columns after its `# `
// (the catalog's own breaks kept; a path or a command is never broken,
// and only a line with one wider than the room runs longer).
func (s Shell) Comment(format string, a ...any) {
	if s.p != nil {
		s.p.Note("%s", ui.Indent("  # ", "  # ", fmt.Sprintf(format, a...), ui.Cols))
	}
}

// Block shows installed text (a script, a unit) under a heading, each line
// with its mark, if any, beside it; a mark that does not fit beside its
// line within 80 columns goes on the line below, under an ↑ (the line
// itself is the file's and is shown as it is).
func (s Shell) Block(heading string, lines []string, marks map[int]string) {
	if s.p == nil {
		return
	}
	s.p.Line("%s", ui.Indent("  ", "  ", heading, ui.Cols))
	width := 0
	for i, l := range lines {
		if marks[i] != "" && ui.Width(l) > width {
			width = ui.Width(l)
		}
	}
	width = min(width, 60)
	for i, l := range lines {
		m := marks[i]
		switch {
		case m == "":
			s.p.Line("  │ %s", l)
		case 4+max(ui.Width(l), width)+2+ui.Width("← "+m) <= ui.Cols:
			s.p.Line("  │ %s  %s", ui.Pad(l, width), s.p.Faint("← "+m))
		default:
			s.p.Line("  │ %s", l)
			for _, ml := range strings.Split(ui.Indent("↑ ", "  ", m, ui.Cols-6), "\n") {
				s.p.Line("  │   %s", s.p.Faint(ml))
			}
		}
	}
}

// safeWord is a shell word that needs no quotes.
var safeWord = regexp.MustCompile(`^[A-Za-z0-9_./:,@%+=-]+$`)

// Quote quotes a word for bash when it needs it. In flag=value words only
// the value is quoted (`-o jsonpath='{.metadata.uid}'`), as people write it.
func Quote(w string) string {
	if w != "" && safeWord.MatchString(w) {
		return w
	}
	if i := strings.Index(w, "="); i > 0 && safeWord.MatchString(w[:i+1]) {
		return w[:i+1] + Quote(w[i+1:])
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// Words renders argv as one shell line.
func Words(argv ...string) string {
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

// Obj names one object as kubectl does: the resource as typed, the name and
// the namespace. Exported for the steps' runs (course/stepN), which name
// the objects they act on; TeamspaceObj, NamespaceObj and QuotaObj make
// the lab's own.
type Obj struct {
	Resource  string // kubectl's word: teamspace, namespace, resourcequota, crd
	Qualified string // how kubectl names it in answers: teamspace.platform.labhub.io
	GVR       schema.GroupVersionResource
	Name, NS  string
}

func TeamspaceObj(name string) Obj {
	return Obj{Resource: "teamspace", Qualified: "teamspace." + teamspace.Group, GVR: teamspace.GVR, Name: name}
}

func NamespaceObj(name string) Obj {
	return Obj{Resource: "namespace", Qualified: "namespace", GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Name: name}
}

func QuotaObj(ns string) Obj {
	return Obj{Resource: "resourcequota", Qualified: "resourcequota", GVR: schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}, Name: teamspace.QuotaName, NS: ns}
}

// Args are the words after the verb: resource, name, and -n when namespaced.
func (o Obj) Args() []string {
	a := []string{o.Resource, o.Name}
	if o.NS != "" {
		a = append(a, "-n", o.NS)
	}
	return a
}

// slash is resource/name, as kubectl wait takes it.
func (o Obj) slash() []string {
	a := []string{o.Resource + "/" + o.Name}
	if o.NS != "" {
		a = append(a, "-n", o.NS)
	}
	return a
}

// Target names the object in a timeline entry: "resourcequota
// team-alpha/team-quota", "teamspace beta".
func (o Obj) Target() string {
	if o.NS != "" {
		return o.Resource + " " + o.NS + "/" + o.Name
	}
	return o.Resource + " " + o.Name
}

func Kubectl(args ...string) string { return "kubectl " + Words(args...) }

// The commands a request is shown as, and recorded as in a timeline
// (reaction.action, reaction.you): built from the request's own values, so
// that what the timeline says was done is what was sent.

// ApplyCmd is the server-side apply of the manifest at path ("-": stdin).
func ApplyCmd(path string) string {
	return Kubectl("apply", "--server-side", "--field-manager="+FieldManager, "--force-conflicts", "-f", path)
}

// PatchCmd is the JSON merge patch body of o.
func PatchCmd(o Obj, body string) string {
	return Kubectl(append(append([]string{"patch"}, o.Args()...), "--type=merge", "-p", body)...)
}

// DeleteCmd is the delete of o that returns at once.
func DeleteCmd(o Obj) string {
	return Kubectl(append(append([]string{"delete"}, o.Args()...), "--wait=false")...)
}

// GetCmd is `kubectl get <obj> -o jsonpath=<path>`.
func GetCmd(o Obj, path string) string {
	return Kubectl(append(append([]string{"get"}, o.Args()...), "-o", "jsonpath="+path)...)
}

// jsonPath evaluates path on v as `kubectl get -o jsonpath` does (missing
// keys print nothing); v is the object the Go code read.
func jsonPath(v any, path string) (string, error) {
	var data any
	switch x := v.(type) {
	case *unstructured.Unstructured:
		data = x.Object
	default:
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
		if err != nil {
			return "", err
		}
		data = m
	}
	jp := jsonpath.New("read-back")
	jp.AllowMissingKeys(true)
	if err := jp.Parse(path); err != nil {
		return "", fmt.Errorf("jsonpath %s: %w", path, err)
	}
	var b bytes.Buffer
	if err := jp.Execute(&b, data); err != nil {
		return "", fmt.Errorf("jsonpath %s: %w", path, err)
	}
	return b.String(), nil
}

// ReadBack shows `name=$(kubectl get <o> -o jsonpath=<path>)` and the value
// that jsonpath gives on v, the object the step read: what the shell
// variable holds in the replay is what the Go code holds here.
func (s Shell) ReadBack(name string, o Obj, path string, v any) string {
	got, err := jsonPath(v, path)
	if err != nil {
		got = "(" + err.Error() + ")"
	}
	s.Cmd(name + "=$(" + GetCmd(o, path) + ")")
	s.Value(got)
	return got
}

// Exists shows the exit-code test the lab text's step 1 describes, setting name
// to true or false.
func (s Shell) Exists(name string, o Obj, exists bool) {
	s.Cmd(fmt.Sprintf("if %s >/dev/null 2>&1; then %s=true; else %s=false; fi", Kubectl(append([]string{"get"}, o.Args()...)...), name, name))
	s.Value(exists)
}

// Set shows a shell assignment computed from earlier variables.
func (s Shell) Set(name, expr string, v any) {
	s.Cmd(name + "=" + expr)
	s.Value(v)
}

// heredoc is `cat > path <<'EOF'` with content: how a file the learner
// writes with an editor is typed in one go.
func heredoc(prefix, path string, content []byte) string {
	return StdinHeredoc(prefix+" "+Quote(path), content)
}

// StdinHeredoc is command with content on its stdin: `command <<'EOF'`.
func StdinHeredoc(command string, content []byte) string {
	return command + " <<'EOF'\n" + strings.TrimSuffix(string(content), "\n") + "\nEOF"
}

// WriteFile writes a file the learner writes by hand, and shows it. A
// file of the learner's at that name is refused, or with --force kept as
// a backup, and the step says so (kept).
func (s Shell) WriteFile(env *Lab, name string, content []byte) (string, error) {
	path, backup, err := evidence.Put(env.Dir, name, content, 0o644, env.Force)
	if err != nil {
		return "", err
	}
	KeptBackup(env, path, backup)
	if n := strings.Count(strings.TrimSuffix(string(content), "\n"), "\n") + 1; !s.verbose && n > heredocShown {
		s.Comment("%s", Say("steps.show.wrote_lines", "Path", path, "N", n))
		return path, nil
	}
	s.Cmd(heredoc("cat >", path, content))
	return path, nil
}

// KeptBackup tells the learner where --force put their file, on the progress
// stream, which --quiet does not silence.
func KeptBackup(env *Lab, path, backup string) {
	if backup != "" && env.Progress != nil {
		env.Progress.Warn("  %s", Say("steps.show.kept_backup", "Path", path, "Backup", backup))
	}
}

// evidenceCmd is the jq command that writes an evidence file from shell
// variables named after its keys, typed as its step's Shape says (strings
// with --arg, the rest as JSON with --argjson): LAB.md's way to write each
// record.
func evidenceCmd(path string, shape []evidence.Key) string {
	var args, fields []string
	for _, k := range shape {
		flag := "--argjson"
		if k.Kind == evidence.String {
			flag = "--arg"
		}
		args = append(args, fmt.Sprintf(`%s %s "$%s"`, flag, k.Name, k.Name))
		fields = append(fields, k.Name+": $"+k.Name)
	}
	return "jq -n " + strings.Join(args, " ") + " " + Quote("{"+strings.Join(fields, ", ")+"}") + " > " + Quote(path)
}

// WriteEvidence writes the step's evidence file and shows the jq command
// that writes it from the variables read before.
func (s Shell) WriteEvidence(env *Lab, file string, v any) (string, error) {
	path, backup, err := evidence.WriteForce(env.Dir, file, v, env.Force)
	if err != nil {
		return "", err
	}
	KeptBackup(env, path, backup)
	s.Cmd(evidenceCmd(path, env.Steps.Lab().ShapeOf(file)))
	return path, nil
}

// Apply server-side-applies a manifest file as
// `kubectl apply --server-side --field-manager=cnpa-lab --force-conflicts -f`
// does, and shows the command and kubectl's answer. path "-" shows the
// manifest as a heredoc on stdin.
func (s Shell) Apply(ctx context.Context, env *Lab, path string, manifest []byte) error {
	line := ApplyCmd(path)
	if path == "-" {
		line = StdinHeredoc(line, manifest)
	}
	s.Cmd(line)
	names, err := apply(ctx, env, manifest)
	for _, n := range names {
		s.Answer("%s serverside-applied", n)
	}
	return err
}

// kubectl's field managers for the verbs the steps use: the steps' writes
// carry them so that managedFields read as if the learner had typed them.
const (
	managerPatch = "kubectl-patch"
	managerLabel = "kubectl-label"
)

// MergePatch sends a JSON merge patch as `kubectl patch --type=merge -p`
// does and shows it with kubectl's answer: "(no change)" when the object's
// resourceVersion did not move (prevRV, when known).
func (s Shell) MergePatch(ctx context.Context, env *Lab, o Obj, body, prevRV string) (*unstructured.Unstructured, error) {
	s.Cmd(PatchCmd(o, body))
	u, err := s.send(ctx, env, o, body, managerPatch)
	if err != nil {
		return nil, fmt.Errorf("kubectl patch %s %s with %s: %w", o.Resource, o.Name, body, err)
	}
	s.Answer("%s/%s patched%s", o.Qualified, o.Name, noChange(prevRV, u))
	return u, nil
}

// MergePatchInto sends a JSON merge patch as mergePatch does, and reads
// the value at path from the server's answer into variable name, as
// `name=$(kubectl patch … -o jsonpath=path)` does: the patched object
// itself, before any controller can act on it.
func (s Shell) MergePatchInto(ctx context.Context, env *Lab, o Obj, body, name, path string) (*unstructured.Unstructured, error) {
	s.Cmd(name + "=$(" + PatchCmd(o, body) + " " + Words("-o", "jsonpath="+path) + ")")
	u, err := s.send(ctx, env, o, body, managerPatch)
	if err != nil {
		return nil, fmt.Errorf("kubectl patch %s %s with %s: %w", o.Resource, o.Name, body, err)
	}
	got, err := jsonPath(u, path)
	if err != nil {
		got = "(" + err.Error() + ")"
	}
	s.Value(got)
	return u, nil
}

// Label sets one label as `kubectl label` does (a merge patch of
// metadata.labels) and shows it with kubectl's answer.
func (s Shell) Label(ctx context.Context, env *Lab, o Obj, key, value string) (*unstructured.Unstructured, error) {
	s.Cmd(Kubectl(append(append([]string{"label"}, o.Args()...), key+"="+value)...))
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{key: value}}})
	u, err := s.send(ctx, env, o, string(body), managerLabel)
	if err != nil {
		return nil, fmt.Errorf("kubectl label %s %s %s=%s: %w", o.Resource, o.Name, key, value, err)
	}
	s.Answer("%s/%s labeled", o.Qualified, o.Name)
	return u, nil
}

func (s Shell) send(ctx context.Context, env *Lab, o Obj, body, manager string) (*unstructured.Unstructured, error) {
	res := env.Clients.Dynamic.Resource(o.GVR)
	opts := metav1.PatchOptions{FieldManager: manager}
	if o.NS != "" {
		return res.Namespace(o.NS).Patch(ctx, o.Name, types.MergePatchType, []byte(body), opts)
	}
	return res.Patch(ctx, o.Name, types.MergePatchType, []byte(body), opts)
}

func noChange(prevRV string, u *unstructured.Unstructured) string {
	if prevRV != "" && u.GetResourceVersion() == prevRV {
		return " (no change)"
	}
	return ""
}

// Remove deletes an object as `kubectl delete --wait=false` does and shows
// it with kubectl's answer.
func (s Shell) Remove(ctx context.Context, env *Lab, o Obj) error {
	s.Cmd(DeleteCmd(o))
	res := env.Clients.Dynamic.Resource(o.GVR)
	var err error
	if o.NS != "" {
		err = res.Namespace(o.NS).Delete(ctx, o.Name, metav1.DeleteOptions{})
	} else {
		err = res.Delete(ctx, o.Name, metav1.DeleteOptions{})
	}
	if err != nil {
		return fmt.Errorf("kubectl delete %s %s: %w", o.Resource, o.Name, err)
	}
	s.Answer("%s %q deleted", o.Qualified, o.Name)
	return nil
}

// WaitCmd shows the command a learner types to wait as the step is about to.
func (s Shell) WaitCmd(line string) { s.Cmd(line) }

// KubectlWait is `kubectl wait <obj> --for=<cond> --timeout=<t>`, t the
// step's --timeout.
func KubectlWait(env *Lab, o Obj, cond string) string {
	return KubectlWaitFor(o, cond, env.Timeout)
}

// KubectlWaitFor is kubectlWait for a wait of its own length.
func KubectlWaitFor(o Obj, cond string, timeout time.Duration) string {
	return Kubectl(append(append([]string{"wait"}, o.slash()...), "--for="+cond, "--timeout="+timeout.String())...)
}

// Until is a bash loop that polls until cond holds, for the waits kubectl
// wait cannot say (a uid that changes, a value that leaves 99).
func Until(cond string) string { return "until " + cond + "; do sleep 0.2; done" }

// saidNoSystemd remembers, per output, that the first systemctl shown in
// process mode said how cnpa stands in for it: once is enough.
var saidNoSystemd sync.Map // *ui.Printer → true

// Systemctl shows the systemd command a service action is; where the
// service is a detached process (no systemd), it says so, once per run.
func (s Shell) Systemctl(env *Lab, args ...string) {
	s.Cmd(Words(append([]string{"systemctl"}, args...)...))
	if s.p == nil || env.Service.Name() == "systemd" || args[0] == "daemon-reload" {
		return
	}
	if _, said := saidNoSystemd.LoadOrStore(s.p, true); !said {
		s.Comment("%s", Say("steps.show.no_systemd", "Pid", filepath.Join(env.Dir, "cnpa-op.pid")))
	}
}
