package labfile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// The expressions are CEL, as Kubernetes writes CRD validation rules and
// admission policies: compiled and type-checked once, when the lab loads,
// so that a typo is the lint's, not the learner's.
//
// A check's expressions (expr, got, want, a mistake's when) see
//
//	evidence  the step's evidence file, by key
//	facts     the step's facts, by id, each what its verb returns
//	files     every step's evidence, by step id (null where not written)
//	params    the lab's parameters, by name (strings)
//
// and a step's write expressions see run (each command's stdout, stderr
// and exit, by id), files (as above: a step may compute from earlier
// steps' evidence) and params.

var (
	checkEnv = mustEnv("evidence", "facts", "files")
	writeEnv = mustEnv("run", "files")
)

func mustEnv(vars ...string) *cel.Env {
	opts := []cel.EnvOption{cel.Variable("params", cel.MapType(cel.StringType, cel.StringType))}
	for _, v := range vars {
		opts = append(opts, cel.Variable(v, cel.MapType(cel.StringType, cel.DynType)))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		panic(err)
	}
	return env
}

// expr is one compiled expression and where it is.
type expr struct {
	src  string
	ptr  string
	prog cel.Program
}

// keys says, for each variable of an expression, the keys it has: a select
// of another key (evidence.refsued) is refused by the lint.
type keys map[string][]string

// compile compiles src in env; a syntax or type error is its problem, and
// so is a select of a key that keys does not declare.
func (l *Lab) compile(env *cel.Env, ptr, src string, known keys) (*expr, Problems) {
	a, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		msg := strings.ReplaceAll(iss.Err().Error(), "\n", " ")
		msg = strings.Join(strings.Fields(msg), " ")
		return nil, Problems{l.at(ptr, "labfile.problem.cel", map[string]any{"Expr": src, "Err": msg})}
	}
	var ps Problems
	ast.PostOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() != ast.SelectKind {
			return
		}
		sel := e.AsSelect()
		op := sel.Operand()
		if op.Kind() != ast.IdentKind {
			return
		}
		have, ok := known[op.AsIdent()]
		if !ok {
			return
		}
		for _, k := range have {
			if k == sel.FieldName() {
				return
			}
		}
		ps = append(ps, l.at(ptr, "labfile.problem.key", map[string]any{
			"Expr": src, "Var": op.AsIdent(), "Key": sel.FieldName(), "Known": strings.Join(sorted(have), ", ")}))
	}))
	if len(ps) > 0 {
		return nil, ps
	}
	prog, err := env.Program(a)
	if err != nil {
		return nil, Problems{l.at(ptr, "labfile.problem.cel", map[string]any{"Expr": src, "Err": err.Error()})}
	}
	return &expr{src: src, ptr: ptr, prog: prog}, nil
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// eval runs e over vars: its value as plain Go (bool, int64, float64,
// string, nil, []any, map[string]any).
func (e *expr) eval(vars map[string]any) (any, error) {
	v, _, err := e.prog.Eval(vars)
	if err != nil {
		return nil, err
	}
	return native(v), nil
}

// native is a CEL value as plain Go.
func native(v ref.Val) any {
	switch x := v.(type) {
	case types.Bool:
		return bool(x)
	case types.Int:
		return int64(x)
	case types.Uint:
		return uint64(x)
	case types.Double:
		return float64(x)
	case types.String:
		return string(x)
	case types.Null:
		return nil
	case traits.Mapper:
		out := map[string]any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			out[fmt.Sprint(native(k))] = native(x.Get(k))
		}
		return out
	case traits.Lister:
		var out []any
		for it := x.Iterator(); it.HasNext() == types.True; {
			out = append(out, native(it.Next()))
		}
		return out
	}
	return v.Value()
}

// show is a value as a check says it: JSON, a string without its quotes.
func show(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
