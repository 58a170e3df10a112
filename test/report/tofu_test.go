package report

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// The HTML report and the class page in Japanese (<html lang="ja">), as
// Chromium draws them with the fonts installed (.ci/run installs Debian's
// fonts-noto-cjk), show every Japanese character they hold: no tofu.
//
// How it is seen: every distinct Japanese character of each page (as
// Chromium rendered its DOM) is drawn in a cell of its own, in the page's
// own font stack, 32 px, in one screenshot. A character the fonts lack is
// drawn as the same .notdef box as every other one, so two different
// characters with identical pixels, or a cell with none, is tofu. The
// detector is shown to work: the same characters drawn with a fontconfig
// that knows only DejaVu (no CJK) are found to be tofu.
func TestJapanesePagesHaveNoTofu(t *testing.T) {
	t.Parallel()
	b := kit.NeedBrowser(t)
	needCJKFont(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel) // after the parallel subtests, not when this function returns
	art := kit.ArtifactDir(t)

	dir := filepath.Join(t.TempDir(), "cnpa-op")
	writeRun(t, dir)
	reportPage := filepath.Join(t.TempDir(), "report.ja.html")
	run(t, true, "--lang", "ja", "--kubeconfig", goneKubeconfig(t), "--dir", dir, "--no-color", "report", "--html", reportPage, "--timeout", "5s")

	subs := t.TempDir()
	for i, name := range []string{"aiko", "ben"} {
		c, err := classfixture.Good(name, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := classfixture.Write(subs, c); err != nil {
			t.Fatal(err)
		}
	}
	classPage := filepath.Join(t.TempDir(), "class.ja.html")
	run(t, false, "--lang", "ja", "--no-color", "class", "grade", "--html", classPage, subs)

	for _, page := range []string{reportPage, classPage} {
		name := filepath.Base(page)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(`<html lang="ja">`)) {
				t.Fatalf("%s: no <html lang=\"ja\">", name)
			}
			stack := fontStack(t, string(src))
			// The DOM and the page's screenshot (an artifact) in one
			// browser start.
			shot := &kit.Shot{PNG: filepath.Join(art, strings.TrimSuffix(name, ".html")+".png"), Width: 1280, Height: 2400}
			load, err := b.LoadPage(ctx, t.TempDir(), "file://"+page, shot)
			if err != nil {
				t.Fatal(err)
			}
			chars := japanese(load.DOM)
			if len(chars) < 30 {
				t.Fatalf("%s: %d Japanese characters on the page (%q): is it in Japanese?", name, len(chars), string(chars))
			}
			// The two drawings of the characters need nothing of each
			// other: side by side, their browser starts overlap.
			t.Run("installed fonts", func(t *testing.T) {
				t.Parallel()
				if tofu := glyphs(ctx, t, b, chars, stack, nil, filepath.Join(art, "glyphs-"+strings.TrimSuffix(name, ".html")+".png")); len(tofu) > 0 {
					t.Errorf("%s: %d of %d Japanese characters have no glyph (tofu): %q", name, len(tofu), len(chars), string(tofu))
				}
			})
			// Once is proof enough that the detector sees tofu.
			if page != reportPage {
				return
			}
			t.Run("no CJK font, the detector's control", func(t *testing.T) {
				t.Parallel()
				noCJK := []string{"FONTCONFIG_FILE=" + dejaVuOnly(t)}
				if tofu := glyphs(ctx, t, b, chars, stack, noCJK, ""); len(tofu) < len(chars)-2 {
					t.Errorf("%s: without a CJK font only %d of %d characters were found tofu: the detector does not see tofu", name, len(tofu), len(chars))
				}
			})
		})
	}
}

// needCJKFont ends the test when no font covers Japanese: under CI=true it
// fails (.ci/run installs fonts-noto-cjk), elsewhere it skips.
func needCJKFont(t *testing.T) {
	out, err := exec.Command("fc-list", ":lang=ja", "family").Output()
	if err == nil && len(bytes.TrimSpace(out)) > 0 {
		return
	}
	msg := fmt.Sprintf("no font for Japanese (fc-list :lang=ja: %v %q): apt-get install fonts-noto-cjk", err, out)
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %s", msg)
	}
	t.Skip(msg)
}

