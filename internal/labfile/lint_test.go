package labfile

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labhub/cnpa"
	"github.com/labhub/cnpa/internal/i18n"
)

// shipped is labs/vap as cnpa carries it.
func shipped(t *testing.T) fstest.MapFS {
	t.Helper()
	sub, err := fs.Sub(cnpa.Labs, "labs/vap")
	if err != nil {
		t.Fatal(err)
	}
	m := fstest.MapFS{}
	if err := fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Every lab cnpa ships lints clean.
func TestShippedLabsLint(t *testing.T) {
	l, ps := Load(shipped(t), "labs/vap")
	if len(ps) > 0 {
		t.Fatalf("labs/vap does not lint:\n%s", ps.Say(i18n.English))
	}
	if got, want := len(l.CheckIDs()), 6; got != want {
		t.Errorf("got %d checks, want %d", got, want)
	}
}

// lineOf is the 1-based line of the first line of text holding s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q not in the lab file", s)
	}
	return strings.Count(text[:i], "\n") + 1
}

// Each refusal names the file, the line and the fix: the shipped lab with
// one thing broken.
func TestLintRefuses(t *testing.T) {
	base := string(shipped(t)["lab.yaml"].Data)
	for _, c := range []struct {
		name      string
		from, to  string // the change to the shipped file
		at        string // the text on the line the problem names
		kind      string
		says, fix string
	}{
		{"bad YAML", "admitted: run.create.exit == 0", "admitted: run.create.exit: 0", "admitted: run.create.exit: 0", "yaml",
			"not YAML", "fix the YAML at this line"},
		{"unknown verb", "verb: try-patch", "verb: scale-it", "verb: scale-it", "verb",
			"unknown verb scale-it", "use a built-in verb: delete-and-time, get, list, try-create, try-patch"},
		{"expression that does not compile", "expr: facts.policy.found &&", "expr: facts.policy.found &&&", "expr: facts.policy.found &&&", "cel",
			"does not compile", "write CEL over evidence, facts, files and params"},
		{"wait-until condition that does not compile", `verb: try-patch
        with: {apiVersion: apps/v1, kind: Deployment, namespace: "${namespace}", name: idle, patch: '{"spec":{"replicas":7}}'}`, `verb: wait-until
        with: {apiVersion: apps/v1, kind: Deployment, namespace: "${namespace}", name: idle, condition: "object.spec.replicas =="}`, `condition: "object.spec.replicas =="`, "condition",
			"the condition object.spec.replicas == does not compile", "write CEL over found and object"},
		{"key the lab does not declare", "got: facts.too_many.message", "got: facts.too_mnay.message", "got: facts.too_mnay.message", "key",
			"reads facts.too_mnay, which the lab does not declare", "use one of: policy, too_many; or declare too_mnay"},
		{"missing translation", "    admit.at_limit: vap-demo の", "    admit.at_limit_x: vap-demo の", "      - id: at_limit\n        needs", "word",
			"admit.at_limit has no words in ja", "add admit.at_limit: <text> under words.ja"},
		{"unexercised check", "    check: scope.outside_admitted\n", "    check: update.refused\n", "      - id: outside_admitted", "unexercised",
			"check scope.outside_admitted is exercised by no case", "add a mutant with check: scope.outside_admitted"},
		{"schema", "    evidence:\n      file: admit.json", "    evidence:\n      file: admit.txt", "file: admit.txt", "schema",
			"at /steps/1/evidence/file", "labs/lab.schema.json"},
		{"verb without what it needs", "with: {namespace: \"${free_namespace}\", manifest: resources/too-many.yaml}", "with: {namespace: \"${free_namespace}\"}", "verb: try-create\n        with: {namespace: \"${free_namespace}\"}", "with",
			"verb try-create takes no manifest here, or lacks it", "give try-create exactly what it takes: manifest, namespace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.from) {
				t.Fatalf("the shipped lab has no %q", c.from)
			}
			text := strings.ReplaceAll(base, c.from, c.to)
			fsys := shipped(t)
			fsys["lab.yaml"] = &fstest.MapFile{Data: []byte(text)}
			_, ps := Load(fsys, "labs/vap")
			var p *Problem
			for i := range ps {
				if ps[i].Kind() == c.kind {
					p = &ps[i]
					break
				}
			}
			if p == nil {
				t.Fatalf("no %s problem; got:\n%s", c.kind, ps.Say(i18n.English))
			}
			said := p.Say(i18n.English)
			if want := lineOf(t, text, c.at); p.File != "labs/vap/lab.yaml" || p.Line != want {
				t.Errorf("got %s:%d, want labs/vap/lab.yaml:%d\n%s", p.File, p.Line, want, said)
			}
			what, fix, _ := strings.Cut(said, "\n  → ")
			if !strings.Contains(what, c.says) {
				t.Errorf("got %q, want it to say %q", what, c.says)
			}
			if !strings.Contains(fix, c.fix) {
				t.Errorf("got fix %q, want %q", fix, c.fix)
			}
			if ja := p.Say(i18n.Japanese); ja == said || !strings.Contains(ja, "→") {
				t.Errorf("the Japanese is the English: %q", ja)
			}
		})
	}
}
