package step3

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// The foreign-namespace probe's two TeamSpaces share a random part and end
// in these suffixes, so that the witness sorts right after the foreign one:
// kubectl and the API list TeamSpaces by name, and a loop that serves them
// in that order has passed over the foreign one once it reaches the witness.
// Their random part starts with foreignMark, so that both sort after every
// other probe's (cnpa-check- and six hex digits): a pass that stops at the
// foreign one has served the other probes' TeamSpaces before it.
const (
	foreignSuffix = "-foreign"
	witnessSuffix = "-witness"
	foreignMark   = "z"
)

// ForeignNamespace looks at what LAB.md does not ask about: a
// namespace team-<name> that somebody else made before TeamSpace <name>.
// It runs beside the other probes, its TeamSpaces sorted after theirs,
// and its objects are gone when it returns. A witness TeamSpace made
// right after it tells when the controller has passed over it; the
// witness gets witnessWait to converge, and when it does not, the
// controller's log says whether the pass stops at the foreign one.
// Adopting the namespace is a note, never a failure.
func ForeignNamespace(ctx context.Context, r *check.Session) []lab.Verdict {
	// Sorted last: LAB.md does not ask about a namespace somebody else
	// made, and a controller that stops its pass there must cost no
	// other verdict. Step 4's probe runs beside this one, so how long it
	// took is seldom known yet: then the witness gets witnessWait's least.
	r.Note(i18n.T("check.progress.foreign"))
	took, _ := r.ConvergeOutcome()
	return []lab.Verdict{foreignNamespace(ctx, r, witnessWait(took, r.Timeout()))}
}

// foreignNamespace is ForeignNamespace's verdict.
func foreignNamespace(ctx context.Context, r *check.Session, witnessWait time.Duration) lab.Verdict {
	env, tmp := r.Env(), r.Temps()
	want := i18n.T("check.foreign.want")
	base := lab.TempName(lab.TempPrefix + foreignMark)
	name, witness := base+foreignSuffix, base+witnessSuffix
	nsName := teamspace.NamespaceName(name)
	tmp.RememberNamespace(nsName)
	defer func() {
		r.Phase(ctx, check.PhaseDelete)
		_ = tmp.Discard(ctx, name, witness)
		tmp.DeleteNamespace(ctx, nsName)
	}()
	// The grader's own failures here are notes too: the check is one.
	notAsked := func(got string) lab.Verdict {
		v := lab.Holds(false, want, got)
		v.Optional, v.Note = true, i18n.T("check.foreign.not_set_up")
		return v
	}
	if _, err := env.Clients.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: nsName, Labels: map[string]string{"owner": check.ForeignNamespaceOwner}}}, metav1.CreateOptions{FieldManager: check.FieldManager}); err != nil {
		return notAsked(i18n.T("check.foreign.create_failed", i18n.Args{"Name": nsName, "Err": err.Error()}))
	}
	ts, err := tmp.Create(ctx, name, 1, "", nil)
	if err != nil {
		return notAsked(err.Error())
	}
	if _, err := tmp.Create(ctx, witness, 1, "", nil); err != nil {
		return notAsked(err.Error())
	}
	// touched: the controller has written something of the witness's (a
	// finalizer, its namespace, its status), so its pass got past the
	// foreign TeamSpace.
	touched := false
	served := func(ctx context.Context) (bool, string) {
		live, ns, q, err := check.LiveState(ctx, env, witness)
		if err != nil || live == nil {
			return false, fmt.Sprint(check.OrGone(err))
		}
		touched = touched || ns != nil || len(live.Finalizers) > 0 || live.Status != (teamspace.Status{})
		p := check.Pending(live, ns, q, false)
		return p == "", p
	}
	reached, _ := check.Await(ctx, witnessWait, served)
	// Not served yet: a pass that stops at the foreign TeamSpace, or a
	// slow one that goes on (its refused writes take time too, and a
	// busy machine more). The log tells them apart: a pass that stops has
	// met an error about the foreign TeamSpace and never touches the
	// witness after it; until the log shows that error the pass has not
	// got there yet. A slow pass gets the rest of the probe's time, so
	// that the note names what it did there; one that stops costs at most
	// 10 s more.
	rest := max(r.Timeout()-witnessWait, 0)
	if !reached && !touched && check.LastErrorAbout(r.ServiceLog(ctx), name) != "" {
		start := time.Now()
		_, _ = check.Await(ctx, min(10*time.Second, rest), func(ctx context.Context) (bool, string) {
			done, seen := served(ctx)
			reached = reached || done
			return done || touched, seen
		})
		rest -= time.Since(start)
	}
	if !reached && (touched || check.LastErrorAbout(r.ServiceLog(ctx), name) == "") {
		reached, _ = check.Await(ctx, max(rest, 0), served)
	}
	v := judgeForeignNamespace(ctx, env, ts)
	var notes []string
	if v.Note != "" {
		notes = append(notes, v.Note)
	}
	if !reached {
		unserved := i18n.T("check.foreign.unserved", i18n.Args{"Witness": witness, "Name": name, "Wait": witnessWait.Round(time.Second).String()})
		if stop := r.StoppedPassAt(ctx, name, witness); stop != "" {
			unserved += ": " + stop
		}
		notes = append(notes, unserved)
	} else if line := check.LastErrorAbout(r.ServiceLog(ctx), name); line != "" {
		notes = append(notes, i18n.T("check.foreign.refused", i18n.Args{"Line": line}))
	}
	v.Note = strings.Join(notes, i18n.T("check.foreign.note_sep"))
	v.Optional = true
	return v
}

// judgeForeignNamespace: the namespace that existed before its TeamSpace
// should not be adopted. LAB.md does not ask about it, so what this finds is
// a note (the verdict's note says what adopting would do); cnpa's own
// engines refuse to adopt.
func judgeForeignNamespace(ctx context.Context, env *labenv.Env, ts *teamspace.TeamSpace) lab.Verdict {
	nsName := teamspace.NamespaceName(ts.Name)
	want := i18n.T("check.foreign.want_named", i18n.Args{"Name": ts.Name})
	ns, err := check.GetNamespace(ctx, env, nsName)
	switch {
	case err != nil:
		return lab.Holds(false, want, err.Error())
	case ns == nil:
		v := lab.Holds(false, want, i18n.T("check.foreign.ns_gone", i18n.Args{"Name": nsName}))
		v.Note = i18n.T("check.foreign.deleted_note")
		return v
	case teamspace.HasOwnerReference(ns.OwnerReferences, ts.UID):
		v := lab.Holds(false, want, i18n.T("check.foreign.adopted", i18n.Args{"Name": nsName, "Owner": check.ForeignNamespaceOwner, "TeamSpace": ts.Name}))
		v.Note = i18n.T("check.foreign.adopted_note")
		return v
	}
	return lab.Holds(true, want, i18n.T("check.foreign.got", i18n.Args{"Name": nsName, "Owners": len(ns.OwnerReferences), "Owner": ns.Labels["owner"]}))
}

// witnessWait is how long the foreign-namespace probe waits for its
// witness: three times what the controller took to serve step 4's probe,
// at least 20 s, at most the probe timeout. The witness comes after the
// foreign TeamSpace, whose refused or skipped writes make that pass longer
// than the one step 4's probe took: on a busy 2-core machine a bash loop
// whose pass goes on past the refusal served it after 10 s, and the note
// said "not served" instead of naming the refusal and its fix.
func witnessWait(converged, timeout time.Duration) time.Duration {
	return min(max(3*converged, 20*time.Second), timeout)
}
