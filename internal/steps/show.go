package steps

// Every action a step takes on the cluster is shown as the command a
// learner would type on the lab's VM: `  $ kubectl label teamspace alpha
// owner=platform`, continuation lines as `  > ` (a shell's PS2), then the
// server's answer where it teaches something and the value read back as
// `    → 6`. The lines are built here, from the same values the Go code
// sends (the patch body, the jsonpath it evaluates on the object it read),
// so that what is shown is what was done; test/lab replays them with bash
// on a fresh cluster and gets the same evidence. --quiet (and -o json)
// leave env.Show nil, and nothing is shown.

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
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// shell shows a step's actions as a learner's shell session.
type shell struct {
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

func show(env *Lab) shell {
	s := shell{p: env.Show, verbose: env.Verbose}
	if env.Target != nil && env.Target.ContextGiven {
		s.context = env.Target.Context
	}
	return s
}

// kubectlWord is kubectl as a command word: at the start of a command,
// after a space, `(` or `$(`.
var kubectlWord = regexp.MustCompile(`(^|[\s(])kubectl `)

// cmd shows one command; a command of several lines (a heredoc) shows its
// further lines as continuation lines.
func (s shell) cmd(line string) {
	if s.p == nil {
		return
	}
	lines := strings.Split(line, "\n")
	if n := len(lines) - 2; !s.verbose && n > heredocShown && strings.HasSuffix(lines[0], "<<'EOF'") && lines[len(lines)-1] == "EOF" {
		lines = []string{lines[0], say("steps.show.heredoc_lines", "N", n), "EOF"}
	}
	if s.context != "" {
		// The first line only: the others are a heredoc's content.
		lines[0] = kubectlWord.ReplaceAllString(lines[0], "${1}kubectl --context "+quote(s.context)+" ")
	}
	s.p.Line("  %s %s", s.p.Bold("$"), lines[0])
	for _, l := range lines[1:] {
		s.p.Line("  > %s", l)
	}
}

// answer shows what the server (or the command) answered.
func (s shell) answer(format string, a ...any) {
	if s.p != nil {
		// What a command answers comes from the cluster: data, not
		// terminal commands.
		s.p.Note("    %s", ui.Clean(fmt.Sprintf(format, a...)))
	}
}

// value shows the value a read-back gave.
func (s shell) value(v any) {
	if s.p != nil {
		s.p.Line("    → %s", ui.Clean(fmt.Sprint(v)))
	}
}

// comment shows a `#` line: what a command stands for where it is not the
// learner's literal keystrokes, wrapped to 80 columns after its `# `
// (the catalog's own breaks kept; a path or a command is never broken,
// and only a line with one wider than the room runs longer).
func (s shell) comment(format string, a ...any) {
	if s.p != nil {
		s.p.Note("%s", ui.Indent("  # ", "  # ", fmt.Sprintf(format, a...), ui.Cols))
	}
}

// block shows installed text (a script, a unit) under a heading, each line
// with its mark, if any, beside it; a mark that does not fit beside its
// line within 80 columns goes on the line below, under an ↑ (the line
// itself is the file's and is shown as it is).
func (s shell) block(heading string, lines []string, marks map[int]string) {
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

// quote quotes a word for bash when it needs it. In flag=value words only
// the value is quoted (`-o jsonpath='{.metadata.uid}'`), as people write it.
func quote(w string) string {
	if w != "" && safeWord.MatchString(w) {
		return w
	}
	if i := strings.Index(w, "="); i > 0 && safeWord.MatchString(w[:i+1]) {
		return w[:i+1] + quote(w[i+1:])
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// words renders argv as one shell line.
func words(argv ...string) string {
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}

// obj names one object as kubectl does: the resource as typed, the name and
// the namespace.
type obj struct {
	resource  string // kubectl's word: teamspace, namespace, resourcequota, crd
	qualified string // how kubectl names it in answers: teamspace.platform.labhub.io
	gvr       schema.GroupVersionResource
	name, ns  string
}

func teamspaceObj(name string) obj {
	return obj{resource: "teamspace", qualified: "teamspace." + teamspace.Group, gvr: teamspace.GVR, name: name}
}

func namespaceObj(name string) obj {
	return obj{resource: "namespace", qualified: "namespace", gvr: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, name: name}
}

func quotaObj(ns string) obj {
	return obj{resource: "resourcequota", qualified: "resourcequota", gvr: schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}, name: teamspace.QuotaName, ns: ns}
}

// args are the words after the verb: resource, name, and -n when namespaced.
func (o obj) args() []string {
	a := []string{o.resource, o.name}
	if o.ns != "" {
		a = append(a, "-n", o.ns)
	}
	return a
}

// slash is resource/name, as kubectl wait takes it.
func (o obj) slash() []string {
	a := []string{o.resource + "/" + o.name}
	if o.ns != "" {
		a = append(a, "-n", o.ns)
	}
	return a
}

// target names the object in a timeline entry: "resourcequota
// team-alpha/team-quota", "teamspace beta".
func (o obj) target() string {
	if o.ns != "" {
		return o.resource + " " + o.ns + "/" + o.name
	}
	return o.resource + " " + o.name
}

func kubectl(args ...string) string { return "kubectl " + words(args...) }

// The commands a request is shown as, and recorded as in a timeline
// (reaction.action, reaction.you): built from the request's own values, so
// that what the timeline says was done is what was sent.

// applyCmd is the server-side apply of the manifest at path ("-": stdin).
func applyCmd(path string) string {
	return kubectl("apply", "--server-side", "--field-manager="+fieldManager, "--force-conflicts", "-f", path)
}

// patchCmd is the JSON merge patch body of o.
func patchCmd(o obj, body string) string {
	return kubectl(append(append([]string{"patch"}, o.args()...), "--type=merge", "-p", body)...)
}

// deleteCmd is the delete of o that returns at once.
func deleteCmd(o obj) string {
	return kubectl(append(append([]string{"delete"}, o.args()...), "--wait=false")...)
}

// deleteRawCmd is DELETE path, as the API server's answer.
func deleteRawCmd(path string) string { return kubectl("delete", "--raw", path) }

// getCmd is `kubectl get <obj> -o jsonpath=<path>`.
func getCmd(o obj, path string) string {
	return kubectl(append(append([]string{"get"}, o.args()...), "-o", "jsonpath="+path)...)
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

// readBack shows `name=$(kubectl get <o> -o jsonpath=<path>)` and the value
// that jsonpath gives on v, the object the step read: what the shell
// variable holds in the replay is what the Go code holds here.
func (s shell) readBack(name string, o obj, path string, v any) string {
	got, err := jsonPath(v, path)
	if err != nil {
		got = "(" + err.Error() + ")"
	}
	s.cmd(name + "=$(" + getCmd(o, path) + ")")
	s.value(got)
	return got
}

// exists shows the exit-code test the lab text's step 1 describes, setting name
// to true or false.
func (s shell) exists(name string, o obj, exists bool) {
	s.cmd(fmt.Sprintf("if %s >/dev/null 2>&1; then %s=true; else %s=false; fi", kubectl(append([]string{"get"}, o.args()...)...), name, name))
	s.value(exists)
}

// set shows a shell assignment computed from earlier variables.
func (s shell) set(name, expr string, v any) {
	s.cmd(name + "=" + expr)
	s.value(v)
}

// heredoc is `cat > path <<'EOF'` with content: how a file the learner
// writes with an editor is typed in one go.
func heredoc(prefix, path string, content []byte) string {
	return stdinHeredoc(prefix+" "+quote(path), content)
}

// stdinHeredoc is command with content on its stdin: `command <<'EOF'`.
func stdinHeredoc(command string, content []byte) string {
	return command + " <<'EOF'\n" + strings.TrimSuffix(string(content), "\n") + "\nEOF"
}

// writeFile writes a file the learner writes by hand, and shows it. A
// file of the learner's at that name is refused, or with --force kept as
// a backup, and the step says so (kept).
func (s shell) writeFile(env *Lab, name string, content []byte) (string, error) {
	path, backup, err := evidence.Put(env.Dir, name, content, 0o644, env.Force)
	if err != nil {
		return "", err
	}
	kept(env, path, backup)
	if n := strings.Count(strings.TrimSuffix(string(content), "\n"), "\n") + 1; !s.verbose && n > heredocShown {
		s.comment("%s", say("steps.show.wrote_lines", "Path", path, "N", n))
		return path, nil
	}
	s.cmd(heredoc("cat >", path, content))
	return path, nil
}

// kept tells the learner where --force put their file, on the progress
// stream, which --quiet does not silence.
func kept(env *Lab, path, backup string) {
	if backup != "" && env.Progress != nil {
		env.Progress.Warn("  %s", say("steps.show.kept_backup", "Path", path, "Backup", backup))
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
	return "jq -n " + strings.Join(args, " ") + " " + quote("{"+strings.Join(fields, ", ")+"}") + " > " + quote(path)
}

// writeEvidence writes the step's evidence file and shows the jq command
// that writes it from the variables read before.
func (s shell) writeEvidence(env *Lab, file string, v any) (string, error) {
	path, backup, err := evidence.WriteForce(env.Dir, file, v, env.Force)
	if err != nil {
		return "", err
	}
	kept(env, path, backup)
	s.cmd(evidenceCmd(path, env.Steps.Lab().ShapeOf(file)))
	return path, nil
}

// apply server-side-applies a manifest file as
// `kubectl apply --server-side --field-manager=cnpa-lab --force-conflicts -f`
// does, and shows the command and kubectl's answer. path "-" shows the
// manifest as a heredoc on stdin.
func (s shell) apply(ctx context.Context, env *Lab, path string, manifest []byte) error {
	line := applyCmd(path)
	if path == "-" {
		line = stdinHeredoc(line, manifest)
	}
	s.cmd(line)
	names, err := apply(ctx, env, manifest)
	for _, n := range names {
		s.answer("%s serverside-applied", n)
	}
	return err
}

// kubectl's field managers for the verbs the steps use: the steps' writes
// carry them so that managedFields read as if the learner had typed them.
const (
	managerPatch = "kubectl-patch"
	managerLabel = "kubectl-label"
)

// mergePatch sends a JSON merge patch as `kubectl patch --type=merge -p`
// does and shows it with kubectl's answer: "(no change)" when the object's
// resourceVersion did not move (prevRV, when known).
func (s shell) mergePatch(ctx context.Context, env *Lab, o obj, body, prevRV string) (*unstructured.Unstructured, error) {
	s.cmd(patchCmd(o, body))
	u, err := s.send(ctx, env, o, body, managerPatch)
	if err != nil {
		return nil, fmt.Errorf("kubectl patch %s %s with %s: %w", o.resource, o.name, body, err)
	}
	s.answer("%s/%s patched%s", o.qualified, o.name, noChange(prevRV, u))
	return u, nil
}

// mergePatchInto sends a JSON merge patch as mergePatch does, and reads
// the value at path from the server's answer into variable name, as
// `name=$(kubectl patch … -o jsonpath=path)` does: the patched object
// itself, before any controller can act on it.
func (s shell) mergePatchInto(ctx context.Context, env *Lab, o obj, body, name, path string) (*unstructured.Unstructured, error) {
	s.cmd(name + "=$(" + patchCmd(o, body) + " " + words("-o", "jsonpath="+path) + ")")
	u, err := s.send(ctx, env, o, body, managerPatch)
	if err != nil {
		return nil, fmt.Errorf("kubectl patch %s %s with %s: %w", o.resource, o.name, body, err)
	}
	got, err := jsonPath(u, path)
	if err != nil {
		got = "(" + err.Error() + ")"
	}
	s.value(got)
	return u, nil
}

// label sets one label as `kubectl label` does (a merge patch of
// metadata.labels) and shows it with kubectl's answer.
func (s shell) label(ctx context.Context, env *Lab, o obj, key, value string) (*unstructured.Unstructured, error) {
	s.cmd(kubectl(append(append([]string{"label"}, o.args()...), key+"="+value)...))
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{key: value}}})
	u, err := s.send(ctx, env, o, string(body), managerLabel)
	if err != nil {
		return nil, fmt.Errorf("kubectl label %s %s %s=%s: %w", o.resource, o.name, key, value, err)
	}
	s.answer("%s/%s labeled", o.qualified, o.name)
	return u, nil
}

func (s shell) send(ctx context.Context, env *Lab, o obj, body, manager string) (*unstructured.Unstructured, error) {
	res := env.Clients.Dynamic.Resource(o.gvr)
	opts := metav1.PatchOptions{FieldManager: manager}
	if o.ns != "" {
		return res.Namespace(o.ns).Patch(ctx, o.name, types.MergePatchType, []byte(body), opts)
	}
	return res.Patch(ctx, o.name, types.MergePatchType, []byte(body), opts)
}

func noChange(prevRV string, u *unstructured.Unstructured) string {
	if prevRV != "" && u.GetResourceVersion() == prevRV {
		return " (no change)"
	}
	return ""
}

// remove deletes an object as `kubectl delete --wait=false` does and shows
// it with kubectl's answer.
func (s shell) remove(ctx context.Context, env *Lab, o obj) error {
	s.cmd(deleteCmd(o))
	res := env.Clients.Dynamic.Resource(o.gvr)
	var err error
	if o.ns != "" {
		err = res.Namespace(o.ns).Delete(ctx, o.name, metav1.DeleteOptions{})
	} else {
		err = res.Delete(ctx, o.name, metav1.DeleteOptions{})
	}
	if err != nil {
		return fmt.Errorf("kubectl delete %s %s: %w", o.resource, o.name, err)
	}
	s.answer("%s %q deleted", o.qualified, o.name)
	return nil
}

// waitCmd shows the command a learner types to wait as the step is about to.
func (s shell) waitCmd(line string) { s.cmd(line) }

// kubectlWait is `kubectl wait <obj> --for=<cond> --timeout=<t>`, t the
// step's --timeout.
func kubectlWait(env *Lab, o obj, cond string) string {
	return kubectlWaitFor(o, cond, env.Timeout)
}

// kubectlWaitFor is kubectlWait for a wait of its own length.
func kubectlWaitFor(o obj, cond string, timeout time.Duration) string {
	return kubectl(append(append([]string{"wait"}, o.slash()...), "--for="+cond, "--timeout="+timeout.String())...)
}

// until is a bash loop that polls until cond holds, for the waits kubectl
// wait cannot say (a uid that changes, a value that leaves 99).
func until(cond string) string { return "until " + cond + "; do sleep 0.2; done" }

// saidNoSystemd remembers, per output, that the first systemctl shown in
// process mode said how cnpa stands in for it: once is enough.
var saidNoSystemd sync.Map // *ui.Printer → true

// systemctl shows the systemd command a service action is; where the
// service is a detached process (no systemd), it says so, once per run.
func (s shell) systemctl(env *Lab, args ...string) {
	s.cmd(words(append([]string{"systemctl"}, args...)...))
	if s.p == nil || env.Service.Name() == "systemd" || args[0] == "daemon-reload" {
		return
	}
	if _, said := saidNoSystemd.LoadOrStore(s.p, true); !said {
		s.comment("%s", say("steps.show.no_systemd", "Pid", filepath.Join(env.Dir, "cnpa-op.pid")))
	}
}

// deleteRaw sends DELETE path as `kubectl delete --raw` does and returns
// the server's answer, the object as the delete left it; it shows the
// command with the answer piped through jq filter into variable name.
func deleteRaw(ctx context.Context, env *Lab, sh shell, path, name, filter string) (*unstructured.Unstructured, error) {
	sh.cmd(name + "=$(" + deleteRawCmd(path) + " | jq " + quote(filter) + ")")
	raw, err := env.Clients.Kube.Discovery().RESTClient().Delete().AbsPath(path).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the answer to DELETE %s: %w", path, err)
	}
	return u, nil
}

// reportCmd is the jq command that computes report.json from the files of
// steps 1-7 and the archive record, as lab.ComputeReport does.
func reportCmd(dir, path string) string {
	args := []string{"jq", "-n"}
	for _, in := range lab.ReportJQInputs {
		args = append(args, "--slurpfile", in.Var, filepath.Join(dir, in.File))
	}
	return words(args...) + " \\\n  " + quote(lab.ReportJQ) + " > " + quote(path)
}
