package class_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/submission"
)

// TestClassShowsTheController: the learner's reconcile.sh, read from
// their evidence dir by `cnpa submit`, reaches the instructor: in the
// gradebook's JSON and on the class page, escaped (a script is full of
// < and &), beside a submission of an earlier cnpa (format 1, without
// it), which is read and graded as before (issue 57).
func TestClassShowsTheController(t *testing.T) {
	dir := t.TempDir()
	ev := t.TempDir()
	script := "#!/bin/bash\n# ada's controller\nkubectl get teamspaces -o json | jq -r '.items[] | select(.spec.pods < 50) | .metadata.name' 2>&1 </dev/null\n"
	if err := os.WriteFile(filepath.Join(ev, lab.ScriptName), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ada := good(t, "ada", 1)
	if err := ada.ReadFiles(nil, ev, filepath.Join(ev, lab.OwnDir)); err != nil {
		t.Fatal(err)
	}
	ada.Evidence = good(t, "ada", 1).Evidence // the fixture's evidence, with ada's script
	if ada.Controller == nil || ada.Controller.Text != script || ada.Controller.Mode != "0755" || ada.Controller.Lines() != 3 {
		t.Fatalf("controller read: %+v", ada.Controller)
	}
	old := good(t, "bob", 2) // an earlier cnpa's: no controller
	subs := []*submission.Submission{roundTrip(t, dir, ada), roundTrip(t, dir, old)}
	for _, s := range subs {
		raw, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Format int }
		json.Unmarshal(raw, &env)
		want := 1
		if s.Learner == "ada" {
			want = 2
		}
		if env.Format != want || !s.HashOK {
			t.Errorf("%s: format %d, hash ok %v; want format %d (the lowest that carries it) and the hash whole", s.Learner, env.Format, s.HashOK, want)
		}
	}
	gb := grade(t, subs, nil)
	var b bytes.Buffer
	if err := class.WriteJSON(&b, gb); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Learners []struct {
			Learner    string
			Controller *submission.Source
		}
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, l := range back.Learners {
		if got := l.Controller != nil && l.Controller.Text == script; got != (l.Learner == "ada") {
			t.Errorf("gradebook JSON, %s: controller %+v", l.Learner, l.Controller)
		}
	}
	b.Reset()
	if err := class.WriteHTML(&b, gb); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	escaped := "select(.spec.pods &lt; 50)"
	if strings.Count(page, `<details class="controller"`) != 1 || !strings.Contains(page, escaped) || strings.Contains(page, "</dev/null") {
		t.Errorf("class page: want ada's reconcile.sh once, escaped (%q):\n%s", escaped, page[max(0, strings.Index(page, "controller")-200):])
	}
}

// TestControllerBounded: a reconcile.sh larger than MaxControllerSize is
// kept up to it, cut at a character, and says so, with its whole size.
func TestControllerBounded(t *testing.T) {
	ev := t.TempDir()
	big := strings.Repeat("# 調整ループ\n", submission.MaxControllerSize/8)
	if err := os.WriteFile(filepath.Join(ev, lab.ScriptName), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	c := good(t, "ada", 1)
	if err := c.ReadFiles(nil, ev, filepath.Join(ev, lab.OwnDir)); err != nil {
		t.Fatal(err)
	}
	s := c.Controller
	if s == nil || !s.Truncated || len(s.Text) > submission.MaxControllerSize || s.Size != int64(len(big)) || !strings.HasPrefix(big, s.Text) || s.Mode != "0644" {
		t.Fatalf("a %d-byte reconcile.sh: got %d bytes of text, truncated %v, size %d, mode %s", len(big), len(s.Text), s.Truncated, s.Size, s.Mode)
	}
}
