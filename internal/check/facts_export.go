package check

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Facts is what the grader read of the cluster and the machine before it
// judged the evidence, in a form that can be written down: `cnpa submit`
// keeps it in the submission, so that `cnpa class grade` can judge the
// evidence again against the same moment (Rejudge), and take from it what
// only the VM can see when it grades live (RunRemote). Nothing in it is
// secret: the lab's objects without their managedFields, the service's
// state and its unit file (which names paths, never a credential).
type Facts struct {
	CRD       *unstructured.Unstructured `json:"crd"`
	Alpha     *teamspace.TeamSpace       `json:"alpha"`
	TeamAlpha *corev1.Namespace          `json:"team_alpha"`
	Quota     *corev1.ResourceQuota      `json:"quota"`
	Beta      *teamspace.TeamSpace       `json:"beta"`
	TeamBeta  *corev1.Namespace          `json:"team_beta"`
	Service   service.Status             `json:"service"`
	// Unit is the unit file's content; UnitError why it could not be read.
	Unit      string `json:"unit,omitempty"`
	UnitError string `json:"unit_error,omitempty"`
	// OtherDir is the evidence dir the installed unit serves when it is
	// not this lab's (see facts.otherDir).
	OtherDir string `json:"other_dir,omitempty"`
	// Dir is the evidence dir on the VM, Engine the lab's engine.
	Dir    string `json:"dir"`
	Engine string `json:"engine"`
}

// export is f as Facts, without managedFields: who wrote which field is
// noise in a submission, and no check reads it.
func (f *facts) export() *Facts {
	out := &Facts{Service: f.service, Unit: string(f.unit), UnitError: f.unitErr, OtherDir: f.otherDir, Dir: f.dir, Engine: f.engine}
	if f.crd != nil {
		out.CRD = f.crd.DeepCopy()
		out.CRD.SetManagedFields(nil)
	}
	if f.alpha != nil {
		a := *f.alpha
		a.ManagedFields = nil
		out.Alpha = &a
	}
	if f.beta != nil {
		b := *f.beta
		b.ManagedFields = nil
		out.Beta = &b
	}
	if f.teamAlpha != nil {
		out.TeamAlpha = f.teamAlpha.DeepCopy()
		out.TeamAlpha.ManagedFields = nil
	}
	if f.teamBeta != nil {
		out.TeamBeta = f.teamBeta.DeepCopy()
		out.TeamBeta.ManagedFields = nil
	}
	if f.quota != nil {
		out.Quota = f.quota.DeepCopy()
		out.Quota.ManagedFields = nil
	}
	return out
}

// facts is F as the checks read it.
func (F *Facts) facts() *facts {
	f := &facts{crd: F.CRD, alpha: F.Alpha, teamAlpha: F.TeamAlpha, quota: F.Quota, beta: F.Beta, teamBeta: F.TeamBeta,
		service: F.Service, unitErr: F.UnitError, otherDir: F.OtherDir, dir: F.Dir, engine: F.Engine}
	if F.UnitError == "" {
		f.unit = []byte(F.Unit)
	}
	return f
}

// Rejudge judges the evidence in dir again against facts recorded by an
// earlier run: every check of the files and of the cluster as it was then.
// The probes (the reruns of reconcile.sh, the temporary TeamSpaces) are
// not in it: they need the cluster and the VM, and only their recorded
// result is known.
func Rejudge(dir string, facts *Facts) *Report {
	rep := &Report{Dir: dir}
	rep.finish(0, evaluate(readEvidence(dir), facts.facts()))
	return rep
}

// ProbeIDs are the checks Run makes with live probes rather than from the
// evidence and the facts: what Rejudge cannot judge again.
var ProbeIDs = []string{
	"step3.script_runs", "step3.rerun_writes_nothing", "step3.foreign_namespace_left_alone",
	"step4.new_teamspace_converges", "step6.finalizer_added_keeps_foreign", "step6.delete_archives",
}

// VMIDs are the checks only the learner's VM can judge: the unit file and
// the service manager's view of the service. Rejudge judges them again
// from the recorded facts; RunRemote takes them from the submission.
var VMIDs = []string{"step4.unit_file", "step4.restart_always", "step4.service_enabled", "step4.service_active"}
