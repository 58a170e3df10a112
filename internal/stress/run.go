package stress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// KubeconfigVar is set by the drop-in beside KUBECONFIG: `cnpa controller`
// (the Go engine, whose unit passes --kubeconfig) takes it over its flag.
const KubeconfigVar = "CNPA_STRESS_KUBECONFIG"

// dropIn is the name of the drop-in that points the service at the proxy.
const dropIn = "50-cnpa-stress"

// Faults are the faults, in the order they run.
var Faults = judge.StressFaults

// killPoints are the writes of a pass after which kill9 kills the service.
var killPoints = []int{1, 2, 3}

// faultFor is the proxy's mode for a fault that is a mode.
var faultFor = map[string]Mode{
	"conflict": {Conflict: 0.5},
	"error":    {Error: 0.3},
	"timeout":  {Timeout: 0.25},
	"stale":    {Stale: 0.5},
	"drop":     {Drop: 0.3},
	"latency":  {Latency: 250 * time.Millisecond},
	// Held until the fault is judged (Release): a client that waits
	// forever is still waiting when convergence is judged.
	"blackhole": {Blackhole: true},
}

// Options are the run's choices.
type Options struct {
	// Faults are the ones to run (nil: all of Faults).
	Faults []string
	// Bound is how long the controller has to converge after a fault.
	Bound time.Duration
	// Hold is how long a fault lasts.
	Hold time.Duration
	// Progress gets a line per fault.
	Progress *ui.Printer
}

// UnknownFaultError is a fault name stress does not have (usage, exit 2).
type UnknownFaultError struct{ Name string }

func (e *UnknownFaultError) Error() string {
	return i18n.T("stress.unknown_fault", i18n.Args{"Name": e.Name, "Faults": strings.Join(append(slices.Clone(Faults), OptIn...), ",")})
}

// OptIn are the faults run only when named (judge.StressOptIn).
var OptIn = judge.StressOptIn

// EnvError is a cluster or service that cannot be stressed (exit 2).
type EnvError struct{ Msg string }

func (e *EnvError) Error() string { return e.Msg }

