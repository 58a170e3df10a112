package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --lab and cnpa lab, where no cluster is needed: the lint, a lab that
// names none, a lab that does not lint refused before anything runs, and
// the commands that know only the TeamSpace lab refusing a file lab.
func TestFileLabCommandLine(t *testing.T) {
	t.Parallel()
	broken := t.TempDir()
	if err := os.CopyFS(broken, os.DirFS("../../labs/vap")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(broken, "lab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "lab.yaml"), []byte(strings.Replace(string(data), "verb: try-patch", "verb: scale-it", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"lint a shipped lab", nil, []string{"lab", "lint", "vap"}, 0, "labs/vap/lab.yaml: the lab is whole: 4 steps, 6 checks, 11 cases, in en, ja"},
		{"lint in Japanese", nil, []string{"--lang", "ja", "lab", "lint", "vap"}, 0, "ラボはそろっています: 4ステップ、6チェック、11ケース、en、ja"},
		{"lint a broken lab", nil, []string{"lab", "lint", broken}, 1, "lab.yaml:119: unknown verb scale-it\n  → use a built-in verb: delete-and-time, get, list, try-create, try-patch"},
		{"step of a broken lab", nil, []string{"--lab", broken, "step", "1"}, 1, "unknown verb scale-it"},
		{"test of a broken lab", nil, []string{"lab", "test", broken}, 1, "the lab does not lint"},
		{"no such lab", nil, []string{"lab", "lint", "nope"}, 2, "no lab nope: give a lab cnpa ships (vap) or a dir that holds lab.yaml"},
		{"no such lab to step", []string{"CNPA_LAB=nope"}, []string{"step", "1"}, 2, "no lab nope"},
		{"no such step", nil, []string{"--lab", "vap", "step", "9"}, 2, "the lab vap has no step 9: its steps are 1..4 (or all)"},
		{"the TeamSpace lab is no file", nil, []string{"lab", "lint", "teamspace"}, 2, "the TeamSpace lab is cnpa's own"},
		{"watch a file lab with nothing written", nil, []string{"--lab", "vap", "watch"}, 1, "nothing is written in"},
		{"class grade of a file lab refuses --live", nil, []string{"--lab", "vap", "class", "grade", "--live", "class.yaml", "a.json"}, 2, "--live is not there yet for a lab kept as a file (vap): leave it out"},
		{"reset refuses a file lab", nil, []string{"--lab", "vap", "reset"}, 2, "reset knows only the TeamSpace lab so far, not vap"},
		{"status refuses CNPA_LAB", []string{"CNPA_LAB=vap"}, []string{"status"}, 2, "status knows only the TeamSpace lab so far"},
		{"check with nothing written", []string{"CNPA_LAB=vap"}, []string{"check"}, 1, "nothing is written in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := cnpaEnv(t, c.env, c.args...)
			if code != c.code || !strings.Contains(out+errOut, c.want) {
				t.Errorf("cnpa %v: exit %d, want %d and %q; stdout %q, stderr %q", c.args, code, c.code, c.want, out, errOut)
			}
		})
	}
}
