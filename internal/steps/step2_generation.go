package steps

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

var step2 = &Step{
	Number: 2, Title: "What bumps metadata.generation", File: evidence.GenerationFile,
	Teaches: "Only a spec change bumps generation; a label moves resourceVersion only. With the\n" +
		"status subresource on, status sent to the main endpoint is dropped without an error.",
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		var kept evidence.Generation
		if r, ok, err := keep(env, s, &kept); ok || err != nil {
			return r, err
		}
		alpha, err := needAlpha(ctx, env, 2)
		if err != nil {
			return nil, err
		}
		if alpha.Generation != 1 {
			return nil, fmt.Errorf("alpha's generation is %d, not 1: step 2 needs the alpha of step 1 untouched; start over with `cnpa reset --yes`", alpha.Generation)
		}
		r := &Result{Step: 2, Title: s.Title}
		res := env.Clients.Dynamic.Resource(teamspace.GVR)
		patch := func(body string) (int64, string, json.RawMessage, error) {
			u, err := res.Patch(ctx, "alpha", types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: fieldManager})
			if err != nil {
				return 0, "", nil, fmt.Errorf("patch alpha with %s: %w", body, err)
			}
			status := json.RawMessage("null")
			if st, ok := u.Object["status"]; ok {
				status, _ = json.Marshal(st)
			}
			return u.GetGeneration(), u.GetResourceVersion(), status, nil
		}
		ev := evidence.Generation{UID: string(alpha.UID), GenInitial: alpha.Generation}
		var rvLabel, rvStatus string
		if ev.GenAfterLabel, rvLabel, _, err = patch(`{"metadata":{"labels":{"owner":"platform"}}}`); err != nil {
			return nil, err
		}
		if _, rvStatus, ev.StatusViaMain, err = patch(`{"status":{"observedGeneration":7}}`); err != nil {
			return nil, err
		}
		if rvStatus == rvLabel {
			r.note("server's answer to the status patch: unchanged object, resourceVersion still %s (kubectl prints `patched (no change)`)", rvStatus)
		} else {
			r.note("server's answer to the status patch: resourceVersion %s → %s", rvLabel, rvStatus)
		}
		if ev.GenAfterSpec, _, _, err = patch(`{"spec":{"pods":6}}`); err != nil {
			return nil, err
		}
		if r.File, err = evidence.Write(env.Dir, s.File, ev); err != nil {
			return nil, err
		}
		r.Evidence = ev
		if err := r.judge(env, s.File, ev, alpha); err != nil {
			return nil, err
		}
		return r, nil
	},
}
