package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
)

//go:embed page.html.tmpl
var pageText string

// page is parsed once, on first use (parsed in init, it cost every cnpa
// command 2.3 ms); html/template escapes every value by its context
// (text, attribute, inside the SVG), so evidence a learner wrote by hand
// cannot break the page or run in it.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(langFuncs).Funcs(template.FuncMap{
		"f1": func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"utc": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"mark": func(s Status) string {
			switch s {
			case OK:
				return "✓"
			case Bad:
				return "✗"
			}
			return "–"
		},
		"checkMark": func(s judge.Status) string {
			switch s {
			case judge.Pass:
				return "✓"
			case judge.Fail:
				return "✗"
			case judge.Note:
				return "i"
			}
			return "–"
		},
		"stepWord": func(s Status) string {
			return i18n.T(map[Status]string{OK: "report.step.ok", Bad: "report.step.bad", Missing: "report.step.missing", Skipped: "report.step.skipped"}[s])
		},
		"add": func(a, b float64) float64 { return a + b },
	}).Parse(pageText))
})

// WriteBody renders p's body alone, for a page in the same style that
// embeds it (the class page embeds each learner's).
func WriteBody(w io.Writer, p *Page) error {
	return page().ExecuteTemplate(w, "body", p)
}

// Style is the page's style sheet, for a page in the same style.
func Style() template.CSS {
	var b strings.Builder
	if err := page().ExecuteTemplate(&b, "style", nil); err != nil {
		panic(err) // the template is embedded and takes no data: it cannot fail
	}
	return template.CSS(b.String())
}

// Write renders p as one self-contained HTML page.
func Write(w io.Writer, p *Page) error {
	return page().Execute(w, p)
}
