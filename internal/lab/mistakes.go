package lab

import (
	"encoding/json"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Mistake is one classic mistake of a learner's controller, as a value: a
// verdict carries it (judge.Check.Diagnosis, the steps' diagnosis), so that
// telling which mistake a failure points to is a lookup, never a match on
// the words of a message. Name is a few words for counting it across a
// class ("7 learners: status sent to the main endpoint"); Advice, when it
// has one of its own, is what to do instead, worded once: the steps'
// diagnosis and the grader's hints put these words around what they
// observed, so that a learner reads the same advice for the same mistake
// wherever it is caught.
type Mistake struct {
	Name   string
	Advice string
}

// String is the mistake's name.
func (m Mistake) String() string { return m.Name }

// SayMistake is a mistake's name, as a gradebook and a submission keep it
// (English, the same in every language: an LMS and the CSV read it), in
// the chosen language for people: lab.mistake.<its words, with _>. A
// name this cnpa does not know (another version's) is said as it is.
func SayMistake(name string) string {
	// T says an id no catalog has as the id itself.
	if id := MistakeID(name); id != "" {
		if s := i18n.T(id); s != id {
			return s
		}
	}
	return name
}

// MistakeID is the catalog id of a mistake's name: lab.mistake. and its
// lowercase letters and digits, every run of others one _.
func MistakeID(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			gap = false
			continue
		}
		gap = true
	}
	if b.Len() == 0 {
		return ""
	}
	return "lab.mistake." + b.String()
}

// IsZero tells whether m names no mistake.
func (m Mistake) IsZero() bool { return m.Name == "" }

// MarshalJSON writes a mistake as its name: the form a submission and a
// report keep (the advice is this cnpa's, looked up again when read).
func (m Mistake) MarshalJSON() ([]byte, error) { return json.Marshal(m.Name) }

// UnmarshalJSON reads a mistake's name back into the mistake; a name this
// cnpa does not know (another version's) is kept as a name alone.
func (m *Mistake) UnmarshalJSON(data []byte) error {
	var name string
	if err := json.Unmarshal(data, &name); err != nil {
		return err
	}
	*m = MistakeNamed(name)
	return nil
}

// MistakeNamed is the mistake of that name; a name none has gives a
// mistake with that name and no advice.
func MistakeNamed(name string) Mistake {
	for _, m := range Mistakes {
		if m.Name == name {
			return m
		}
	}
	return Mistake{Name: name}
}

// The advice for the mistakes the lab text warns about, each worded once
// (in English; Say gives it in the learner's language).
const (
	// KeepOtherFinalizers is the advice against the finalizer patch that
	// overwrites the whole list, deleting other controllers' finalizers.
	KeepOtherFinalizers = "add " + teamspace.Finalizer + " to every TeamSpace without a deletionTimestamp, " +
		"keeping the other finalizers (merge it into the list; never overwrite the list)"
	// ArchiveThenRelease is the advice against letting a TeamSpace go
	// before its record is written, or taking other controllers'
	// finalizers with ours.
	ArchiveThenRelease = "for a TeamSpace with a deletionTimestamp, write archive/<name>.json first and then remove only " +
		teamspace.Finalizer
	// StatusViaSubresource is the advice against status patched to the
	// main endpoint: with a status subresource the server drops it and
	// prints only `patched (no change)`.
	StatusViaSubresource = "status sent to the main endpoint is dropped (`patched (no change)`); write it through the " +
		"status subresource, `kubectl patch teamspace <name> --subresource=status --type=merge -p '{\"status\":{...}}'`"
)

