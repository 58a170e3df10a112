// Package submit is `cnpa submit`, the learner's command: it grades the
// lab as `cnpa check` does (package check) and makes the submission of it
// (package submission) with the cluster's identity. It lives apart from
// the instructor's package class, and apart from check, which stays the
// grader's hands and never links the file format or the cluster's
// identity (package doctor).
package submit

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/doctor"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/submission"
)

// Submit grades the lab in env as `cnpa check` does and makes the
// learner's submission of it. Phases:
//  1. the cluster's identity: kube-system's uid, the server's version, its
//     datastore;
//  2. check.Run, which returns the facts the evidence was judged against;
//  3. the evidence files and timelines, read verbatim after the run, and
//     every check with its diagnosis (judged so by check.Run).
func Submit(ctx context.Context, env *labenv.Env, learner, version string, opts check.Options) (*submission.Content, *judge.Report, error) {
	cl, err := Identity(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	rep, facts, err := check.Run(ctx, env, opts)
	if err != nil {
		return nil, nil, err
	}
	c := &submission.Content{Learner: learner, CnpaVersion: version, SubmittedAt: time.Now().UTC(), Cluster: cl,
		Passed: rep.Passed, Failed: rep.Failed, Skipped: rep.Skipped, Notes: rep.Notes, Facts: facts,
		Diagnosis: judge.LabDiagnosis(rep.Checks, facts), Checks: rep.Checks}
	if err := c.ReadFiles(opts.Steps.Grader().Lab(), env.Dir, filepath.Join(env.Dir, lab.OwnDir)); err != nil {
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