// run runs cnpa with args; ok: it must exit 0 (else 0 or 1, a grade).
func run(t *testing.T, ok bool, args ...string) {
	t.Helper()
	out, err := exec.Command(cnpaBin, args...).CombinedOutput()
	if code := exitCode(err); code != 0 && (ok || code != 1) {
		t.Fatalf("cnpa %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func exitCode(err error) int {
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// goneKubeconfig points at a cluster nobody answers: the page is made
// offline.
func goneKubeconfig(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(`apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: gone, context: {cluster: gone, user: u}}]
current-context: gone
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// fontStack is the page's body font families, as its style sheet says.
func fontStack(t *testing.T, page string) string {
	m := regexp.MustCompile(`font: \d+px/[\d.]+ ([^;]+);`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page's body font stack is not found")
	}
	return html.UnescapeString(m[1])
}

// japanese are the distinct Japanese characters of a DOM's text (kanji,
// kana, the ideographic punctuation), in order.
func japanese(dom string) []rune {
	text := regexp.MustCompile(`(?s)<style.*?</style>|<[^>]*>`).ReplaceAllString(dom, " ")
	text = html.UnescapeString(text)
	seen := map[rune]bool{}
	var out []rune
	for _, r := range text {
		if !seen[r] && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef) {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

const cell, perRow = 48, 20

// glyphs draws chars one per cell in font stack (env added to the
// browser's) and returns those drawn as tofu: blank, or with the same
// pixels as another character. keep, when set, is where the picture goes.
func glyphs(ctx context.Context, t *testing.T, b *kit.Browser, chars []rune, stack string, env []string, keep string) []rune {
	t.Helper()
	var cells strings.Builder
	for _, r := range chars {
		fmt.Fprintf(&cells, "<div>%s</div>", html.EscapeString(string(r)))
	}
	rows := (len(chars) + perRow - 1) / perRow
	page := filepath.Join(t.TempDir(), "glyphs.html")
	doc := fmt.Sprintf(`<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><style>
html, body { margin: 0; background: #fff; color: #000; }
body { font: 32px/1 %s; display: grid; grid-template-columns: repeat(%d, %dpx); grid-auto-rows: %dpx; }
div { overflow: hidden; text-align: center; line-height: %dpx; }
</style></head><body>%s</body></html>`, stack, perRow, cell, cell, cell, cells.String())
	if err := os.WriteFile(page, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := keep
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "glyphs.png")
	}
	if err := b.ScreenshotEnv(ctx, t.TempDir(), "file://"+page, shot, perRow*cell, rows*cell, env); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	byHash := map[uint64][]rune{}
	var tofu []rune
	for i, r := range chars {
		h, ink := cellHash(img, (i%perRow)*cell, (i/perRow)*cell)
		if !ink {
			tofu = append(tofu, r)
			continue
		}
		byHash[h] = append(byHash[h], r)
	}
	for _, rs := range byHash {
		if len(rs) > 1 {
			tofu = append(tofu, rs...)
		}
	}
	sort.Slice(tofu, func(i, j int) bool { return tofu[i] < tofu[j] })
	return tofu
}

// cellHash hashes one cell's pixels, and tells whether anything is drawn
// in it.
func cellHash(img image.Image, x0, y0 int) (uint64, bool) {
	h := fnv.New64a()
	ink := false
	for y := y0; y < y0+cell; y++ {
		for x := x0; x < x0+cell; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
				ink = true
			}
			h.Write([]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8)})
		}
	}
	return h.Sum64(), ink
}

// dejaVuOnly is a fontconfig file that knows only the DejaVu fonts: no
// CJK font at all.
func dejaVuOnly(t *testing.T) string {
	dirs, _ := filepath.Glob("/usr/share/fonts/truetype/dejavu")
	if len(dirs) == 0 {
		t.Skip("no /usr/share/fonts/truetype/dejavu for the no-CJK control (fonts-dejavu-core)")
	}
	p := filepath.Join(t.TempDir(), "fonts.conf")
	conf := `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>` + dirs[0] +
		`</dir><cachedir>` + filepath.Join(t.TempDir(), "cache") + `</cachedir></fontconfig>`
	if err := os.WriteFile(p, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