// The classic mistakes: LAB.md's warnings and the learner corpus's
// mistakes, then what one pass of a controller can leave out (the steps'
// diagnosis of a TeamSpace's gaps, teamspace.FindGaps).
var (
	MistakeStatusMain = Mistake{Name: "status sent to the main endpoint", Advice: StatusViaSubresource}
	MistakeNoOwner    = Mistake{Name: "namespace without an ownerReference to its TeamSpace"}
	MistakeQuotaSpec  = Mistake{Name: "quota not taken from the spec (hard-coded pods or spec.cpu ignored)",
		Advice: "hard.pods must be the TeamSpace's spec.pods and hard.requests.cpu its spec.cpu (default \"1\"), " +
			"nothing else: is one of them hard-coded, or spec.cpu ignored?"}
	MistakeWritesEachPass = Mistake{Name: "a pass writes although nothing changed"}
	MistakeFinalizerList  = Mistake{Name: "finalizer list overwritten: other controllers' finalizers lost", Advice: KeepOtherFinalizers}
	MistakeNoArchive      = Mistake{Name: "finalizer removed without the archive record", Advice: ArchiveThenRelease}
	MistakeEdge           = Mistake{Name: "edge-triggered: a deleted quota, or a change made while stopped, is missed"}
	MistakeNotRunning     = Mistake{Name: "controller not running"}
	MistakeStale          = Mistake{Name: "evidence does not describe this cluster (edited, copied or left from an earlier run)"}
	MistakeCRD            = Mistake{Name: "CRD not as step 1 of the lab asks"} // a name, kept as submissions keep it; never "LAB.md", which the learner does not have

	MistakeNoNamespace = Mistake{Name: "namespace not created",
		Advice: "reconcile.sh must create namespace team-<name> for every TeamSpace"}
	MistakeNoNamespaceLabel = Mistake{Name: "namespace not labelled",
		Advice: "the namespace needs the label " + teamspace.OwnerLabel + "=<name>"}
	MistakeNoQuota = Mistake{Name: "quota not created",
		Advice: "reconcile.sh must create ResourceQuota " + teamspace.QuotaName + " in team-<name>"}
	MistakeStaleStatus = Mistake{Name: "status not kept current",
		Advice: "status.observedGeneration must be the TeamSpace's current metadata.generation and status.namespace team-<name>"}
	MistakeNoFinalizer = Mistake{Name: "finalizer not added", Advice: "the lab text's step 6: " + KeepOtherFinalizers}

	// MistakeApplyConflict is a server-side apply without force: once
	// another field manager owns a field the apply sets (a hand edit, a
	// probe), the API server refuses every pass. Seen in the controller's
	// own output (package ssaconflict), it explains the failures it
	// causes better than what the cluster shows (a quota that is not the
	// spec), so it stands over the facts (judge.Diagnose).
	MistakeApplyConflict = Mistake{Name: "server-side apply without --force-conflicts: another manager's fields never taken back",
		Advice: "a controller must own the fields it sets: apply with --force-conflicts (client-go: ApplyOptions Force: true), " +
			"`kubectl apply --server-side --field-manager=<yours> --force-conflicts -f -`"}
)

// adviceIDs are the catalog's messages (lab.advice.*) for each English
// advice: the words a learner reads in the chosen language.
var adviceIDs = map[string]string{
	KeepOtherFinalizers:            "lab.advice.keep_other_finalizers",
	ArchiveThenRelease:             "lab.advice.archive_then_release",
	StatusViaSubresource:           "lab.advice.status_via_subresource",
	MistakeQuotaSpec.Advice:        "lab.advice.quota_spec",
	MistakeNoNamespace.Advice:      "lab.advice.no_namespace",
	MistakeNoNamespaceLabel.Advice: "lab.advice.no_namespace_label",
	MistakeNoQuota.Advice:          "lab.advice.no_quota",
	MistakeStaleStatus.Advice:      "lab.advice.stale_status",
	MistakeNoFinalizer.Advice:      "lab.advice.no_finalizer",
	MistakeApplyConflict.Advice:    "lab.advice.apply_conflict",
}

// Say is advice (a Mistake's Advice, or one of the advice constants
// above: KeepOtherFinalizers, ArchiveThenRelease, StatusViaSubresource)
// in the chosen language; other text is returned as it is. English is
// the advice itself (TestAdviceCatalog holds the English catalog to it).
func Say(advice string) string {
	id, ok := adviceIDs[advice]
	if !ok || i18n.Current() == i18n.English {
		return advice
	}
	return i18n.T(id)
}

// Advise is the mistake's advice in the chosen language ("" when it has
// none of its own).
func (m Mistake) Advise() string { return Say(m.Advice) }

// Mistakes lists every mistake, for reading one back by name.
var Mistakes = []Mistake{MistakeStatusMain, MistakeNoOwner, MistakeQuotaSpec, MistakeWritesEachPass, MistakeFinalizerList,
	MistakeNoArchive, MistakeEdge, MistakeNotRunning, MistakeStale, MistakeCRD,
	MistakeNoNamespace, MistakeNoNamespaceLabel, MistakeNoQuota, MistakeStaleStatus, MistakeNoFinalizer, MistakeApplyConflict}
