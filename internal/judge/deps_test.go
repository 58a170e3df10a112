package judge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFileFormatLinksNoGrader holds the layout: the submission file and
// the report page, and the judgement they read, link none of the grader's
// hands (check), the lab's environment (labenv), the service managers,
// the service's identity or the assets. A file format never links the
// machinery that produced it.
func TestFileFormatLinksNoGrader(t *testing.T) {
	const mod = "github.com/labhub/cnpa/internal/"
	out, err := exec.Command("go", "list", "-deps", mod+"submission", mod+"report", mod+"judge").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"judge") || !slices.Contains(deps, mod+"lab") {
		t.Fatalf("go list -deps names neither judge nor lab: is this the module? %v", deps)
	}
	for _, pkg := range []string{"check", "labenv", "service", "identity", "kube"} {
		if slices.Contains(deps, mod+pkg) {
			t.Errorf("submission, report or judge links %s%s", mod, pkg)
		}
	}
	if slices.Contains(deps, "github.com/labhub/cnpa/assets") {
		t.Errorf("submission, report or judge links github.com/labhub/cnpa/assets")
	}
}

// TestJudgingReadsNoFiles: judge is the pure part of grading; it reads no
// file of its own (no os, io/fs or os/exec among its imports, and none of
// evidence's or lab's readers called). What it needs of the machine comes
// in the Facts the hands gathered (Facts.Authors): a submission judged on
// the instructor's machine must never read a path the learner named.
func TestJudgingReadsNoFiles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]bool{"evidence.Theirs": true, "evidence.ReadArchive": true, "lab.Read": true, "lab.ReadFile": true, "lab.Authors": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "os" || p == "io/fs" || p == "os/exec" || p == "io/ioutil" {
				t.Errorf("%s imports %s: judging reads nothing; gather it among the facts (package check)", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && readers[x.Name+"."+sel.Sel.Name] {
					t.Errorf("%s: %s calls %s.%s: judging reads nothing; gather it among the facts (package check)",
						fset.Position(sel.Pos()), name, x.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
