package labfile

import (
	"fmt"
	"io/fs"
	"strings"
)

// Lint holds a lab read against its schema to everything the schema cannot
// say: ids unique and every reference resolved; the evidence written key
// for key as its shape; every expression compiles, over the keys that
// exist; every verb is built in and given what it takes; every id has its
// words in every language the lab speaks; and every check is exercised by
// a mutant or the unsolved state. It compiles the expressions it keeps.
func (l *Lab) Lint() Problems {
	var ps Problems
	add := func(more ...Problem) { ps = append(ps, more...) }
	l.progs = map[string]*expr{}
	used := map[string]string{} // word id -> the pointer that needs it
	need := func(id, ptr string) {
		if _, ok := used[id]; !ok {
			used[id] = ptr
		}
	}
	params := keys{"params": nil}
	for _, p := range l.Parameters {
		params["params"] = append(params["params"], p.Name)
	}
	for i, r := range l.Resources {
		if _, err := fs.Stat(l.FS, r); err != nil {
			add(l.at(fmt.Sprintf("/resources/%d", i), "labfile.problem.file", map[string]any{"File": r}))
		}
	}
	steps := map[string]bool{}
	files := map[string]bool{}
	var stepIDs []string
	for _, s := range l.Steps {
		stepIDs = append(stepIDs, s.ID)
	}
	for i, s := range l.Steps {
		sp := fmt.Sprintf("/steps/%d", i)
		if steps[s.ID] {
			add(l.at(sp+"/id", "labfile.problem.twice", map[string]any{"ID": s.ID}))
		}
		steps[s.ID] = true
		if files[s.Evidence.File] {
			add(l.at(sp+"/evidence/file", "labfile.problem.twice", map[string]any{"ID": s.Evidence.File}))
		}
		files[s.Evidence.File] = true
		need(s.ID, sp+"/id")
		need(s.ID+".text", sp+"/id")

		// The run and what it writes.
		runs := keys{"run": nil, "files": stepIDs, "params": params["params"]}
		seen := map[string]bool{}
		for j, c := range s.Run {
			if seen[c.ID] {
				add(l.at(fmt.Sprintf("%s/run/%d/id", sp, j), "labfile.problem.twice", map[string]any{"ID": c.ID}))
			}
			seen[c.ID] = true
			runs["run"] = append(runs["run"], c.ID)
		}
		for _, k := range sorted(keysOf(s.Evidence.Shape)) {
			if _, ok := s.Write[k]; !ok {
				add(l.at(sp+"/write", "labfile.problem.unwritten", map[string]any{"Key": k, "File": s.Evidence.File}))
			}
		}
		for _, k := range sorted(keysOf(s.Write)) {
			ptr := sp + "/write/" + escapePtr(k)
			if _, ok := s.Evidence.Shape[k]; !ok {
				add(l.at(ptr, "labfile.problem.unshaped", map[string]any{"Key": k, "File": s.Evidence.File}))
				continue
			}
			l.keep(writeEnvFor, ptr, s.Write[k], runs, add)
		}

		// The facts.
		facts := map[string]bool{}
		var factIDs []string
		for j, f := range s.Facts {
			fp := fmt.Sprintf("%s/facts/%d", sp, j)
			if facts[f.ID] {
				add(l.at(fp+"/id", "labfile.problem.twice", map[string]any{"ID": f.ID}))
			}
			facts[f.ID] = true
			factIDs = append(factIDs, f.ID)
			add(l.lintVerb(fp, f)...)
		}

		// The checks and their mistakes.
		vars := keys{"evidence": keysOf(s.Evidence.Shape), "facts": factIDs, "files": stepIDs, "params": params["params"]}
		mistakes := map[string]bool{}
		for j, m := range s.Mistakes {
			mp := fmt.Sprintf("%s/mistakes/%d", sp, j)
			if mistakes[m.ID] {
				add(l.at(mp+"/id", "labfile.problem.twice", map[string]any{"ID": m.ID}))
			}
			mistakes[m.ID] = true
			need(m.ID, mp+"/id")
			for k, h := range m.Hints {
				need(h, fmt.Sprintf("%s/hints/%d", mp, k))
			}
			if m.When != "" {
				l.keep(checkEnvFor, mp+"/when", m.When, vars, add)
			}
		}
		checks := map[string]bool{}
		for j, c := range s.Checks {
			cp := fmt.Sprintf("%s/checks/%d", sp, j)
			if checks[c.ID] {
				add(l.at(cp+"/id", "labfile.problem.twice", map[string]any{"ID": c.ID}))
			}
			checks[c.ID] = true
			need(s.ID+"."+c.ID, cp+"/id")
			l.keep(checkEnvFor, cp+"/got", c.Got, vars, add)
			l.keep(checkEnvFor, cp+"/want", c.Want, vars, add)
			src := c.Expr
			if src == "" {
				src = "(" + c.Got + ") == (" + c.Want + ")"
			}
			l.keep(checkEnvFor, cp+"/expr", src, vars, add)
			for k, n := range c.Needs {
				if !l.before(n, s.ID, j) {
					add(l.at(fmt.Sprintf("%s/needs/%d", cp, k), "labfile.problem.needs", map[string]any{"Check": n}))
				}
			}
			for k, m := range c.Mistakes {
				if !mistakes[m] && !l.mistakeIn(s, m) {
					add(l.at(fmt.Sprintf("%s/mistakes/%d", cp, k), "labfile.problem.mistake", map[string]any{"Mistake": m, "Step": s.ID}))
				}
			}
		}
	}

	// The cases: every check exercised by one.
	all := map[string]bool{}
	for _, id := range l.CheckIDs() {
		all[id] = true
	}
	exercised := map[string]bool{}
	for i, f := range l.Unsolved.Fails {
		if !all[f] {
			add(l.at(fmt.Sprintf("/unsolved/fails/%d", i), "labfile.problem.check", map[string]any{"Check": f}))
		}
		exercised[f] = true
	}
	names := map[string]bool{}
	for i, m := range l.Mutants {
		mp := fmt.Sprintf("/mutants/%d", i)
		if names[m.Name] {
			add(l.at(mp+"/name", "labfile.problem.twice", map[string]any{"ID": m.Name}))
		}
		names[m.Name] = true
		if !all[m.Check] {
			add(l.at(mp+"/check", "labfile.problem.check", map[string]any{"Check": m.Check}))
		}
		exercised[m.Check] = true
	}
	for i, s := range l.Steps {
		for j, c := range s.Checks {
			if id := s.ID + "." + c.ID; !exercised[id] {
				add(l.at(fmt.Sprintf("/steps/%d/checks/%d/id", i, j), "labfile.problem.unexercised", map[string]any{"Check": id}))
			}
		}
	}

	// The words: every id in every language the lab speaks, and no more.
	for _, lang := range l.Languages {
		if l.Metadata.Title[lang] == "" {
			add(l.at("/metadata/title", "labfile.problem.title", map[string]any{"Lang": lang}))
		}
		w, ok := l.Words[lang]
		if !ok {
			add(l.at("/words", "labfile.problem.language", map[string]any{"Lang": lang}))
			continue
		}
		for _, id := range sorted(keysOf(used)) {
			if _, ok := w[id]; !ok {
				add(l.at(used[id], "labfile.problem.word", map[string]any{"ID": id, "Lang": lang}))
			}
		}
		for _, id := range sorted(keysOf(w)) {
			if _, ok := used[id]; !ok {
				add(l.at("/words/"+lang+"/"+escapePtr(id), "labfile.problem.unused", map[string]any{"ID": id, "Lang": lang}))
			}
		}
	}
	for _, lang := range sorted(keysOf(l.Words)) {
		if !contains(l.Languages, lang) {
			add(l.at("/words/"+lang, "labfile.problem.unspoken", map[string]any{"Lang": lang}))
		}
	}
	return ps.sorted()
}

