package steps

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/internal/evidence"
)

// LearnersOrLabs is the file a step applies: the learner's own dir/name,
// used as it is (never rewritten) once diff finds nothing the lab text
// asks for missing from it, else the lab's, written only where the
// learner has none. Either way the step says which. A file of the
// learner's that differs fails the step with one line per field (its
// first line the message differsID, with the file's Path), the file
// unchanged. Exported for the runs of step 1 (crd.yaml, alpha.yaml) and
// step 6 (beta.yaml).
func LearnersOrLabs(env *Lab, sh Shell, name string, labs []byte, diff func(map[string]any) []string, differsID string) (path string, data []byte, yours bool, err error) {
	path = filepath.Join(env.Dir, name)
	why, err := evidence.Theirs(env.Dir, name)
	if err != nil {
		return "", nil, false, fmt.Errorf("%s %w", Say("steps.is_yours", "Path", path), err)
	}
	if why == "" {
		if path, err = sh.WriteFile(env, name, labs); err != nil {
			return "", nil, false, err
		}
		sh.Comment("%s", Say("steps.file_cnpas", "Path", path))
		return path, labs, false, nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return "", nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, false, SayError("steps.not_a_file", "Path", path, "Why", why, "Name", name)
	}
	if data, err = os.ReadFile(path); err != nil {
		return "", nil, false, err
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return "", nil, false, SayError("steps.not_yaml", "Path", path, "Err", err)
	}
	if d := diff(obj); len(d) > 0 {
		return "", nil, false, FieldsError(Say(differsID, "Path", path), path, d)
	}
	sh.Comment("%s", Say("steps.file_yours", "Path", path, "Why", why))
	return path, data, true, nil
}

// FieldsError is a step's failure with one line per field to write.
func FieldsError(what, path string, lines []string) error {
	return fmt.Errorf("%s\n  %s", Say("steps.fields_error", "What", what, "Path", path), strings.Join(lines, "\n  "))
}

// Field is one field of a manifest the lab text gives, at Path, and the
// value it must hold (as YAML decodes it: a number is a float64).
type Field struct {
	Path []string
	Want any
}

// FieldsDiff compares a learner's manifest with the lab text's fields,
// one line per field to add or change: anything more is theirs to add.
func FieldsDiff(want []Field) func(map[string]any) []string {
	return func(obj map[string]any) []string {
		var lines []string
		for _, w := range want {
			var cur any = obj
			for _, p := range w.Path {
				m, _ := cur.(map[string]any)
				cur = m[p]
			}
			key, at := w.Path[len(w.Path)-1], strings.Join(w.Path[:len(w.Path)-1], ".")
			if at != "" {
				at += ": "
			}
			switch {
			case cur == nil:
				lines = append(lines, at+Say("steps.field.add", "Key", key, "Want", w.Want))
			case cur != w.Want:
				lines = append(lines, at+Say("steps.field.change", "Key", key, "Cur", cur, "Want", w.Want))
			}
		}
		return lines
	}
}
