package judge

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Facts is what the cluster and the machine showed, read once before the
// evidence is judged, so that every check compares against the same
// moment. A nil object means it did not exist.
//
// It is written down as it is: `cnpa submit` keeps it in the submission,
// so that `cnpa class grade` judges the evidence again against the same
// moment (Judge), and takes from it what only the VM can see when it
// grades live. Nothing in it is secret: the lab's objects without their
// managedFields (who wrote which field is noise, and no check reads it),
// the service's state and its unit file (which names paths, never a
// credential).
type Facts struct {
	CRD       *unstructured.Unstructured `json:"crd"`
	Alpha     *teamspace.TeamSpace       `json:"alpha"`
	TeamAlpha *corev1.Namespace          `json:"team_alpha"`
	// Quota is team-alpha/team-quota.
	Quota    *corev1.ResourceQuota `json:"quota"`
	Beta     *teamspace.TeamSpace  `json:"beta"`
	TeamBeta *corev1.Namespace     `json:"team_beta"`
	Service  lab.ServiceStatus     `json:"service"`
	// Unit is the unit file's content; UnitError why it could not be read.
	Unit      string `json:"unit,omitempty"`
	UnitError string `json:"unit_error,omitempty"`
	// OtherDir is the evidence dir the installed unit serves when it is
	// not this lab's: the unit path is one per machine, and another lab's
	// service is not this lab's ("" when it is ours or names none).
	OtherDir string `json:"other_dir,omitempty"`
	// Dir is the evidence dir on the learner's machine, Engine the lab's
	// engine, for the hints.
	Dir    string `json:"dir"`
	Engine string `json:"engine"`
	// FinalizerOn: the lab's controller handles the finalizer (step 6
	// turned it on), for a hint. Not kept in a submission.
	FinalizerOn bool `json:"-"`
	// Authors says who wrote the lab's files in Dir (lab.Authors), for the
	// hints: only on the learner's own machine, so not kept in a
	// submission, and never read from another machine's Dir.
	Authors map[string]string `json:"-"`
}

// Author is why file in Dir is the learner's ("" when cnpa wrote what it
// holds), and whether it is known to be there at all.
func (f *Facts) Author(file string) (why string, present bool) {
	why, present = f.Authors[file]
	return why, present
}

// Theirs tells whether file in Dir is the learner's: there, and not what
// cnpa wrote. A step refuses to overwrite such a file unless --force.
func (f *Facts) Theirs(file string) bool {
	why, present := f.Author(file)
	return present && why != ""
}