// The environments an expression is compiled in, by where it is.
const (
	checkEnvFor = iota
	writeEnvFor
)

// keep compiles src (at ptr) and keeps it, or adds its problems.
func (l *Lab) keep(which int, ptr, src string, known keys, add func(...Problem)) {
	env := checkEnv
	if which == writeEnvFor {
		env = writeEnv
	}
	e, ps := l.compile(env, ptr, src, known)
	if len(ps) > 0 {
		add(ps...)
		return
	}
	l.progs[ptr] = e
}

// before says whether check ref (an id of step's own, or step.id) is one
// that the check at index j of step may need: of an earlier step, or
// earlier in its own.
func (l *Lab) before(ref, step string, j int) bool {
	sid, cid, ok := strings.Cut(ref, ".")
	if !ok {
		sid, cid = step, ref
	}
	si, own := l.StepIndex(sid), l.StepIndex(step)
	if si < 0 || si > own {
		return false
	}
	for k, c := range l.Steps[si].Checks {
		if c.ID == cid {
			return si < own || k < j
		}
	}
	return false
}

// mistakeIn says whether step declares mistake id.
func (l *Lab) mistakeIn(s *Step, id string) bool {
	for _, m := range s.Mistakes {
		if m.ID == id {
			return true
		}
	}
	return false
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
