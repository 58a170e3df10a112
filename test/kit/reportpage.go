package kit

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The words of the tests that read `cnpa report --html`'s page (the
// rendered DOM, or the file itself).

// AssertSelfContained fails when the page refers to anything outside it:
// no src, no href but #fragments, no URL in any attribute, no url() or
// @import in its CSS, no element that loads (script, link, img, iframe,
// object, embed). URLs in the text (a server address) are only text.
func AssertSelfContained(t *testing.T, html string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?i)\s([a-z-]+)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(html, -1) {
		name, val := strings.ToLower(m[1]), m[2]
		if (name == "src" || name == "href") && !strings.HasPrefix(val, "#") || strings.Contains(val, "://") {
			t.Errorf("the page refers outside itself: %s=%q", name, val)
		}
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(html, -1)
	if len(style) != 1 {
		t.Errorf("the page has %d <style> elements, want its one inline style sheet", len(style))
	}
	for _, st := range style {
		for _, bad := range []string{"url(", "@import", "@font-face"} {
			if strings.Contains(st[1], bad) {
				t.Errorf("the page's CSS contains %q: it must load nothing", bad)
			}
		}
	}
	if m := regexp.MustCompile(`(?i)<(script|link|img|iframe|object|embed|video|audio)\b`).FindString(html); m != "" {
		t.Errorf("the page has a %s element: it must load nothing", m)
	}
}

// AssertReportSteps fails unless the page has the lab's steps (numbers,
// course.Steps') in order.
func AssertReportSteps(t *testing.T, dom string, numbers []int) {
	t.Helper()
	last := -1
	for _, n := range numbers {
		i := strings.Index(dom, fmt.Sprintf(`<section class="step" id="step-%d"`, n))
		if i < 0 || i < last {
			t.Errorf("step %d: no section, or out of order", n)
		}
		last = i
	}
}

// ReportSection is step n's section of the DOM.
func ReportSection(t *testing.T, dom string, n int) string {
	t.Helper()
	i := strings.Index(dom, fmt.Sprintf(`<section class="step" id="step-%d"`, n))
	if i < 0 {
		t.Fatalf("no section for step %d", n)
	}
	j := strings.Index(dom[i:], "</section>")
	return dom[i : i+j]
}

// ReportValueStatus is the status the page gives key of file ("" when absent).
func ReportValueStatus(dom, file, key string) string {
	for _, i := range stepSection.FindAllStringIndex(dom, -1) {
		sec := dom[i[0]:]
		sec = sec[:strings.Index(sec, "</section>")]
		if !strings.Contains(sec, "<code>"+file+"</code>") {
			continue
		}
		m := regexp.MustCompile(`data-key="` + regexp.QuoteMeta(key) + `" data-status="([a-z]+)"`).FindStringSubmatch(sec)
		if m != nil {
			return m[1]
		}
	}
	return ""
}

// stepSection starts a step's section of the page.
var stepSection = regexp.MustCompile(`<section class="step" id="step-[0-9]+"`)

// OpenReport checks the report page at path as a reader's browser gets it:
// self-contained, loaded in b with no network request, and every step
// (numbers) present; with shot, the same browser run writes its screenshot. It
// returns the file and the rendered DOM for the caller's own assertions.
func OpenReport(ctx context.Context, t *testing.T, b *Browser, path string, numbers []int, shot *Shot) (html []byte, dom string) {
	t.Helper()
	html, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	AssertSelfContained(t, string(html))
	load, err := b.LoadPage(ctx, t.TempDir(), "file://"+path, shot)
	if err != nil {
		t.Fatal(err)
	}
	if len(load.PageRequests) > 0 {
		t.Errorf("the page made network requests: %v", load.PageRequests)
	}
	AssertReportSteps(t, load.DOM, numbers)
	return html, load.DOM
}
