package i18n

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// learnerFacing are the packages whose every word reaches a learner or an
// instructor, and so is in the catalog: TestNoProseOutsideTheCatalog reads
// their source. A package is added here once its words are in the catalog
// (one line; its literals the lint must let be go in allowProse below).
var learnerFacing = []string{
	"internal/judge",    // cnpa check's checks: titles, hints, notes, text/JSON/JUnit
	"internal/check",    // cnpa check's live probes
	"internal/reset",    // cnpa reset
	"internal/timeline", // the timelines of steps 5 to 7
	"internal/report",   // cnpa report, text and HTML
	"internal/class",    // cnpa class grade: text and the class page
}

// prose is what English words for people look like in a string literal:
// two words of letters with a space between ("is gone", "run it"). Ids
// (step5.quota_in_sync), keys, paths, placeholders and format verbs alone
// do not match.
var prose = regexp.MustCompile(`[A-Za-z]{2,}[,:;]? [A-Za-z]{2,}`)

// codeSpan is a `command` inside a literal: a command is said as it is.
var codeSpan = regexp.MustCompile("`[^`]*`")

// allowProse are the literals of learnerFacing that look like prose and
// stay as they are in every language, each with why. Anything else that
// looks like prose fails the lint: say it with i18n.T.
var allowProse = map[string]string{
	// Error context wrapped around an error (fmt.Errorf("...: %w")), as the
	// house style writes it: the words name the operation for the log and
	// the bug report; the learner reads the error it wraps and the hint.
	"get team-alpha/team-quota: %w":     "error context",
	"get namespace %s: %w":              "error context",
	"status of %s: %w":                  "error context",
	"list teamspaces: %w":               "error context",
	"list namespaces: %w":               "error context",
	"list resourcequotas: %w":           "error context",
	"drop the finalizers of %s: %w":     "error context",
	"create temporary TeamSpace %s: %w": "error context",
	"delete namespace %s: %w":           "error context",
	// Texts a program matches, not a person reads.
	"would exceed context deadline":        "client-go's error text, matched",
	"may only add or remove the finalizer": "the admission policy's message, matched in the controller's log",
	"is forbidden":                         "kubectl's error text, matched",
	"appears more than once":               "evidence's problem text, matched",
	"cnpa check":                           "the JUnit document's name: a command",
	"cnpa step all":                        "a command",
}

// Every string literal of the learner-facing packages that reads as prose
// is in the catalog: it appears in the code only as a message id (i18n.T,
// i18n.N), or is in allowProse with a reason. Logs (log, slog) and struct
// tags are not output to a learner; comments are not literals.
//
// This holds "no learner-facing string outside the catalog" for these
// packages at the source, where a new message is written: a new English
// sentence printed, returned as an error, put in a check's title, hint,
// note, expected or found fails here, whatever function carries it.
func TestNoProseOutsideTheCatalog(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	for _, pkg := range learnerFacing {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", pkg, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			found = append(found, proseIn(t, file)...)
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: English outside the catalog: say it with i18n.T (catalog/*.toml), or allow it in allowProse with why", f)
	}
}

// proseIn lists the prose literals of one file, as file:line: "literal".
func proseIn(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.Field:
			// A struct tag (json:"...") is for encoding/json; look at the
			// type only.
			ast.Inspect(n.Type, func(ast.Node) bool { return true })
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					switch x.Name {
					case "slog", "log", "logger":
						// Log lines stay English (docs/i18n.md).
						return false
					}
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				return true
			}
			if _, ok := allowProse[s]; ok {
				return true
			}
			if prose.MatchString(codeSpan.ReplaceAllString(s, "")) {
				out = append(out, fmt.Sprintf("%s: %q", fset.Position(n.Pos()), s))
			}
		}
		return true
	})
	return out
}
