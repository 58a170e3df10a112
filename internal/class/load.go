package class

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/labhub/cnpa/internal/submission"
)

// Load reads the submissions named: files, or directories whose *.json
// files are all submissions. Every file that cannot be read is reported,
// not only the first, and so are two submissions of one learner.
func Load(args []string) ([]*submission.Submission, error) {
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return nil, fmt.Errorf("%s comes after the submissions: put every flag before them (`cnpa class grade %s … DIR`)", a, a)
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (give submission files, or a directory of them)", a, err)
		}
		if !fi.IsDir() {
			paths = append(paths, a)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(a, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s holds no *.json file: put the learners' %s files there (one per learner, any name ending in .json)", a, submission.DefaultName)
		}
		sort.Strings(matches)
		paths = append(paths, matches...)
	}
	var subs []*submission.Submission
	var errs []error
	by := map[string]string{}
	for _, p := range paths {
		s, err := submission.Read(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if first, dup := by[s.Learner]; dup {
			errs = append(errs, fmt.Errorf("%s and %s are both submissions of learner %q: keep the one to grade (the later one is submitted_at %s)", first, p, s.Learner, s.SubmittedAt.UTC().Format("2006-01-02 15:04:05")))
			continue
		}
		by[s.Learner] = p
		subs = append(subs, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return subs, nil
}

// ReadRoster reads a roster: one learner's name a line; blank lines and
// lines starting with # are skipped. A name given twice is an error that
// names both lines.
func ReadRoster(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--roster %s: %w", path, err)
	}
	defer f.Close()
	var names []string
	first := map[string]int{}
	var errs []error
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if at, dup := first[name]; dup {
			errs = append(errs, fmt.Errorf("roster %s: %q is on line %d and again on line %d: give each learner once", path, name, at, n))
			continue
		}
		first[name] = n
		names = append(names, name)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("roster %s: %w", path, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("roster %s names nobody: one learner's name a line", path)
	}
	return names, nil
}
