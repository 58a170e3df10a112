package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/ssaconflict"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// fieldManager names the learner's own hand: the steps act as the person
// at the keyboard, not as the controller.
const fieldManager = "cnpa-lab"

// appliedKinds are the kinds the lab applies: the CRD and TeamSpaces.
var appliedKinds = map[string]schema.GroupVersionResource{
	"CustomResourceDefinition": teamspace.CRDGVR,
	teamspace.Kind:             teamspace.GVR,
}

// apply server-side-applies every object of a YAML stream, as the
// learner's hand (fieldManager). It returns each object as kubectl names
// it in its answer (teamspace.platform.labhub.io/alpha).
func apply(ctx context.Context, env *Lab, manifest []byte) (names []string, err error) {
	objs, err := kube.Objects(appliedKinds, manifest)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if err := o.Apply(ctx, env.Clients.Dynamic, fieldManager); err != nil {
			return names, fmt.Errorf("apply %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		names = append(names, o.KubectlName())
	}
	return names, nil
}

// needAlpha returns alpha or says which step creates it.
func needAlpha(ctx context.Context, env *Lab, step int) (*teamspace.TeamSpace, error) {
	if err := needCRD(ctx, env, step); err != nil {
		return nil, err
	}
	a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, errors.New(say("steps.need.alpha", "N", step))
	}
	return a, nil
}

func needCRD(ctx context.Context, env *Lab, step int) error {
	_, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return errors.New(say("steps.need.crd", "N", step, "CRD", teamspace.CRDName))
	}
	return err
}

func getQuota(ctx context.Context, env *Lab, ns string) (*corev1.ResourceQuota, error) {
	q, err := env.Clients.Kube.CoreV1().ResourceQuotas(ns).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return q, err
}

func namespaceExists(ctx context.Context, env *Lab, name string) (bool, error) {
	ns, err := getNamespace(ctx, env, name)
	return ns != nil, err
}

// getNamespace is the namespace, or nil when it does not exist.
func getNamespace(ctx context.Context, env *Lab, name string) (*corev1.Namespace, error) {
	ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return ns, err
}

// waitFor polls cond every 100 ms until it is done, showing live what is
// awaited, why it takes time (why; "" when it should not) and the elapsed
// time. On timeout the error carries the last observed values cond
// reported, never a bare "timed out".
func waitFor(ctx context.Context, env *Lab, what, why string, cond poll.Observe) (time.Duration, error) {
	start := time.Now()
	w := startWait(env, what, why)
	_, err := poll.Until(ctx, 100*time.Millisecond, env.Timeout, cond)
	var timeout *poll.TimeoutError
	switch {
	case err != nil && ctx.Err() != nil:
		// Ctrl-C, not the deadline: say so, never "gave up after 5s".
		w.Done(say("steps.outcome.interrupted"))
		return time.Since(start), fmt.Errorf("%s: %w", say("steps.wait.while", "What", what), ctx.Err())
	case errors.As(err, &timeout):
		w.Done(say("steps.outcome.gave_up"))
		return time.Since(start), errors.New(say("steps.wait.gave_up", "What", what, "Took", time.Since(start).Round(time.Second),
			"Last", orNothing(timeout.Last)) + controllerOutput(ctx, env))
	case err != nil:
		w.Done(say("steps.outcome.failed"))
		return time.Since(start), fmt.Errorf("%s: %w", say("steps.wait.failed", "What", what), err)
	}
	return w.Done(say("steps.outcome.done")), nil
}

// startWait shows a live wait on the progress printer (stderr).
func startWait(env *Lab, what, why string) *ui.Wait {
	p := env.Progress
	if p == nil {
		p = ui.New(io.Discard, true)
	}
	if why != "" {
		why = say(why)
	}
	return p.Wait(what, why)
}

func orNothing(last string) string {
	if last == "" {
		return say("steps.wait.nothing_yet")
	}
	return last
}

// runScript runs the installed reconcile.sh once as the service runs it
// (under its own identity once step 4 has made it); a failure carries what
// the script printed and whom it ran as.
func runScript(ctx context.Context, env *Lab, sh shell, extraEnv ...string) (string, error) {
	run, err := env.PrepareScriptRun(ctx, extraEnv...)
	if err != nil {
		return "", err
	}
	// The command shown is the command run: a learner replays it.
	sh.cmd(run.Shown)
	out, err := run.Run()
	if err != nil {
		failed := say("steps.script_failed", "Script", env.ScriptPath(), "As", run.As, "Err", err)
		if c := ssaconflict.Find(out); c != nil {
			// The script's own output shows its apply refused: say so
			// before the output.
			failed += "\n" + conflictLines(c)
		}
		return out, fmt.Errorf("%s\n%s", failed, strings.TrimSpace(out))
	}
	return out, nil
}

var getOpts = metav1.GetOptions{}
