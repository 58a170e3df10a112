package labfile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
)

// Engine runs a lab that lints: its commands in a shell, its facts
// through the verbs.
type Engine struct {
	Lab     *Lab
	Cluster *Cluster
	// LabDir is the lab's files on disk, $LAB_DIR to its commands.
	LabDir string
	// Env is what its commands run with besides the parameters and
	// LAB_DIR: KUBECONFIG at least, so that kubectl reaches the cluster
	// cnpa is pointed at.
	Env []string
	// CommandTimeout bounds each command (0: a minute).
	CommandTimeout time.Duration
	// Recorded, when not nil, are the facts Grade reads instead of the
	// cluster's, by step id and fact id: a submission's, graded offline
	// (OfflineEngine).
	Recorded map[string]map[string]any
}

// OfflineEngine is an engine of l that reads no cluster: Grade reads the
// facts recorded (a submission's, DecodeFacts) and runs no command.
func OfflineEngine(l *Lab, recorded map[string]map[string]any) *Engine {
	if recorded == nil {
		recorded = map[string]map[string]any{}
	}
	return &Engine{Lab: l, Cluster: &Cluster{Lab: l, Params: l.Defaults()}, Recorded: recorded}
}

// DecodeFacts reads facts as a submission records them (Report.Facts as
// JSON), with numbers as Grade reads them from the cluster: whole ones
// int64, others float64.
func DecodeFacts(raw []byte) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	if len(raw) == 0 {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	for step, facts := range v {
		out[step] = map[string]any{}
		for id, f := range facts {
			out[step][id] = numbers(f)
		}
	}
	return out, nil
}

// Output is what one command did.
type Output struct {
	Stdout, Stderr string
	Exit           int
}

// maxOutput is as much of a command's stdout or stderr as is kept.
const maxOutput = 64 << 10

// Shell runs script with bash -c in dir: the parameters as $name, LAB_DIR,
// and e.Env. A command that cannot start, or runs out of time, is an error;
// a non-zero exit is its answer.
func (e *Engine) Shell(ctx context.Context, dir, script string) (Output, error) {
	timeout := e.CommandTimeout
	if timeout == 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	// Its own process group, killed whole when time is up or the command
	// is interrupted: a kubectl it started must not outlive it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), e.Env...)
	cmd.Env = append(cmd.Env, "LAB_DIR="+e.LabDir)
	for _, k := range sorted(keysOf(e.Cluster.Params)) {
		cmd.Env = append(cmd.Env, k+"="+e.Cluster.Params[k])
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := Output{Stdout: trimOutput(stdout.Bytes()), Stderr: trimOutput(stderr.Bytes())}
	if ctx.Err() != nil {
		return out, fmt.Errorf("%s: %w", firstLine(script), ctx.Err())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		out.Exit = ee.ExitCode()
		return out, nil
	}
	return out, err
}

func trimOutput(b []byte) string {
	if len(b) > maxOutput {
		b = b[:maxOutput]
	}
	return strings.TrimRight(string(b), "\n")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// Commands runs each of scripts in dir in turn; the first that cannot run
// or fails is the error.
func (e *Engine) Commands(ctx context.Context, dir string, scripts []string) error {
	for _, s := range scripts {
		out, err := e.Shell(ctx, dir, s)
		if err != nil {
			return err
		}
		if out.Exit != 0 {
			return fmt.Errorf("%s: exit %d: %s", firstLine(s), out.Exit, out.Stderr)
		}
	}
	return nil
}

// RunStep runs step s's commands in dir and writes its evidence file
// there: the values of its write expressions over what the commands did.
// It returns the evidence written and the file's path.
func (e *Engine) RunStep(ctx context.Context, s *Step, dir string) (map[string]any, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	run := map[string]any{}
	for _, c := range s.Run {
		out, err := e.Shell(ctx, dir, c.Sh)
		if err != nil {
			return nil, "", err
		}
		run[c.ID] = map[string]any{"stdout": out.Stdout, "stderr": out.Stderr, "exit": int64(out.Exit)}
	}
	i := e.Lab.StepIndex(s.ID)
	files := map[string]any{}
	for j, other := range e.Lab.Steps {
		files[other.ID] = nil
		if v, reason, _ := readEvidence(other, j+1, dir); reason == "" {
			files[other.ID] = v
		}
	}
	ev := map[string]any{}
	for _, k := range sorted(keysOf(s.Write)) {
		v, err := e.Lab.progs[fmt.Sprintf("/steps/%d/write/%s", i, escapePtr(k))].eval(map[string]any{"run": run, "files": files, "params": e.Cluster.Params})
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s: %w", s.ID, k, err)
		}
		ev[k] = v
	}
	data, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return nil, "", err
	}
	file := filepath.Join(dir, s.Evidence.File)
	if err := atomicfile.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		return nil, "", err
	}
	return ev, file, nil
}

