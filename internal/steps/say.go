package steps

import (
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Say is message id of the catalog (the steps.* messages) in the chosen
// language, its placeholders given as name, value pairs:
// Say("steps.kept_yours", "Path", path, "Why", why).
// Exported for the runs: the steps.* messages are said the same way in
// each step's folder as here.
func Say(id string, kv ...any) string { return i18n.T(id, args(kv)) }

// SayError is the error of message id, its placeholders given as Say's:
// it carries the id and the values, and is worded when it is shown
// (i18n.NewError).
func SayError(id string, kv ...any) error { return i18n.NewError(id, args(kv)) }

// args are name, value pairs as the catalog's placeholders.
func args(kv []any) i18n.Args {
	a := i18n.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i].(string)] = kv[i+1]
	}
	return a
}

// para is s after first, wrapped to 80 columns with its further lines
// after rest, in a language whose catalog holds paragraphs (Japanese);
// English is written with its own breaks and printed as it is, first+s.
func para(first, rest, s string) string {
	if i18n.Current() == i18n.English {
		return first + s
	}
	return ui.Indent(first, rest, s, ui.Cols)
}

// OnOff words a state for a verdict line.
// Exported for the runs of steps 1 and 4.
func OnOff(on bool, yes, no string) string {
	if on {
		return yes
	}
	return no
}
