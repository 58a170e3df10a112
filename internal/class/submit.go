package class

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/doctor"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/timeline"
)

// Submit grades the lab in env as `cnpa check` does and makes the
// learner's submission of it. Phases:
//  1. the cluster's identity: kube-system's uid, the server's version, its
//     datastore;
//  2. check.Run, keeping the facts the evidence was judged against;
//  3. the evidence files and timelines, read verbatim after the run, and
//     every check with its diagnosis.
func Submit(ctx context.Context, env *labenv.Env, learner, version string, opts check.Options) (*submission.Content, *check.Report, error) {
	cl, err := Identity(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	var facts *check.Facts
	opts.OnFacts = func(f *check.Facts) { facts = f }
	rep, err := check.Run(ctx, env, opts)
	if err != nil {
		return nil, nil, err
	}
	c := &submission.Content{Learner: learner, CnpaVersion: version, SubmittedAt: time.Now().UTC(), Cluster: cl,
		Passed: rep.Passed, Failed: rep.Failed, Skipped: rep.Skipped, Notes: rep.Notes, Facts: facts,
		Diagnosis: check.LabDiagnosis(rep.Checks, facts)}
	for _, ch := range rep.Checks {
		c.Checks = append(c.Checks, submission.Check{Check: ch, Diagnosis: check.Diagnose(ch, facts)})
	}
	if err := c.ReadFiles(env.Dir, filepath.Join(env.Dir, timeline.OwnDir)); err != nil {
		return nil, nil, err
	}
	return c, rep, nil
}

// Identity is which cluster env reaches: two learners whose submissions
// name one kube-system uid did the lab on one cluster.
func Identity(ctx context.Context, env *labenv.Env) (submission.Cluster, error) {
	v, err := env.Clients.Kube.Discovery().ServerVersion()
	if err != nil {
		return submission.Cluster{}, &check.UnreachableError{Err: fmt.Errorf("%s (kubeconfig %s): %w", env.Target.Server, env.Target.Path, err)}
	}
	ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return submission.Cluster{}, fmt.Errorf("read namespace kube-system, the cluster's identity: %w", err)
	}
	return submission.Cluster{KubeSystemUID: string(ns.UID), ServerVersion: v.GitVersion,
		Datastore: doctor.Datastore(ctx, env.Clients.Kube), Server: env.Target.Server}, nil
}