// ParseFaults reads a comma-separated list ("" or "all": every default
// fault; "all" in a list adds them, "all,blackhole" an opt-in one too).
func ParseFaults(s string) ([]string, error) {
	if s == "" {
		s = "all"
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		names := []string{strings.TrimSpace(f)}
		if names[0] == "all" {
			names = Faults
		}
		for _, n := range names {
			if !slices.Contains(Faults, n) && !slices.Contains(OptIn, n) {
				return nil, &UnknownFaultError{Name: n}
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// runner is one stress run.
type runner struct {
	env   *labenv.Env
	opts  Options
	proxy *Proxy
	temps *check.Temps

	finalizerOn bool
	b1, b2      string // the TeamSpaces that live through the run; b2 holds a foreign finalizer
	pods        int64  // b1's next spec.pods
	previous    string // created by the fault before, deleted by the next
	uids        map[string]string

	wl workloadState // the workload faults' own (fault_*.go)

	mu       sync.Mutex
	released map[string]bool // deleted TeamSpace → its record was there at release
	writes   []landed        // the writes seen, in order
	killed   chan struct{}
	releases []func(context.Context) // custom faults' (fault_custom.go)
}

// Run puts the running service through each fault and judges it after
// each one. Phases: check the service runs; start the proxy with the
// service's own credentials; point the service at it with a drop-in and
// restart it; make two TeamSpaces and wait for them (the baseline); run
// each fault, judge, record; then, on every path (Ctrl-C included), stop
// the faults, remove the drop-in, restart the service as it was, and
// remove every TeamSpace the run made.
func Run(ctx context.Context, env *labenv.Env, opts Options) (rep *judge.StressReport, err error) {
	if opts.Bound <= 0 {
		opts.Bound = 30 * time.Second
	}
	if opts.Hold <= 0 {
		opts.Hold = 5 * time.Second
	}
	if opts.Faults == nil {
		opts.Faults = slices.Clone(Faults)
	}
	start := time.Now()
	st, err := env.Service.Status(ctx)
	if err != nil {
		return nil, err
	}
	if !st.Active {
		return nil, &EnvError{Msg: i18n.T("stress.not_running")}
	}
	if service.Held(env.Service, dropIn) {
		return nil, &EnvError{Msg: i18n.T("stress.already_running", i18n.Args{"Path": service.DropInPath(env.Service, dropIn)})}
	}
	cfg, err := serviceConfig(env)
	if err != nil {
		return nil, err
	}
	r := &runner{env: env, opts: opts, uids: map[string]string{}, released: map[string]bool{},
		finalizerOn: env.State != nil && env.State.Finalizer, pods: 2}
	if r.proxy, err = NewProxy(cfg); err != nil {
		return nil, err
	}
	r.proxy.Kill = r.kill
	r.proxy.OnAnswer(r.answered)
	addr, err := r.proxy.Start()
	if err != nil {
		return nil, err
	}
	kcDir, err := writeKubeconfig(ctx, env, addr, r.proxy.CA(), r.proxy.Token())
	if err != nil {
		r.proxy.Close()
		return nil, err
	}
	kc := filepath.Join(kcDir, "kubeconfig")
	r.temps = check.NewTemps(env, 20*time.Second)
	var drop *service.DropIn

	// Cleanup is its own piece, on every path: a context that outlives
	// Ctrl-C, the proxy passing everything through first so that the
	// restart is not faulted, then the service back as it was.
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		r.releaseAll(cctx)
		r.proxy.SetMode(Mode{})
		var errs []error
		if e := drop.Remove(cctx); e != nil {
			errs = append(errs, e)
		}
		if e := env.Service.Restart(cctx); e != nil {
			errs = append(errs, e)
		}
		// The foreign finalizer is the run's own stand-in: dropped first,
		// so that b2 goes as soon as the controller releases it.
		r.dropForeign(cctx)
		if e := r.temps.Cleanup(cctx); e != nil {
			errs = append(errs, e)
		}
		r.proxy.Close()
		os.RemoveAll(kcDir)
		// An interrupted run says what its cleanup could not do too.
		if len(errs) > 0 {
			err = errors.Join(append([]error{err}, errs...)...)
		}
	}()

	if drop, err = service.WriteDropIn(ctx, env.Service, dropIn, []string{"KUBECONFIG=" + kc, KubeconfigVar + "=" + kc}); err != nil {
		return nil, err
	}
	if err := env.Service.Restart(ctx); err != nil {
		return nil, err
	}
	if !r.await(ctx, 20*time.Second, func() bool { return r.proxy.Counts().Requests > 0 }) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &EnvError{Msg: i18n.T("stress.bypassed", i18n.Args{"Var": "KUBECONFIG"})}
	}
	r.temps.SweepLeftovers(ctx, func(string, ...any) {})

	rep = &judge.StressReport{At: start, Engine: env.Engine, Server: env.Target.Server}
	// Without a converged baseline no fault tells anything, and the run
	// fails (rep.OK): a controller that does not even converge without
	// faults is no pass with every fault skipped.
	rep.Baseline = r.baseline(ctx)
	for _, name := range opts.Faults {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if rep.Baseline != "" {
			rep.Faults = append(rep.Faults, judge.StressFault{Name: name, Status: judge.Skip, Why: i18n.T("stress.skipped_baseline")})
			continue
		}
		if opts.Progress != nil {
			opts.Progress.Note("%s", i18n.T("stress.progress", i18n.Args{"Name": name}))
		}
		rep.Faults = append(rep.Faults, r.fault(ctx, name))
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Count()
	return rep, nil
}

// serviceConfig is what the service itself reaches the API server with:
// its own identity's kubeconfig, or the learner's.
func serviceConfig(env *labenv.Env) (*rest.Config, error) {
	if env.OwnIdentity() {
		return clientcmd.BuildConfigFromFlags("", env.CredentialPath())
	}
	return rest.CopyConfig(env.Target.Config), nil
}

// await polls cond every 200 ms until it holds or d passes.
func (r *runner) await(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// kill is kill -9 of the service's whole process group, called by the
// proxy after the write it landed. systemd restarts it (Restart=always,
// RestartSec=1); in process mode, which has no restart of its own, the run
// does, a second later, as that unit would.
func (r *runner) kill() {
	ctx := context.Background()
	if r.env.Service.Name() == "systemd" {
		_ = exec.Command("systemctl", "kill", "--signal=SIGKILL", service.Name).Run()
	} else if st, err := r.env.Service.Status(ctx); err == nil && st.MainPID > 1 {
		_ = syscall.Kill(-st.MainPID, syscall.SIGKILL)
		go func() {
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if st, err := r.env.Service.Status(ctx); err == nil && !st.Active {
					break
				}
			}
			time.Sleep(time.Second)
			_ = r.env.Service.Start(ctx)
		}()
	}
	r.mu.Lock()
	if r.killed != nil {
		close(r.killed)
		r.killed = nil
	}
	r.mu.Unlock()
}

// answered sees each landed write: it keeps a list for the quiet window,
// and at the write that releases a deleted TeamSpace (ours gone from its
// finalizers) whether its archive record was already there, before the
// controller hears the answer.
func (r *runner) answered(req *http.Request, code int, body []byte) {
	short := shortPath(req.URL.Path)
	w := landed{what: req.Method + " " + short, object: strings.TrimSuffix(short, "/status"), code: code, at: time.Now()}
	if code < 300 {
		var answer map[string]any
		if json.Unmarshal(body, &answer) == nil {
			w.rv, w.fp = versionOf(answer)
		}
	}
	r.mu.Lock()
	r.writes = append(r.writes, w)
	r.mu.Unlock()
	if code >= 300 || !strings.Contains(req.URL.Path, "/teamspaces/") || strings.HasSuffix(req.URL.Path, "/status") {
		return
	}
	var obj struct {
		Metadata struct {
			Name              string   `json:"name"`
			UID               string   `json:"uid"`
			DeletionTimestamp *string  `json:"deletionTimestamp"`
			Finalizers        []string `json:"finalizers"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) != nil || obj.Metadata.DeletionTimestamp == nil ||
		slices.Contains(obj.Metadata.Finalizers, teamspace.Finalizer) {
		return
	}
	rec, err := evidence.ReadArchive(r.env.ArchiveDir(), obj.Metadata.Name)
	ok := err == nil && rec != nil && rec.UID == obj.Metadata.UID
	r.mu.Lock()
	if _, seen := r.released[obj.Metadata.Name]; !seen {
		r.released[obj.Metadata.Name] = ok
	}
	r.mu.Unlock()
}

// shortPath is a request's path from the resource on:
// "teamspaces/x/status", "namespaces/team-x/resourcequotas/team-quota".
func shortPath(p string) string {
	for _, prefix := range []string{"/apis/" + teamspace.Group + "/" + teamspace.Version + "/", "/api/v1/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			return rest
		}
	}
	return p
}

// baseline makes the run's two TeamSpaces (b2 with a foreign finalizer)
// and one to delete in the first fault, and waits for them; "" when the
// controller converged them, else why the faults are not run.
func (r *runner) baseline(ctx context.Context) string {
	r.b1, r.b2 = lab.TempName(check.TempPrefix), lab.TempName(check.TempPrefix)
	if _, err := r.temps.Create(ctx, r.b1, 2, "", nil); err != nil {
		return err.Error()
	}
	if _, err := r.temps.Create(ctx, r.b2, 3, "500m", []string{check.ForeignFinalizer}); err != nil {
		return err.Error()
	}
	if err := r.createFresh(ctx); err != nil {
		return err.Error()
	}
	un := r.converge(ctx, nil)
	if len(un) > 0 {
		return i18n.T("stress.baseline", i18n.Args{"Bound": r.opts.Bound, "Found": strings.Join(un, "; ")})
	}
	r.recordUIDs(ctx)
	return ""
}

// createFresh makes the TeamSpace the next fault deletes.
func (r *runner) createFresh(ctx context.Context) error {
	name := lab.TempName(check.TempPrefix)
	if _, err := r.temps.Create(ctx, name, 1, "", nil); err != nil {
		return err
	}
	r.previous = name
	return nil
}

// workload is what changes while a fault is on: b1's spec, one TeamSpace
// created, the one the fault before created deleted. It returns the
// deleted one's name and whether it carried our finalizer (then it must
// be archived before its release).
func (r *runner) workload(ctx context.Context) (deleted []deletion) {
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	if r.previous != "" {
		deleted = append(deleted, r.delete(ctx, r.previous))
	}
	_ = r.createFresh(ctx)
	return deleted
}

type deletion struct {
	name, uid   string
	ours        bool // it carried our finalizer when deleted
	unconverged bool // it was deleted before the controller converged it
}

func (r *runner) delete(ctx context.Context, name string) deletion {
	d := deletion{name: name}
	res := r.env.Clients.Dynamic.Resource(teamspace.GVR)
	if u, err := res.Get(ctx, name, metav1.GetOptions{}); err == nil {
		d.uid = string(u.GetUID())
		d.ours = slices.Contains(u.GetFinalizers(), teamspace.Finalizer)
	}
	_ = res.Delete(ctx, name, metav1.DeleteOptions{})
	return d
}

func (r *runner) editPods(ctx context.Context, name string, pods int64) {
	patch := fmt.Sprintf(`{"spec":{"pods":%d}}`, pods)
	_, _ = r.env.Clients.Dynamic.Resource(teamspace.GVR).Patch(ctx, name, types.MergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: "cnpa-stress"})
}

// fault runs one fault and judges what it left.
func (r *runner) fault(ctx context.Context, name string) judge.StressFault {
	start := time.Now()
	var deleted []deletion
	handEdited := map[string]bool{}
	before := r.proxy.Counts()
	var after afterFault
	switch c, isCustom := customs[name]; {
	case isCustom:
		deleted, after = c(ctx, r)
		after = r.hold(after)
	case name == "kill9":
		deleted = r.workload(ctx)
		for _, at := range killPoints {
			killed := make(chan struct{})
			r.mu.Lock()
			r.killed = killed
			r.mu.Unlock()
			r.proxy.SetMode(Mode{KillAt: at})
			// Two TeamSpaces' specs: a pass has at least four writes
			// (two quotas, two statuses), so every point is reached.
			r.pods = r.pods%9 + 1
			r.editPods(ctx, r.b1, r.pods)
			r.editPods(ctx, r.b2, 10-r.pods)
			select {
			case <-killed:
			case <-time.After(10 * time.Second):
			case <-ctx.Done():
			}
			r.proxy.SetMode(Mode{})
			// Back before the next point: a kill of a service that is
			// still restarting tells nothing (a process runs again).
			r.await(ctx, r.opts.Bound, func() bool {
				st, err := r.env.Service.Status(ctx)
				return err == nil && st.Active && st.MainPID > 0
			})
		}
	case name == "poison":
		deleted = r.poison(ctx)
	case name == "recreate":
		deleted = r.recreate(ctx)
	case name == "burst":
		// What a busy cluster gives a controller at once: TeamSpaces
		// created, edited and deleted, and the hands of others on what it
		// owns (a quota deleted, one edited), as the lab's step 5 does.
		deleted = r.workload(ctx)
		var made []string
		for range 3 {
			n := lab.TempName(check.TempPrefix)
			if _, err := r.temps.Create(ctx, n, 2, "", nil); err == nil {
				made = append(made, n)
			}
		}
		for i := range 3 {
			r.editPods(ctx, r.b1, int64(10+i))
		}
		// b2's spec stays: its quota, deleted by hand below, is seen
		// only by comparing desired with actual, not by a new generation.
		kube := r.env.Clients.Kube.CoreV1()
		_ = kube.ResourceQuotas(teamspace.NamespaceName(r.b2)).Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{})
		_, _ = kube.ResourceQuotas(teamspace.NamespaceName(r.b1)).Patch(ctx, teamspace.QuotaName, types.MergePatchType,
			[]byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "cnpa-stress"})
		handEdited["resourcequota/"+r.b2] = true
		if len(made) > 0 {
			deleted = append(deleted, r.delete(ctx, made[0]))
		}
		sleep(ctx, time.Second)
		if len(made) > 1 {
			deleted = append(deleted, r.delete(ctx, made[1]))
		}
	default:
		r.proxy.SetMode(faultFor[name])
		if name == "stale" {
			// A controller that watches reads by listing: make it list
			// now (recorded) and again below (served the older list).
			r.proxy.DropWatches()
		}
		deleted = r.workload(ctx)
		sleep(ctx, r.opts.Hold/2)
		r.pods = r.pods%9 + 1
		r.editPods(ctx, r.b1, r.pods)
		if name == "stale" {
			r.proxy.DropWatches()
		}
		sleep(ctx, r.opts.Hold/2)
		r.proxy.SetMode(Mode{})
	}
	ended := time.Now()
	v := judge.StressFault{Name: name, Status: judge.Pass}
	v.Injected = injectedSince(before, r.proxy.Counts())
	if name == "burst" || name == "poison" || name == "recreate" {
		v.Injected[name] = 1 // a workload fault: the cluster's, not the proxy's
	}
	if name == "latency" {
		v.Injected["latency"] = r.proxy.Counts().Requests - before.Requests
	}
	v.Findings = r.judge(ctx, &v, ended, deleted, handEdited)
	if after.judge != nil {
		v.Findings = append(after.judge(ctx), v.Findings...)
	}
	if after.release != nil {
		// Past Ctrl-C too: what the fault holds (a failed unit) is undone
		// before the run's cleanup restarts the service.
		after.release(context.WithoutCancel(ctx))
		// What a held fault gave while judged counts too (gone's 410s).
		v.Injected = injectedSince(before, r.proxy.Counts())
	}
	r.workloadDone(ctx)
	// A blackhole's requests hang up only now: a controller that waited
	// for them forever is back for the next fault.
	r.proxy.Release()
	if len(v.Findings) > 0 {
		v.Status = judge.Fail
		v.Hint = i18n.T("stress.why."+name) + " " + i18n.T("stress.fix."+v.Findings[0].Property)
		v.Log = r.logTail(ctx)
	}
	v.Seconds = time.Since(start).Seconds()
	return v
}

func injectedSince(a, b Counts) map[string]int64 {
	m := map[string]int64{}
	for k, v := range b.Injected {
		if d := v - a.Injected[k]; d > 0 {
			m[k] = d
		}
	}
	return m
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// converge waits up to the bound for every TeamSpace to be converged and
// every deleted one gone; it returns what is still not so.
func (r *runner) converge(ctx context.Context, deleted []deletion) []string {
	var left []string
	r.await(ctx, r.opts.Bound, func() bool {
		left = left[:0]
		un, err := check.Unconverged(ctx, r.env, r.finalizerOn)
		if err != nil {
			left = append(left, err.Error())
			return false
		}
		names := make([]string, 0, len(un))
		for n := range un {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if r.wl.unjudged(n) {
				continue // the poison: no controller can converge it
			}
			left = append(left, i18n.T("stress.found.unconverged", i18n.Args{"Name": n, "Gap": un[n]}))
		}
		for _, d := range deleted {
			// By uid: a TeamSpace made again under the name (recreate)
			// is not the deleted one.
			u, err := r.env.Clients.Dynamic.Resource(teamspace.GVR).Get(ctx, d.name, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) && (err != nil || d.uid == "" || string(u.GetUID()) == d.uid) {
				left = append(left, i18n.T("stress.found.not_gone", i18n.Args{"Name": d.name}))
			}
		}
		return len(left) == 0
	})
	return left
}

// recordUIDs notes the uids of b1's and b2's namespace and quota.
func (r *runner) recordUIDs(ctx context.Context) {
	for k, v := range r.ownedUIDs(ctx) {
		r.uids[k] = v
	}
}

func (r *runner) ownedUIDs(ctx context.Context) map[string]string {
	m := map[string]string{}
	kube := r.env.Clients.Kube.CoreV1()
	for _, n := range []string{r.b1, r.b2} {
		ns := teamspace.NamespaceName(n)
		if o, err := kube.Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
			m["namespace/"+n] = string(o.UID)
		}
		if o, err := kube.ResourceQuotas(ns).Get(ctx, teamspace.QuotaName, metav1.GetOptions{}); err == nil {
			m["resourcequota/"+n] = string(o.UID)
		}
	}
	return m
}

// judge is every property after a fault: converged within the bound,
// each deleted TeamSpace archived before its release, the foreign
// finalizer kept, nothing recreated, the fault's own promise, then stable
// (no write for StressStablePasses whole passes), the service running.
// It notes in v how long the controller took to converge and to be
// stable, from ended, the fault's end.
func (r *runner) judge(ctx context.Context, v *judge.StressFault, ended time.Time, deleted []deletion, handEdited map[string]bool) []judge.StressFinding {
	var out []judge.StressFinding
	if left := r.converge(ctx, deleted); len(left) > 0 {
		if len(left) > 4 {
			left = append(left[:4], "…")
		}
		out = append(out, judge.StressFinding{Property: judge.StressConverged, Found: strings.Join(left, "; "),
			Expected: i18n.T("stress.expected.converged", i18n.Args{"Bound": r.opts.Bound})})
	} else {
		t := time.Since(ended).Seconds()
		v.TimeToConverge = &t
	}
	for _, d := range deleted {
		if !d.ours {
			continue
		}
		r.mu.Lock()
		ok, seen := r.released[d.name]
		r.mu.Unlock()
		switch {
		case seen && !ok:
			out = append(out, judge.StressFinding{Property: judge.StressArchived,
				Found:    i18n.T("stress.found.released_first", i18n.Args{"Name": d.name}),
				Expected: i18n.T("stress.expected.archived")})
		case !seen && r.stillThere(ctx, d):
			// Not released yet: converged says so, and a record may still
			// come before the release.
		case !seen:
			// Released by no write we saw: the record must be there now,
			// with its uid.
			rec, err := evidence.ReadArchive(r.env.ArchiveDir(), d.name)
			if err != nil || rec == nil || rec.UID != d.uid {
				out = append(out, judge.StressFinding{Property: judge.StressArchived,
					Found:    i18n.T("stress.found.no_record", i18n.Args{"Name": d.name}),
					Expected: i18n.T("stress.expected.archived")})
			}
		}
	}
	if u, err := r.env.Clients.Dynamic.Resource(teamspace.GVR).Get(ctx, r.b2, metav1.GetOptions{}); err == nil &&
		!slices.Contains(u.GetFinalizers(), check.ForeignFinalizer) {
		out = append(out, judge.StressFinding{Property: judge.StressForeign,
			Found:    i18n.T("stress.found.foreign", i18n.Args{"Name": r.b2, "Finalizers": fmt.Sprint(u.GetFinalizers())}),
			Expected: i18n.T("stress.expected.foreign", i18n.Args{"Finalizer": check.ForeignFinalizer})})
	}
	now := r.ownedUIDs(ctx)
	var recreated []string
	for k, was := range r.uids {
		if is, ok := now[k]; ok && is != was && !handEdited[k] {
			recreated = append(recreated, k)
		}
	}
	sort.Strings(recreated)
	if len(recreated) > 0 {
		out = append(out, judge.StressFinding{Property: judge.StressKept,
			Found:    i18n.T("stress.found.recreated", i18n.Args{"Objects": i18n.List(recreated)}),
			Expected: i18n.T("stress.expected.kept")})
	}
	r.uids = now
	out = append(out, r.wl.judge(ctx, r)...)
	if len(out) == 0 {
		// Only a converged cluster can be stable.
		if f := r.stable(ctx, v, ended); f != nil {
			out = append(out, *f)
		}
	}
	if !r.await(ctx, 5*time.Second, func() bool {
		st, err := r.env.Service.Status(ctx)
		return err == nil && st.Active
	}) {
		out = append(out, judge.StressFinding{Property: judge.StressRunning,
			Found: i18n.T("stress.found.not_running"), Expected: i18n.T("stress.expected.running")})
	}
	return out
}

// landed is one write through the proxy and the object's resourceVersion
// in its answer ("" when it was refused or its answer had none).
type landed struct {
	what   string // "PATCH namespaces/team-x/resourcequotas/team-quota"
	object string // the object, without its /status
	rv     string
	fp     string // the object's content in the answer (fingerprint)
	code   int    // the answer's status code
	at     time.Time
}

// labObject tells whether a write's object (shortPath, without /status)
// is one of the lab's: a TeamSpace, a namespace itself, a quota. Step 3's
// "writes nothing" is about those; an Event the controller records, or
// the Lease its leader election renews, is no change of the lab's state
// (the go engine's event broadcaster posts an Event of an earlier error
// whenever it gets to it).
func labObject(object string) bool {
	switch parts := strings.Split(strings.TrimSuffix(object, "/finalize"), "/"); {
	case parts[0] == "teamspaces":
		return true
	case parts[0] != "namespaces":
		return false
	case len(parts) <= 2:
		return true // the namespaces, or one namespace
	default:
		return parts[2] == "resourcequotas"
	}
}

// logTail is the end of the controller's output, errors first.
func (r *runner) logTail(ctx context.Context) string {
	var b bytes.Buffer
	if err := r.env.Service.Logs(ctx, 60, &b); err != nil {
		return ""
	}
	return service.ErrorsFirst(b.String(), 10)
}

// dropForeign removes the foreign finalizer from b2, and only it (the
// list as read, with its resourceVersion as a precondition; a conflict is
// read again).
func (r *runner) dropForeign(ctx context.Context) {
	if r.b2 == "" {
		return
	}
	res := r.env.Clients.Dynamic.Resource(teamspace.GVR)
	for range 5 {
		u, err := res.Get(ctx, r.b2, metav1.GetOptions{})
		if err != nil {
			return // gone, or the cleanup's own wait will say what is wrong
		}
		fins := slices.DeleteFunc(u.GetFinalizers(), func(f string) bool { return f == check.ForeignFinalizer })
		u.SetFinalizers(fins)
		if _, err := res.Update(ctx, u, metav1.UpdateOptions{FieldManager: "cnpa-stress"}); !apierrors.IsConflict(err) {
			return
		}
	}
}
