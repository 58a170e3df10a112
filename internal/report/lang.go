package report

import (
	"fmt"
	"html/template"

	"github.com/labhub/cnpa/internal/i18n"
)

// langFuncs give the page its words in the chosen language (package
// i18n): lang is <html lang>, t a message, th one whose catalog text
// holds markup (<code>), tn one with a count ("1 check passed", "2 checks
// passed"); the placeholders' values are escaped. Each is called as the
// page is written, so the catalog is read then, not when cnpa starts.
var langFuncs = template.FuncMap{
	"lang": func() string { return string(i18n.Current()) },
	"t":    trusted,
	"tn":   func(id string, n int) template.HTML { return template.HTML(i18n.N(id, n)) },
	"th":   trusted,
}

// trusted is message id as HTML: the catalogs are embedded and tested
// (TestCatalog), so their text is the page's own, written as it was in
// the template (an apostrophe stays one); only the values are escaped.
func trusted(id string, kv ...any) template.HTML {
	return template.HTML(i18n.T(id, args(kv)))
}

// args turns name, value pairs into a message's placeholders.
func args(kv []any) i18n.Args {
	a := i18n.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		// the values are the learner's or the cluster's: escaped
		a[fmt.Sprint(kv[i])] = template.HTMLEscapeString(fmt.Sprint(kv[i+1]))
	}
	return a
}
