// Package labfile reads a lab kept as data (labs/<name>/lab.yaml, apiVersion
// cnpa.labhub.io/v1alpha1, kind Lab), refuses one that is not whole with
// the file, the line and the fix (Load, Lint), and runs it: its resources
// installed, a step's commands run into its evidence file (Engine.RunStep),
// every check graded over the evidence, the live cluster read through
// built-in verbs and the lab's parameters (Engine.Grade), and the lab proved
// against its reference, its unsolved state and its mutants (Prove). It
// knows no lab: every name, file and word of one comes from its file.
package labfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// APIVersion and Kind are what a lab file says it is.
const (
	APIVersion = "cnpa.labhub.io/v1alpha1"
	Kind       = "Lab"
	// FileName is the lab file in its dir.
	FileName = "lab.yaml"
)

// Lab is one lab file, read and (once Load returns no problem) whole.
type Lab struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   Metadata         `json:"metadata"`
	Languages  []string         `json:"languages"`
	Parameters []Param          `json:"parameters"`
	Resources  []string         `json:"resources"`
	Steps      []*Step          `json:"steps"`
	Solution   []string         `json:"solution"`
	Unsolved   Unsolved         `json:"unsolved"`
	Cleanup    []string         `json:"cleanup"`
	Mutants    []Mutant         `json:"mutants"`
	Words      map[string]Words `json:"words"`

	// FS holds the lab's files (lab.yaml, its resources); Where is how a
	// message names its dir ("labs/vap").
	FS    fs.FS  `json:"-"`
	Where string `json:"-"`
	// lines maps a JSON pointer into the file ("/steps/0/checks/1/expr")
	// to its line.
	lines map[string]int
	// progs are the compiled expressions, by JSON pointer.
	progs map[string]*expr
}

// Metadata names the lab.
type Metadata struct {
	Name  string            `json:"name"`
	Title map[string]string `json:"title"`
}

// Param is a value the lab may vary; Default is the lab text's.
type Param struct {
	Name    string `json:"name"`
	Default string `json:"default"`
}

// Words are one language's texts, by id.
type Words map[string]string

// Step is one step: the evidence file it writes, the commands that write
// it, the facts read from the cluster and the checks over both.
type Step struct {
	ID       string            `json:"id"`
	Evidence Evidence          `json:"evidence"`
	Run      []Command         `json:"run"`
	Write    map[string]string `json:"write"`
	Facts    []Fact            `json:"facts"`
	Checks   []Check           `json:"checks"`
	Mistakes []Mistake         `json:"mistakes"`
}

// Evidence is a step's file and its keys' JSON types.
type Evidence struct {
	File  string            `json:"file"`
	Shape map[string]string `json:"shape"`
}

// Command is one shell command of a step's run; its output is
// run.<ID>.stdout, .stderr and .exit in the step's write expressions.
type Command struct {
	ID string `json:"id"`
	Sh string `json:"sh"`
}

// Fact is a value read from the live cluster by a built-in verb.
type Fact struct {
	ID   string         `json:"id"`
	Verb string         `json:"verb"`
	With map[string]any `json:"with"`
}

// Check is one graded property: Expr holds (by default Got == Want); Got
// and Want are shown when it does not.
type Check struct {
	ID       string   `json:"id"`
	Expr     string   `json:"expr"`
	Got      string   `json:"got"`
	Want     string   `json:"want"`
	Needs    []string `json:"needs"`
	Mistakes []string `json:"mistakes"`
}

// Mistake is a known wrong answer: its hints nudge first and give the
// answer last.
type Mistake struct {
	ID    string   `json:"id"`
	When  string   `json:"when"`
	Hints []string `json:"hints"`
}

// Unsolved is the state a learner starts in: the commands that make it,
// and the checks it must fail.
type Unsolved struct {
	Run   []string `json:"run"`
	Fails []string `json:"fails"`
}

// Mutant is the reference with one thing wrong (Run, in place of the
// solution): it must fail Check and nothing of an earlier step.
type Mutant struct {
	Name  string   `json:"name"`
	Check string   `json:"check"`
	Run   []string `json:"run"`
}

