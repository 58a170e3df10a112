package steps

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/labhub/cnpa/internal/lab"
)

// RunGeneration runs step 2 (course/step2 binds it to the step).
func RunGeneration(ctx context.Context, env *Lab, s *Step) (*Result, error) {
	var kept lab.GenerationRecord
	if r, ok, err := keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	alpha, err := needAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	if alpha.Generation != 1 {
		return nil, errors.New(say("steps.step2.not_untouched", "Generation", alpha.Generation))
	}
	r := &Result{Step: s.Number, Title: s.EnglishTitle()}
	sh := show(env)
	alphaObj := teamspaceObj("alpha")
	sh.readBack("uid", alphaObj, "{.metadata.uid}", alpha)
	sh.readBack("gen_initial", alphaObj, "{.metadata.generation}", alpha)
	ev := lab.GenerationRecord{UID: string(alpha.UID), GenInitial: alpha.Generation}
	labeled, err := sh.label(ctx, env, alphaObj, "owner", "platform")
	if err != nil {
		return nil, err
	}
	ev.GenAfterLabel = labeled.GetGeneration()
	rvLabel := labeled.GetResourceVersion()
	sh.readBack("gen_after_label", alphaObj, "{.metadata.generation}", labeled)
	// The status patch goes to the main endpoint on purpose: the
	// server's answer (the object unchanged) is the lesson.
	patched, err := sh.mergePatch(ctx, env, alphaObj, `{"status":{"observedGeneration":7}}`, rvLabel)
	if err != nil {
		return nil, err
	}
	ev.StatusViaMain = json.RawMessage("null")
	if st, ok := patched.Object["status"]; ok {
		ev.StatusViaMain, _ = json.Marshal(st)
	}
	sh.set("status_via_main", "$("+kubectl(append(append([]string{"get"}, alphaObj.args()...), "-o", "json")...)+" | jq -c '.status // null')", string(ev.StatusViaMain))
	if rvStatus := patched.GetResourceVersion(); rvStatus == rvLabel {
		r.noteUnshown(env, "%s", say("steps.step2.status_unchanged", "RV", rvStatus))
	} else {
		r.note("%s", say("steps.step2.status_moved", "From", rvLabel, "To", rvStatus))
	}
	spec, err := sh.mergePatch(ctx, env, alphaObj, `{"spec":{"pods":6}}`, patched.GetResourceVersion())
	if err != nil {
		return nil, err
	}
	ev.GenAfterSpec = spec.GetGeneration()
	sh.readBack("gen_after_spec", alphaObj, "{.metadata.generation}", spec)
	if r.File, err = sh.writeEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	r.Evidence = ev
	if err := r.judge(env.Steps.Lab().Read(env.Dir), s.File, ev, alpha); err != nil {
		return nil, err
	}
	return r, nil
}
