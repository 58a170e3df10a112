package judge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// messageFields are the words of a check and of a verdict: what a learner
// reads, and what a translation will change. No verdict or diagnosis may
// be decided by them.
var messageFields = map[string]bool{"Actual": true, "Expected": true, "Hint": true, "Note": true, "Title": true, "Got": true, "Want": true}

// stringTests are the functions of package strings that look into a text.
var stringTests = map[string]bool{"Contains": true, "ContainsAny": true, "HasPrefix": true, "HasSuffix": true, "Index": true,
	"LastIndex": true, "EqualFold": true, "Count": true, "Cut": true}

// messageMatches lists where the source src looks into a message field
// with package strings, or compares one with a literal.
func messageMatches(fset *token.FileSet, f *ast.File) []string {
	readsMessage := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && messageFields[sel.Sel.Name] {
				found = true
			}
			return !found
		})
		return found
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "strings" || !stringTests[sel.Sel.Name] {
				return true
			}
			for _, a := range n.Args {
				if readsMessage(a) {
					out = append(out, fset.Position(n.Pos()).String()+": strings."+sel.Sel.Name+" on a message")
				}
			}
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if lit, ok := pair[1].(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value != `""` && readsMessage(pair[0]) {
					out = append(out, fset.Position(n.Pos()).String()+": a message compared with "+lit.Value)
				}
			}
		}
		return true
	})
	return out
}

// TestNoDiagnosisMatchesMessageText: neither a verdict nor a diagnosis is
// decided by the words of a message. The grader's judgement, its hands,
// the steps' diagnosis and the class's grading carry mistakes as values
// (lab.Mistake); a test fails if one of them looks into a check's or a
// verdict's text again.
func TestNoDiagnosisMatchesMessageText(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.go", "../check/*.go", "../steps/*.go", "../class/*.go", "../submit/*.go", "../submission/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, m := range messageMatches(fset, f) {
			t.Errorf("%s: decide by the mistake a verdict carries (lab.Mistake), not by its words", m)
		}
	}
	if n < 20 {
		t.Fatalf("read %d files: want judge, check, steps, class, submit and submission", n)
	}
}

// TestMessageMatchesAreFound: the detector catches what diagnosis once
// did (check/diagnosis.go before issue 38), so that its silence means
// something.
func TestMessageMatchesAreFound(t *testing.T) {
	const old = `package check
func Diagnose(c Check) string {
	switch {
	case c.ID == "step6.delete_archives" && strings.Contains(c.Actual, "no archive record"):
		return "x"
	case strings.HasSuffix(c.ID, ".file") && strings.Contains(c.Actual, "missing"):
		return "y"
	case v.Got == "does not exist":
		return "z"
	}
	return ""
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "old.go", old, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageMatches(fset, f); len(got) != 3 {
		t.Errorf("the old diagnosis: found %d matches on message text %v, want 3", len(got), got)
	}
}
