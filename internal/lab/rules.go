package lab

import "github.com/labhub/cnpa/internal/i18n"

// Is is the rule "exactly this value".
func Is(want any) func(any, *Inputs) Verdict {
	return func(v any, _ *Inputs) Verdict { return Same(want, v) }
}

// AlphaUID is the rule "the live alpha's uid". Without alpha nothing can
// match it, and only a new run helps; when alpha could not be asked for at
// all, the rule cannot decide.
func AlphaUID(v any, in *Inputs) Verdict {
	if in.AlphaUnknown != "" {
		return Skipped(in.AlphaUnknown)
	}
	if in.Alpha == nil {
		h := StartOver
		out := HoldsExpected(false, i18n.T("check.alpha_missing"))
		out.Hint = &h
		return out
	}
	r := Same(string(in.Alpha.UID), v)
	h := Stale
	r.Hint = &h
	return r
}