// Step returns the step with id, or nil.
func (l *Lab) Step(id string) *Step {
	for _, s := range l.Steps {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// StepIndex is the index of step id, or -1.
func (l *Lab) StepIndex(id string) int {
	for i, s := range l.Steps {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// CheckIDs are every check's full id (step.check), in lab order.
func (l *Lab) CheckIDs() []string {
	var ids []string
	for _, s := range l.Steps {
		for _, c := range s.Checks {
			ids = append(ids, s.ID+"."+c.ID)
		}
	}
	return ids
}

// Defaults are the parameters' default values.
func (l *Lab) Defaults() map[string]string {
	p := map[string]string{}
	for _, x := range l.Parameters {
		p[x.Name] = x.Default
	}
	return p
}

// File is how a message names the lab file.
func (l *Lab) File() string { return path.Join(l.Where, FileName) }

// Line is the line of the value at JSON pointer ptr, or of the nearest
// enclosing value the file has; 0 when none.
func (l *Lab) Line(ptr string) int {
	for {
		if n, ok := l.lines[ptr]; ok {
			return n
		}
		i := strings.LastIndex(ptr, "/")
		if i < 0 {
			return 0
		}
		ptr = ptr[:i]
	}
}

// at is a problem at JSON pointer ptr of the lab file.
func (l *Lab) at(ptr, id string, args map[string]any) Problem {
	return Problem{File: l.File(), Line: l.Line(ptr), ID: id, Args: args}
}

// Load reads fsys/lab.yaml: YAML, then the schema, then the whole lab
// (Lint). where names the dir in messages. The lab is returned with every
// problem found; a lab with problems must not run.
func Load(fsys fs.FS, where string) (*Lab, Problems) {
	l := &Lab{FS: fsys, Where: where, lines: map[string]int{}}
	data, err := fs.ReadFile(fsys, FileName)
	if err != nil {
		return l, Problems{{File: l.File(), ID: "labfile.problem.unreadable", Args: map[string]any{"Err": err.Error()}}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return l, Problems{yamlProblem(l.File(), err)}
	}
	if len(root.Content) == 0 {
		return l, Problems{{File: l.File(), Line: 1, ID: "labfile.problem.empty"}}
	}
	doc, err := l.plain(root.Content[0], "")
	if err != nil {
		return l, Problems{yamlProblem(l.File(), err)}
	}
	if ps := l.validate(doc); len(ps) > 0 {
		return l, ps
	}
	raw, _ := json.Marshal(doc)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(l); err != nil {
		// The schema refuses what the struct cannot hold, so this is a
		// schema that lets through more than the struct knows.
		return l, Problems{{File: l.File(), Line: 1, ID: "labfile.problem.schema", Args: map[string]any{"Where": "/", "Err": err.Error()}}}
	}
	return l, l.Lint()
}

// plain turns a YAML node into the JSON value it stands for, recording the
// line of every value under its JSON pointer.
func (l *Lab) plain(n *yaml.Node, ptr string) (any, error) {
	l.lines[ptr] = n.Line
	switch n.Kind {
	case yaml.AliasNode:
		return l.plain(n.Alias, ptr)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q twice", k.Line, k.Value)
			}
			p := ptr + "/" + escapePtr(k.Value)
			v, err := l.plain(n.Content[i+1], p)
			if err != nil {
				return nil, err
			}
			l.lines[p] = k.Line
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := []any{}
		for i, c := range n.Content {
			v, err := l.plain(c, ptr+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	// JSON has no integers of other widths, nor YAML's timestamps.
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int64, float64, string, bool, nil:
		return x, nil
	}
	return n.Value, nil
}

func escapePtr(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// yamlProblem is a YAML error at the line the parser names.
func yamlProblem(file string, err error) Problem {
	msg := err.Error()
	line := 0
	if _, rest, ok := strings.Cut(msg, "line "); ok {
		digits := rest
		if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			digits = rest[:i]
		}
		line, _ = strconv.Atoi(digits)
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return Problem{File: file, Line: line, ID: "labfile.problem.yaml", Args: map[string]any{"Err": msg}}
}
