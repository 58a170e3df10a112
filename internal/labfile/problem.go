package labfile

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/labhub/cnpa"
	"github.com/labhub/cnpa/internal/i18n"
)

// Problem is one thing wrong with a lab file: where, and the ids of what
// is wrong (labfile.problem.<kind>) and of its fix (labfile.fix.<kind>),
// worded when said (Say).
type Problem struct {
	File string
	Line int
	ID   string
	Args map[string]any
}

// Kind is the problem's kind, the last part of its id ("cel", "verb").
func (p Problem) Kind() string { return p.ID[strings.LastIndex(p.ID, ".")+1:] }

// Say is the problem in l: "file:line: what", then the fix on its own line.
func (p Problem) Say(l i18n.Lang) string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return where + ": " + l.T(p.ID, p.Args) + "\n  → " + l.T("labfile.fix."+p.Kind(), p.Args)
}

// Problems are a lab file's problems, in the file's order.
type Problems []Problem

// Say is every problem in l, one paragraph each.
func (ps Problems) Say(l i18n.Lang) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Say(l) + "\n")
	}
	return b.String()
}

func (ps Problems) sorted() Problems {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return ps
}

// SchemaPath is the lab file's JSON Schema in the labs/ tree (cnpa.Labs),
// which an editor reads through the file's `# yaml-language-server:
// $schema=../lab.schema.json` line.
const SchemaPath = "labs/lab.schema.json"

// englishPrinter words the schema's errors: they quote JSON Schema's own
// keywords, which stay as they are in every language.
var englishPrinter = message.NewPrinter(language.English)

var (
	schemaOnce sync.Once
	labSchema  *jsonschema.Schema
	schemaErr  error
)

// theSchema is labs/lab.schema.json compiled, once.
func theSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		f, err := cnpa.Labs.Open(SchemaPath)
		if err != nil {
			schemaErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("lab.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		labSchema, schemaErr = c.Compile("lab.schema.json")
	})
	return labSchema, schemaErr
}

// validate holds doc to the schema: each leaf error a problem at the line
// of the value it is about.
func (l *Lab) validate(doc any) Problems {
	sch, err := theSchema()
	if err != nil {
		return Problems{{File: SchemaPath, ID: "labfile.problem.schema", Args: map[string]any{"Where": "/", "Err": err.Error()}}}
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return Problems{{File: l.File(), ID: "labfile.problem.schema", Args: map[string]any{"Where": "/", "Err": err.Error()}}}
	}
	var ps Problems
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ptr := ""
		for _, s := range e.InstanceLocation {
			ptr += "/" + escapePtr(s)
		}
		msg := e.ErrorKind.LocalizedString(englishPrinter)
		if seen[ptr+msg] {
			return
		}
		seen[ptr+msg] = true
		where := ptr
		if where == "" {
			where = "/"
		}
		ps = append(ps, l.at(ptr, "labfile.problem.schema", map[string]any{"Where": where, "Err": msg}))
	}
	walk(ve)
	return ps.sorted()
}
