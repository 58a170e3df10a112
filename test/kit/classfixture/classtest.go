// Package classfixture makes synthetic submissions of a correct lab run, for
// the class's unit tests and the bench's 1,000 learners: the evidence a
// correct run writes, the facts of the cluster it leaves, and the checks a
// real `cnpa submit` records for them, with uids of the learner's own.
package classfixture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/teamspace"
)

// uid is learner i's uid of object n: unique across learners and objects.
func uid(i, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, n) }

// Version is the cnpa version the synthetic submissions claim.
const Version = "test"

// Good is a correct run's submission for learner name, number i.
func Good(name string, i int) (*submission.Content, error) {
	alpha, q1, q2, beta := uid(i, 1), uid(i, 2), uid(i, 3), uid(i, 4)
	files := map[string]string{
		"before.json":       fmt.Sprintf(`{"uid": %q, "namespace_exists": false}`, alpha),
		"generation.json":   fmt.Sprintf(`{"uid": %q, "gen_initial": 1, "gen_after_label": 1, "gen_after_spec": 2, "status_via_main": null}`, alpha),
		"reconcile.json":    fmt.Sprintf(`{"quota_uid": %q, "namespace_owner_uid": %q, "second_pass_rv_changed": false}`, q1, alpha),
		"drift.json":        fmt.Sprintf(`{"deleted_uid": %q, "restored_uid": %q, "restore_seconds": 4, "edited_to": 99, "reverted_to": 6}`, q1, q2),
		"cleanup.json":      fmt.Sprintf(`{"uid": %q, "blocked_seen": true, "namespace_gone": true}`, beta),
		"catchup.json":      `{"generation": 3, "observed_while_stopped": 2, "quota_pods_while_stopped": "6", "observed_after_start": 3, "quota_pods_after_start": "8"}`,
		"report.json":       fmt.Sprintf(`{"crd_alone_created_namespace": false, "status_bumps_generation": false, "restore_seconds": 4, "finalizer": "platform.labhub.io/cleanup", "archived": %q, "generations_behind_while_stopped": 1, "trigger": "level"}`, beta),
		"archive/beta.json": fmt.Sprintf(`{"name":"beta","uid":%q,"pods":2}`, beta),
		"crd.yaml":          string(assets.CRD),
	}
	facts, err := goodFacts(alpha, q2)
	if err != nil {
		return nil, err
	}
	c := &submission.Content{Learner: name, CnpaVersion: Version, SubmittedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Cluster:  submission.Cluster{KubeSystemUID: uid(i, 0), ServerVersion: "v1.37.2", Datastore: "etcd", Server: "https://127.0.0.1:6443"},
		Evidence: files, Timelines: map[string]string{}, Facts: facts}
	return c, Record(c)
}

// Record sets c's checks to what a real run records for its evidence and
// facts: the checks judged again, and the probes passing.
func Record(c *submission.Content) error {
	dir, err := os.MkdirTemp("", "classtest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := c.Materialize(course.Steps.Lab(), dir, filepath.Join(dir, ".cnpa")); err != nil {
		return err
	}
	rep := course.Steps.Grader().Judge(course.Steps.Lab().Read(dir), c.Facts)
	for _, id := range course.Steps.Grader().ProbeIDs() {
		rep.Checks = append(rep.Checks, judge.Check{ID: id, Step: int(id[4] - '0'), Title: id, Status: judge.Pass, Expected: "as the lab asks", Actual: "as the lab asks"})
	}
	c.Checks = nil
	c.Passed, c.Failed, c.Skipped, c.Notes = 0, 0, 0, 0
	for _, ch := range rep.Checks {
		c.Checks = append(c.Checks, ch)
		switch ch.Status {
		case judge.Pass:
			c.Passed++
		case judge.Fail:
			c.Failed++
		case judge.Skip:
			c.Skipped++
		case judge.Note:
			c.Notes++
		}
	}
	c.Diagnosis = judge.LabDiagnosis(c.Checks, c.Facts)
	return nil
}

// goodFacts is the cluster a correct run leaves: the shipped CRD, alpha at
// generation 3 in sync with its quota, beta gone, the service running.
func goodFacts(alphaUID, quotaUID string) (*judge.Facts, error) {
	var crd map[string]any
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(assets.CRD), 4096).Decode(&crd); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(crd)
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Established", "status": "True"}}, "status", "conditions")
	alpha := &teamspace.TeamSpace{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha", UID: types.UID(alphaUID), Generation: 3, Finalizers: []string{teamspace.Finalizer}},
		Spec:       teamspace.Spec{Pods: 8, CPU: "1"},
		Status:     teamspace.Status{ObservedGeneration: 3, Namespace: "team-alpha"},
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha",
		Labels: map[string]string{teamspace.OwnerLabel: "alpha"}, OwnerReferences: []metav1.OwnerReference{alpha.OwnerReference()}}}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: teamspace.QuotaName, Namespace: "team-alpha", UID: types.UID(quotaUID)},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("8"), corev1.ResourceRequestsCPU: resource.MustParse("1")}}}
	return &judge.Facts{CRD: u, Alpha: alpha, TeamAlpha: ns, Quota: q, Dir: "/root/cnpa-op", Engine: "go",
		Service: service.Status{Manager: "systemd", UnitPath: "/etc/systemd/system/cnpa-op.service", Installed: true, Enabled: true, Active: true, MainPID: 42},
		Unit:    "[Service]\nExecStart=/bin/bash -c 'while true; do /root/cnpa-op/reconcile.sh; sleep 3; done'\nRestart=always\n"}, nil
}

// Write writes c as a submission file in dir, named after its learner.
func Write(dir string, c *submission.Content) (string, error) {
	p := filepath.Join(dir, c.Learner+".json")
	return p, submission.Write(p, c)
}
