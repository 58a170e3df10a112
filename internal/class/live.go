package class

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/submission"
)

// ClassFile is CLASS.yaml: how to reach each learner's cluster.
type ClassFile struct {
	Learners []Reach `json:"learners"`
}

// Reach is one learner's cluster: a kubeconfig and, optionally, its context.
type Reach struct {
	Name       string `json:"name"`
	Kubeconfig string `json:"kubeconfig"`
	Context    string `json:"context,omitempty"`
}

// ReadClassFile reads CLASS.yaml strictly. Relative kubeconfig paths are
// relative to the file. Every kubeconfig must exist: a missing one is an
// error naming the learner, the file and the fix, before anything is
// graded.
func ReadClassFile(path string) (*ClassFile, error) {
	data, err := safefs.ReadFile(path, kube.MaxKubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--live %s: %w", path, err)
	}
	var cf ClassFile
	if err := yaml.UnmarshalStrict(data, &cf); err != nil {
		return nil, i18n.NewError("class.live.not_class_file", i18n.Args{"Path": path, "Err": err.Error()})
	}
	if len(cf.Learners) == 0 {
		return nil, i18n.NewError("class.live.no_learner", i18n.Args{"Path": path})
	}
	var errs []error
	seen := map[string]bool{}
	for i := range cf.Learners {
		r := &cf.Learners[i]
		switch {
		case r.Name == "":
			errs = append(errs, i18n.NewError("class.live.no_name", i18n.Args{"Path": path, "N": i + 1}))
			continue
		case submission.CheckName(r.Name) != nil:
			errs = append(errs, i18n.NewError("class.live.bad_name", i18n.Args{"Path": path, "N": i + 1, "Err": fmt.Sprint(submission.CheckName(r.Name))}))
			continue
		case seen[r.Name]:
			errs = append(errs, i18n.NewError("class.live.twice", i18n.Args{"Path": path, "Name": strconv.Quote(r.Name)}))
			continue
		case r.Kubeconfig == "":
			errs = append(errs, i18n.NewError("class.live.no_kubeconfig", i18n.Args{"Path": path, "Name": strconv.Quote(r.Name)}))
			continue
		}
		seen[r.Name] = true
		if !filepath.IsAbs(r.Kubeconfig) {
			r.Kubeconfig = filepath.Join(filepath.Dir(path), r.Kubeconfig)
		}
		if _, err := os.Stat(r.Kubeconfig); err != nil {
			errs = append(errs, i18n.NewError("class.live.bad_kubeconfig", i18n.Args{"Path": path, "Name": strconv.Quote(r.Name),
				"Kubeconfig": r.Kubeconfig, "Err": fmt.Sprint(errors.Unwrap(err))}))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &cf, nil
}

// LiveResult is one learner graded live.
type LiveResult struct {
	// Graded is GradedLive or GradedUnreachable; Detail says why.
	Graded, Detail string
	Report         *judge.Report
	// Facts are the learner's cluster as live grading read it (nil when
	// it was not reached): whose objects a shared uid names.
	Facts *judge.Facts
	Took  time.Duration
}

// LiveOptions tune GradeLive.
type LiveOptions struct {
	Parallel int
	// Timeout bounds each learner's grading; ProbeTimeout each wait on a
	// learner's controller.
	Timeout, ProbeTimeout time.Duration
	// Progress is told when each learner starts and ends (one line each
	// at the end); it is called from several goroutines, one at a time.
	Progress func(name string, r *LiveResult)
}

// GradeLive grades, against their own clusters, the learners cf names
// who have a submission, at most Parallel at once. Every learner it
// returns a result for was to be graded live: Grade credits only those
// graded GradedLive. A cluster that cannot
// be reached, or a learner who takes longer than Timeout, is that
// learner's result; the others go on. When ctx ends (Ctrl-C), every
// learner's probes are removed before GradeLive returns, and it returns
// ctx's error.
func GradeLive(ctx context.Context, cf *ClassFile, subs []*submission.Submission, opts LiveOptions) (map[string]*LiveResult, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = 4
	}
	by := map[string]*submission.Submission{}
	twice := map[string]bool{}
	for _, s := range subs {
		twice[s.Learner] = by[s.Learner] != nil
		by[s.Learner] = s
	}
	out := map[string]*LiveResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, opts.Parallel)
	for _, r := range cf.Learners {
		s := by[r.Name]
		switch {
		case s == nil:
			continue // missing: nothing to grade live
		case twice[r.Name]:
			// Two files claim the learner (flagged duplicate): neither is
			// graded live, and neither's own score is credited, or sending
			// a second file would be a way around live grading.
			out[r.Name] = &LiveResult{Graded: GradedOffline, Detail: i18n.T("class.two_files", i18n.Args{"Name": r.Name})}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-slots }()
			res := gradeOne(ctx, r, s, opts)
			mu.Lock()
			defer mu.Unlock()
			out[r.Name] = res
			if opts.Progress != nil {
				opts.Progress(r.Name, res)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", i18n.T("class.live.interrupted"), err)
	}
	return out, nil
}

// gradeOne grades one learner live, within opts.Timeout.
func gradeOne(ctx context.Context, r Reach, s *submission.Submission, opts LiveOptions) *LiveResult {
	start := time.Now()
	res := func(graded, detail string, rep *judge.Report) *LiveResult {
		return &LiveResult{Graded: graded, Detail: detail, Report: rep, Took: time.Since(start)}
	}
	// The learner's kubeconfig is data: no command, no local file, no
	// proxy, no other user (kube.LearnerTarget), and every response read
	// through a size limit.
	t, err := kube.LearnerTarget(r.Name, r.Kubeconfig, r.Context)
	if err != nil {
		return res(GradedUnreachable, err.Error(), nil)
	}
	// Short requests: an unreachable cluster must cost seconds, not the
	// client's default minutes.
	t.Config.Timeout = 15 * time.Second
	clients, err := kube.NewClients(t)
	if err != nil {
		return res(GradedUnreachable, err.Error(), nil)
	}
	dir, err := os.MkdirTemp("", "cnpa-live-")
	if err != nil {
		return res(GradedUnreachable, err.Error(), nil)
	}
	defer os.RemoveAll(dir)
	if err := s.Materialize(course.Lab(), dir, filepath.Join(dir, lab.OwnDir)); err != nil {
		return res(GradedUnreachable, err.Error(), nil)
	}
	env := &labenv.Env{Dir: dir, Target: t, Clients: clients, Engine: s.Facts.Engine}
	lctx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	rep, facts, err := check.Run(lctx, env, check.Options{Steps: course.Checker(), ProbeTimeout: opts.ProbeTimeout, Reported: s.Facts})
	var unreachable *check.UnreachableError
	switch {
	case err == nil:
		r := res(GradedLive, "", rep)
		r.Facts = facts
		return r
	case ctx.Err() == nil && lctx.Err() != nil:
		return res(GradedUnreachable, i18n.T("class.live.timed_out", i18n.Args{"Timeout": opts.Timeout.String()}), nil)
	case errors.As(err, &unreachable):
		return res(GradedUnreachable, unreachable.Error(), nil)
	}
	return res(GradedUnreachable, err.Error(), nil)
}
