package class

import (
	"encoding/json"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/submission"
)

// This file is the class's one door to the lab's rules: judging evidence
// again (judge.Judge, which applies the rules of the lab), and which
// evidence keys name which object. When the rules move, only this file
// follows.

// rejudge judges the evidence materialized in dir again, against the
// facts the learner's own run recorded: every check of the files and of
// the cluster as it was then. The probes are not in it: they need the
// cluster and the VM, and only their recorded result is known.
func rejudge(dir string, facts *judge.Facts) *judge.Report {
	return course.Grader().Judge(course.Lab().Read(dir), facts)
}

// The objects whose uids the evidence records. A uid is made by the API
// server when the object is created, so two learners' evidence holding
// one is a copy.
const (
	objAlpha = "alpha"
	objQuota = "quota"
	objBeta  = "beta"
)

// uidKeys are the evidence keys that hold an object's uid, by file.
var uidKeys = []struct{ file, key, object string }{
	{lab.BeforeFile, "uid", objAlpha},
	{lab.GenerationFile, "uid", objAlpha},
	{lab.ReconcileFile, "namespace_owner_uid", objAlpha},
	{lab.ReconcileFile, "quota_uid", objQuota},
	{lab.DriftFile, "deleted_uid", objQuota},
	{lab.DriftFile, "restored_uid", objQuota},
	{lab.CleanupFile, "uid", objBeta},
	{lab.BetaArchive, "uid", objBeta},
	{lab.ReportFile, "archived", objBeta},
}

// objectUIDs are the uids a submission's evidence names, each with the
// object it names. Files that do not parse name none: their own checks
// fail.
func objectUIDs(c *submission.Content) map[string]string {
	out := map[string]string{}
	for _, k := range uidKeys {
		data, ok := c.File(k.file)
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if uid, _ := m[k.key].(string); uid != "" {
			out[uid] = k.object
		}
	}
	return out
}

// ownUIDs are the uids of the objects a cluster holds, as f saw them:
// live, whose evidence a shared uid really is.
func ownUIDs(f *judge.Facts) map[string]bool {
	out := map[string]bool{}
	if f == nil {
		return out
	}
	if f.Alpha != nil {
		out[string(f.Alpha.UID)] = true
	}
	if f.Quota != nil {
		out[string(f.Quota.UID)] = true
	}
	return out
}
