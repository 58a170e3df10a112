// Package submit is `cnpa submit`, the learner's command: it grades the
// lab as `cnpa check` does (package check) and makes the submission of it
// (package submission) with the cluster's identity. It lives apart from
// the instructor's package class, and apart from check, which stays the
// grader's hands and never links the file format or the cluster's
// identity (package doctor).
package submit

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/kube"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/doctor"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/labfile"
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
	return IdentityOf(ctx, env.Clients.Kube, env.Target.Server, env.Target.Path)
}

// IdentityOf is Identity of the cluster k reaches, at server as the
// kubeconfig at path names it.
func IdentityOf(ctx context.Context, k kube.Typed, server, path string) (submission.Cluster, error) {
	v, err := k.Discovery().ServerVersion()
	if err != nil {
		return submission.Cluster{}, &check.UnreachableError{Err: fmt.Errorf("%s (kubeconfig %s): %w", server, path, err)}
	}
	ns, err := k.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return submission.Cluster{}, fmt.Errorf("read namespace kube-system, the cluster's identity: %w", err)
	}
	return submission.Cluster{KubeSystemUID: string(ns.UID), ServerVersion: v.GitVersion,
		Datastore: doctor.Datastore(ctx, k), Server: server}, nil
}

// FileLab makes the submission of a lab kept as a file, graded as
// `cnpa --lab NAME check` grades it (rep, from Engine.Grade over the
// evidence dir dir): the lab's name and content hash, the evidence files
// its steps name, every check as graded (worded in lang), and the facts
// the grading read, for `cnpa class grade` to grade again offline.
func FileLab(l *labfile.Lab, hash string, rep *labfile.Report, lang i18n.Lang, dir, learner, version string, cl submission.Cluster) (*submission.Content, error) {
	c := &submission.Content{Learner: learner, CnpaVersion: version, SubmittedAt: time.Now().UTC(), Cluster: cl,
		Lab: &submission.LabRef{Name: l.Metadata.Name, SHA256: hash}, Checks: LabChecks(l, lang, rep)}
	for _, ch := range c.Checks {
		switch ch.Status {
		case judge.Pass:
			c.Passed++
		case judge.Fail:
			c.Failed++
		default:
			c.Skipped++
		}
	}
	facts, err := json.Marshal(rep.Facts)
	if err != nil {
		return nil, err
	}
	c.LabFacts = facts
	if err := c.ReadEvidence(dir, EvidenceFiles(l)); err != nil {
		return nil, err
	}
	return c, nil
}

// EvidenceFiles are the files a file lab's steps write, in step order.
func EvidenceFiles(l *labfile.Lab) []string {
	var out []string
	for _, s := range l.Steps {
		out = append(out, s.Evidence.File)
	}
	return out
}

// LabChecks are a file lab's results as the gradebook's checks: the
// check's id, its step's number, its title in lang, its status, what was
// found and expected (or why it was not checked), and the mistake it
// shows as its name in lang.
func LabChecks(l *labfile.Lab, lang i18n.Lang, rep *labfile.Report) []judge.Check {
	var out []judge.Check
	for _, s := range rep.Steps {
		for _, r := range s.Checks {
			c := judge.Check{ID: r.Check, Step: l.StepIndex(s.Step) + 1, Title: l.Word(lang, r.Check),
				Status: judge.Status(r.Status), Expected: r.Want, Actual: r.Got}
			if r.Reason != "" {
				c.Actual = lang.T(r.Reason, r.Args)
			}
			if r.Mistake != "" {
				c.Hint = l.Word(lang, r.Mistake)
			}
			out = append(out, c)
		}
	}
	return out
}
