package ui

import (
	"bytes"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
)

// A wait in Japanese: its words are the catalog's, the why's next lines
// line up under its first whatever the label's width, and the ✓/✗ table's
// "expected" too.
func TestWaitInJapanese(t *testing.T) {
	i18n.Set(i18n.Japanese)
	defer i18n.Set(i18n.English)
	var buf bytes.Buffer
	p := &Printer{W: &buf}
	w := p.wait("team-beta", "一行目\n二行目", time.Now())
	w.Tick(10 * time.Second)
	w.end("消えました", 2500*time.Millisecond)
	p.Verdict(false, "restore_seconds", 0, "1以上の整数")
	want := "  … team-betaを待っています\n" +
		"    理由: 一行目\n" +
		"          二行目\n" +
		"    … まだteam-betaを待っています（10s）\n" +
		"    2.5s後に消えました\n" +
		"  ✗ restore_seconds              0 （期待する値 1以上の整数）\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