// Status is a check's outcome.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Skip: not checked, because a check it needs did not pass, or its
	// evidence or facts could not be read (Reason says which).
	Skip Status = "skip"
)

// Result is one check graded: ids and values, worded when shown.
type Result struct {
	// Check is step.check.
	Check  string `json:"id"`
	Status Status `json:"status"`
	Got    string `json:"actual,omitempty"`
	Want   string `json:"expected,omitempty"`
	// Reason is the message id of why it is not checked or could not be
	// decided, with its Args.
	Reason string         `json:"reason,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
	// Mistake is the mistake its failure shows; Hints its hints' word ids,
	// a nudge first and the answer last.
	Mistake string   `json:"mistake,omitempty"`
	Hints   []string `json:"hints,omitempty"`
}

// StepReport is one step's results.
type StepReport struct {
	Step   string   `json:"step"`
	Checks []Result `json:"checks"`
}

// Passed says whether every check of the step passed.
func (s StepReport) Passed() bool {
	for _, c := range s.Checks {
		if c.Status != Pass {
			return false
		}
	}
	return true
}

// Report is a lab graded.
type Report struct {
	Lab   string       `json:"lab"`
	Steps []StepReport `json:"steps"`
	// Facts are the facts the grading read, by step id and fact id:
	// what `cnpa submit` records, for `cnpa class grade` to grade the
	// same evidence against offline (Engine.Recorded).
	Facts map[string]map[string]any `json:"-"`
}

// OK says whether every check passed.
func (r *Report) OK() bool {
	for _, s := range r.Steps {
		if !s.Passed() {
			return false
		}
	}
	return true
}

// Status is check id's status, "" when the report has no such check.
func (r *Report) Status(id string) Status {
	for _, s := range r.Steps {
		for _, c := range s.Checks {
			if c.Check == id {
				return c.Status
			}
		}
	}
	return ""
}

// readEvidence reads step s's file in dir: its value, or the id and args
// of why it cannot be used.
func readEvidence(s *Step, n int, dir string) (map[string]any, string, map[string]any) {
	file := filepath.Join(dir, s.Evidence.File)
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, "labfile.reason.missing", map[string]any{"File": s.Evidence.File, "Step": n}
	}
	if err != nil {
		return nil, "labfile.reason.unreadable", map[string]any{"File": s.Evidence.File, "Err": err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, "labfile.reason.not_json", map[string]any{"File": s.Evidence.File}
	}
	v = numbers(v).(map[string]any)
	for _, k := range sorted(keysOf(s.Evidence.Shape)) {
		x, ok := v[k]
		if !ok {
			return nil, "labfile.reason.no_key", map[string]any{"File": s.Evidence.File, "Key": k}
		}
		if !ofType(x, s.Evidence.Shape[k]) {
			return nil, "labfile.reason.type", map[string]any{"File": s.Evidence.File, "Key": k, "Type": s.Evidence.Shape[k]}
		}
	}
	for _, k := range sorted(keysOf(v)) {
		if _, ok := s.Evidence.Shape[k]; !ok {
			return nil, "labfile.reason.extra_key", map[string]any{"File": s.Evidence.File, "Key": k}
		}
	}
	return v, "", nil
}

// numbers turns json.Numbers into int64 where whole, float64 otherwise.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

func ofType(v any, t string) bool {
	switch v.(type) {
	case string:
		return t == "string"
	case int64:
		return t == "integer"
	case bool:
		return t == "boolean"
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	}
	return false
}

// Grade grades every step of the lab (or reports only the step with id
// only, graded after the steps before it):
// each step's evidence in dir read against its shape, its facts read from
// the cluster, and every check over both. A check that cannot be decided
// says why; only a context ended is an error.
func (e *Engine) Grade(ctx context.Context, dir, only string) (*Report, error) {
	l := e.Lab
	rep := &Report{Lab: l.Metadata.Name, Facts: map[string]map[string]any{}}
	files := map[string]any{}
	for i, s := range l.Steps {
		if v, reason, _ := readEvidence(s, i+1, dir); reason == "" {
			files[s.ID] = v
		} else {
			files[s.ID] = nil
		}
	}
	status := map[string]Status{}
	last := len(l.Steps) - 1
	if only != "" {
		// The steps before it are graded too, unreported: its checks
		// may need theirs.
		last = l.StepIndex(only)
	}
	for i, s := range l.Steps[:last+1] {
		ev, reason, args := readEvidence(s, i+1, dir)
		facts := map[string]any{}
		var factErr error
		var factID string
		if reason == "" {
			for _, f := range s.Facts {
				v, err := e.fact(ctx, s, f)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					factErr, factID = err, f.ID
					break
				}
				facts[f.ID] = v
			}
			rep.Facts[s.ID] = facts
		}
		sr := StepReport{Step: s.ID}
		for j, c := range s.Checks {
			id := s.ID + "." + c.ID
			r := Result{Check: id}
			switch {
			case reason != "":
				r.Status, r.Reason, r.Args = Fail, reason, args
			case factErr != nil:
				r.Status, r.Reason, r.Args = Skip, "labfile.reason.fact", map[string]any{"Fact": factID, "Err": factErr.Error()}
			default:
				r = e.check(i, j, s, c, map[string]any{"evidence": ev, "facts": facts, "files": files, "params": e.Cluster.Params}, status)
			}
			status[id] = r.Status
			if only == "" || only == s.ID {
				sr.Checks = append(sr.Checks, r)
			}
		}
		if only == "" || only == s.ID {
			rep.Steps = append(rep.Steps, sr)
		}
	}
	return rep, nil
}

// fact reads fact f of step s: from the cluster, or from Recorded when
// the engine grades a submission offline.
func (e *Engine) fact(ctx context.Context, s *Step, f Fact) (map[string]any, error) {
	if e.Recorded == nil {
		return e.Cluster.Fact(ctx, f)
	}
	v, ok := e.Recorded[s.ID][f.ID]
	if !ok {
		return nil, i18n.NewError("labfile.error.not_recorded", i18n.Args{"Fact": s.ID + "." + f.ID})
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, i18n.NewError("labfile.error.not_recorded", i18n.Args{"Fact": s.ID + "." + f.ID})
	}
	return m, nil
}

// check grades check c (the j-th of step s, the i-th) over vars.
func (e *Engine) check(i, j int, s *Step, c Check, vars map[string]any, status map[string]Status) Result {
	id := s.ID + "." + c.ID
	r := Result{Check: id}
	for _, n := range c.Needs {
		full := n
		if !strings.Contains(n, ".") {
			full = s.ID + "." + n
		}
		if status[full] != Pass {
			r.Status, r.Reason, r.Args = Skip, "labfile.reason.needs", map[string]any{"Check": full}
			return r
		}
	}
	cp := fmt.Sprintf("/steps/%d/checks/%d", i, j)
	got, gerr := e.Lab.progs[cp+"/got"].eval(vars)
	want, werr := e.Lab.progs[cp+"/want"].eval(vars)
	held, herr := e.Lab.progs[cp+"/expr"].eval(vars)
	r.Got, r.Want = show(got), show(want)
	if gerr != nil {
		r.Got = gerr.Error()
	}
	if werr != nil {
		r.Want = werr.Error()
	}
	if ok, _ := held.(bool); herr == nil && ok {
		r.Status = Pass
		return r
	}
	r.Status = Fail
	if herr != nil {
		r.Reason, r.Args = "labfile.reason.eval", map[string]any{"Err": herr.Error()}
	}
	for _, m := range c.Mistakes {
		for k, mm := range s.Mistakes {
			if mm.ID != m {
				continue
			}
			if mm.When != "" {
				ok, err := e.Lab.progs[fmt.Sprintf("/steps/%d/mistakes/%d/when", i, k)].eval(vars)
				if b, _ := ok.(bool); err != nil || !b {
					continue
				}
			}
			r.Mistake, r.Hints = mm.ID, mm.Hints
			return r
		}
	}
	return r
}

// failedChecks are the ids of the report's checks with status Fail.
func (r *Report) failedChecks() []string {
	var out []string
	for _, s := range r.Steps {
		for _, c := range s.Checks {
			if c.Status == Fail {
				out = append(out, c.Check)
			}
		}
	}
	sort.Strings(out)
	return out
}
