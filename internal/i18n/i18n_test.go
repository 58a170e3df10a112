package i18n

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		n    int
		want string
	}{
		{English, 1, "1 passed"},
		{English, 3, "3 passed"},
		{English, 0, "0 passed"},
		{Japanese, 1, "1件合格"},
		{Japanese, 3, "3件合格"},
	} {
		if got := c.l.N("plural.passed", c.n); got != c.want {
			t.Errorf("%s N(passed, %d) = %q, want %q", c.l, c.n, got, c.want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	if got := English.T("explain.heading", Args{"N": 5, "Title": "The deleted quota is back seconds later"}); got != "Step 5 — The deleted quota is back seconds later" {
		t.Errorf("got %q", got)
	}
	if got := Japanese.T("explain.heading", Args{"N": 5, "Title": "削除したクォータが数秒後に復活する"}); got != "ステップ5 — 削除したクォータが数秒後に復活する" {
		t.Errorf("got %q", got)
	}
}

// A message the chosen language lacks is said in English; one nobody has
// is its id, so that a missing message shows where it is missing.
func TestFallback(t *testing.T) {
	if got := Japanese.T("no.such.message"); got != "no.such.message" {
		t.Errorf("got %q", got)
	}
}

// Only the chosen language's catalog is read, and only when a message is
// first asked for.
func TestLazyLoading(t *testing.T) {
	forget()
	defer forget()
	Set(Japanese)
	defer Set(English)
	if l := Loaded(); len(l) != 0 {
		t.Fatalf("catalogs read before any message: %v", l)
	}
	if _, err := Choose("", func(string) string { return "ja_JP.UTF-8" }); err != nil {
		t.Fatal(err)
	}
	if l := Loaded(); len(l) != 0 {
		t.Fatalf("choosing a language read catalogs: %v", l)
	}
	T("explain.why")
	if l := Loaded(); !slices.Equal(l, []Lang{Japanese}) {
		t.Fatalf("after one Japanese message, read %v; want only ja", l)
	}
	T("explain.by_hand")
	N("plural.passed", 2)
	if l := Loaded(); !slices.Equal(l, []Lang{Japanese}) {
		t.Fatalf("after more Japanese messages, read %v; want only ja", l)
	}
}

// Langs and the catalog files are the same list: a language is its file
// and its line in Langs.
func TestLangsAreTheCatalog(t *testing.T) {
	files, err := filepath.Glob("catalog/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range Langs {
		want = append(want, CatalogFile(l))
	}
	slices.Sort(files)
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("catalog files %v, Langs %v", files, want)
	}
	if Langs[0] != English {
		t.Errorf("Langs[0] = %s: English is the fallback and comes first", Langs[0])
	}
	if got := Codes(); !strings.Contains(got, "en") || !strings.Contains(got, "ja") {
		t.Errorf("Codes() = %q", got)
	}
}

// selfSaying says itself with T, as teamspace.Gap and labenv's errors do.
type selfSaying struct{}

func (selfSaying) String() string { return T("explain.why") }

type selfSayingError struct{}

func (selfSayingError) Error() string { return T("explain.by_hand") }

// A placeholder's value that says itself with T is said before the
// catalog's lock is taken: no deadlock, and its words in place.
func TestArgsThatSayThemselves(t *testing.T) {
	done := make(chan string)
	go func() {
		done <- English.T("explain.heading", Args{"N": selfSaying{}, "Title": selfSayingError{}})
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, English.T("explain.why")) || !strings.Contains(got, English.T("explain.by_hand")) {
			t.Errorf("got %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("T with an argument that calls T did not return: deadlock")
	}
}

// TestNewErrorIsWordedWhenShown: an error made in one language says its
// message in the language chosen when it is printed.
func TestNewErrorIsWordedWhenShown(t *testing.T) {
	defer Set(Current())
	Set(English)
	err := NewError("poll.gave_up", Args{"After": "3s", "Last": "x"})
	en := err.Error()
	Set(Japanese)
	if ja := err.Error(); ja == en || ja != Japanese.T("poll.gave_up", Args{"After": "3s", "Last": "x"}) {
		t.Errorf("made in English, shown in Japanese: got %q (English %q)", ja, en)
	}
	var m *MessageError
	if !errors.As(err, &m) || m.ID != "poll.gave_up" || m.Args["Last"] != "x" {
		t.Errorf("the error does not carry its id and values: %#v", err)
	}
}
