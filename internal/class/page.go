package class

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/report"
)

//go:embed page.html.tmpl
var pageText string

// page is parsed on first use, not in every command's init (1.2 ms). It
// escapes every value by its context, as `cnpa report`'s does: a
// learner's name or evidence cannot break the class page or run in it.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("class").Funcs(template.FuncMap{
		"pct":  func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) },
		"w":    func(x float64) template.CSS { return template.CSS(fmt.Sprintf("width: %.1f%%", 100*x)) },
		"add1": func(i int) int { return i + 1 },
		// A diagnosis is kept as its English name (data-diagnosis, the
		// CSV) and read in the page's language.
		"mistake": lab.SayMistake,
		"frac": func(a, b int) float64 {
			if b == 0 {
				return 0
			}
			return float64(a) / float64(b)
		},
		"utc": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		// The page's words in the chosen language, as cnpa report's page has
		// them: lang is <html lang>, t a message (its values escaped), th one
		// whose catalog text holds markup, tn one with a count.
		"lang": func() string { return string(i18n.Current()) },
		"t":    message,
		"th":   message,
		"tn":   func(id string, n int) template.HTML { return template.HTML(i18n.N(id, n)) },
	}).Parse(pageText))
})

// message is message id as HTML: the catalogs are embedded and tested,
// so their text is the page's own; the values (name, value pairs) are the
// learners' or the cluster's, and escaped.
func message(id string, kv ...any) template.HTML {
	a := i18n.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		a[fmt.Sprint(kv[i])] = template.HTMLEscapeString(fmt.Sprint(kv[i+1]))
	}
	return template.HTML(i18n.T(id, a))
}

// classPage is what the class page shows.
type classPage struct {
	*Gradebook
	Style template.CSS
	Steps []int
	// Reports are each learner's own report, by learner, rendered.
	Reports map[string]template.HTML
	// Anchors are the ids of the learners' reports.
	Anchors map[string]string
	// Flagged counts the learners with a flag; AllPass those who pass
	// all eight steps.
	Flagged, AllPass, Missing int
	// MaxDiagnosis is the largest bar of the histogram.
	MaxDiagnosis int
}

// WriteHTML writes the class page: one self-contained page with the
// learner × step matrix, the pass rate per step, the histogram of
// diagnoses, the flags, and each learner's own report (as `cnpa report
// --html` makes it from the submission) one click away, in the page.
func WriteHTML(w io.Writer, gb *Gradebook) error {
	cp := &classPage{Gradebook: gb, Style: report.Style(), Reports: map[string]template.HTML{}, Anchors: map[string]string{}}
	for i := 1; i <= Steps; i++ {
		cp.Steps = append(cp.Steps, i)
	}
	for i, l := range gb.Learners {
		cp.Anchors[l.Name] = fmt.Sprintf("learner-%d", i+1)
		switch {
		case len(l.Flags) > 0:
			cp.Flagged++
		}
		if l.Graded == GradedMissing {
			cp.Missing++
			continue
		}
		if l.Graded == GradedUnreadable {
			continue // no evidence to show: the row and its flag say why
		}
		if l.FirstFailingStep == 0 {
			cp.AllPass++
		}
		body, err := learnerReport(l, cp.Anchors[l.Name]+"-", gb)
		if err != nil {
			return fmt.Errorf("%s: %w", i18n.T("class.report_of", i18n.Args{"Name": l.Name}), err)
		}
		cp.Reports[l.Name] = body
	}
	for _, d := range gb.Diagnoses {
		cp.MaxDiagnosis = max(cp.MaxDiagnosis, len(d.Learners))
	}
	return page().Execute(w, cp)
}

// learnerReport is the learner's own report page's body, made by package
// report from the submission unpacked, with the checks as graded here.
func learnerReport(l *Learner, prefix string, gb *Gradebook) (template.HTML, error) {
	dir, err := os.MkdirTemp("", "cnpa-class-report-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	s := l.sub
	if err := s.Materialize(course.Lab(), dir, filepath.Join(dir, lab.OwnDir)); err != nil {
		return "", err
	}
	rep := &judge.Report{Dir: s.Facts.Dir, Server: s.Cluster.Server}
	for _, c := range l.Checks {
		if c.AsReported {
			c.Actual += i18n.T("check.junit.as_reported")
		}
		rep.Checks = append(rep.Checks, c)
	}
	rep.Finish(0)
	// Saved after the evidence is unpacked, so the page does not call it
	// older than the evidence.
	if err := judge.SaveLast(dir, rep, time.Now()); err != nil {
		return "", err
	}
	p := report.Build(report.Options{Steps: course.Lab(), Dir: dir, Alpha: s.Facts.Alpha, Now: gb.GradedAt, Version: gb.CnpaVersion})
	p.Dir, p.Engine, p.IDPrefix = s.Facts.Dir, s.Facts.Engine, prefix
	var b bytes.Buffer
	if err := report.WriteBody(&b, p); err != nil {
		return "", err
	}
	// report's template escaped every value it holds.
	return template.HTML(b.String()), nil
}
