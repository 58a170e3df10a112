package step2

import (
	"context"
	"encoding/json"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Run drives step 2 against the live cluster and writes generation.json:
// a label, a status patch through the main endpoint and a spec change on
// an untouched alpha, its generation read after each.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	var kept lab.GenerationRecord
	if r, ok, err := steps.Keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	alpha, err := steps.NeedAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	if alpha.Generation != 1 {
		return nil, steps.SayError("steps.step2.not_untouched", "Generation", alpha.Generation)
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	sh := steps.Show(env)
	alphaObj := steps.TeamspaceObj("alpha")
	sh.ReadBack("uid", alphaObj, "{.metadata.uid}", alpha)
	sh.ReadBack("gen_initial", alphaObj, "{.metadata.generation}", alpha)
	ev := lab.GenerationRecord{UID: string(alpha.UID), GenInitial: alpha.Generation}
	labeled, err := sh.Label(ctx, env, alphaObj, "owner", "platform")
	if err != nil {
		return nil, err
	}
	ev.GenAfterLabel = labeled.GetGeneration()
	rvLabel := labeled.GetResourceVersion()
	sh.ReadBack("gen_after_label", alphaObj, "{.metadata.generation}", labeled)
	// The status patch goes to the main endpoint on purpose: the
	// server's answer (the object unchanged) is the lesson.
	patched, err := sh.MergePatch(ctx, env, alphaObj, `{"status":{"observedGeneration":7}}`, rvLabel)
	if err != nil {
		return nil, err
	}
	ev.StatusViaMain = json.RawMessage("null")
	if st, ok := patched.Object["status"]; ok {
		ev.StatusViaMain, _ = json.Marshal(st)
	}
	sh.Set("status_via_main", "$("+steps.Kubectl(append(append([]string{"get"}, alphaObj.Args()...), "-o", "json")...)+" | jq -c '.status // null')", string(ev.StatusViaMain))
	if rvStatus := patched.GetResourceVersion(); rvStatus == rvLabel {
		r.NoteUnshown(env, "%s", steps.Say("steps.step2.status_unchanged", "RV", rvStatus))
	} else {
		r.Note("%s", steps.Say("steps.step2.status_moved", "From", rvLabel, "To", rvStatus))
	}
	spec, err := sh.MergePatch(ctx, env, alphaObj, `{"spec":{"pods":6}}`, patched.GetResourceVersion())
	if err != nil {
		return nil, err
	}
	ev.GenAfterSpec = spec.GetGeneration()
	sh.ReadBack("gen_after_spec", alphaObj, "{.metadata.generation}", spec)
	if r.File, err = sh.WriteEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	r.Evidence = ev
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, ev, alpha); err != nil {
		return nil, err
	}
	return r, nil
}

// Again: step 2 bumps alpha's generation from 1, so it can run again only
// while alpha is there and still at generation 1.
func Again(alpha *teamspace.TeamSpace) bool { return alpha != nil && alpha.Generation == 1 }
