package class

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/submission"
)

// Load reads the submissions named: files, or directories whose *.json
// files are all submissions. One bad file never stops the class: every
// file that cannot be read as a submission is returned in unreadable, for
// its row and flag in the gradebook (Options.Unreadable), and two
// submissions of one learner are both returned, for Grade to flag
// (FlagDuplicate). err is for the command line: a path that does not
// exist, a flag after the submissions, a directory with no *.json, or
// not one file that is a submission.
func Load(args []string) (subs []*submission.Submission, unreadable []*submission.Error, err error) {
	var paths []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return nil, nil, i18n.NewError("class.load.flag_after", i18n.Args{"Flag": a})
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w %s", a, err, i18n.T("class.load.give_files"))
		}
		if !fi.IsDir() {
			paths = append(paths, a)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(a, "*.json"))
		if err != nil {
			return nil, nil, err
		}
		if len(matches) == 0 {
			return nil, nil, i18n.NewError("class.load.no_json", i18n.Args{"Dir": a, "Name": submission.DefaultName})
		}
		sort.Strings(matches)
		paths = append(paths, matches...)
	}
	for _, p := range paths {
		s, err := submission.Read(p)
		var bad *submission.Error
		switch {
		case errors.As(err, &bad):
			unreadable = append(unreadable, bad)
		case err != nil:
			unreadable = append(unreadable, &submission.Error{Path: p, Problem: i18n.T("class.load.unreadable", i18n.Args{"Err": err.Error()}), Fix: i18n.T("class.load.check_file")})
		default:
			subs = append(subs, s)
		}
	}
	if len(subs) == 0 {
		var errs []error
		for _, u := range unreadable {
			errs = append(errs, u)
		}
		return nil, nil, errors.Join(errs...)
	}
	return subs, unreadable, nil
}

// MaxRoster is the largest roster read: a line per learner.
const MaxRoster = 1 << 20

// ReadRoster reads a roster: one learner's name a line; blank lines and
// lines starting with # are skipped. A name given twice is an error that
// names both lines.
func ReadRoster(path string) ([]string, error) {
	data, err := safefs.ReadFile(path, MaxRoster)
	if err != nil {
		return nil, fmt.Errorf("--roster %s: %w", path, err)
	}
	var names []string
	first := map[string]int{}
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if err := submission.CheckName(name); err != nil {
			errs = append(errs, i18n.NewError("class.load.roster_bad_name", i18n.Args{"Path": path, "Line": n, "Err": fmt.Sprint(err)}))
			continue
		}
		if at, dup := first[name]; dup {
			errs = append(errs, i18n.NewError("class.load.roster_twice", i18n.Args{"Path": path, "Name": strconv.Quote(name), "At": at, "Line": n}))
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
		return nil, i18n.NewError("class.load.roster_empty", i18n.Args{"Path": path})
	}
	return names, nil
}
