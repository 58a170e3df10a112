package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labfile"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/ui"
)

var classCommand = &cli.Command{
	Name:  "class",
	Usage: "the instructor's side: grade a whole class from the learners' submissions",
	Subcommands: []*cli.Command{
		withFlagValues(classGradeCommand),
	},
}

var classGradeCommand = &cli.Command{
	Name:      "grade",
	Usage:     "one gradebook of every learner's submission, judged again offline or live",
	ArgsUsage: "SUBMISSION...|DIR",
	Description: "Reads the learners' submission files (`cnpa submit` writes them), or every\n" +
		"*.json in DIR, and judges each one's evidence again by the lab's rules: the\n" +
		"results inside a submission are not trusted. Flags a submission whose recorded\n" +
		"results disagree with its evidence (tampered) or whose SHA-256 does not match\n" +
		"(edited), the same object uid in two learners' evidence (copied), two\n" +
		"learners on one cluster, a submission of another cnpa version, and, with\n" +
		"--roster, every learner with no submission.\n\n" +
		"With --live CLASS.yaml, each learner named there is graded again against\n" +
		"their own cluster, --parallel at a time: the evidence's uids against the live\n" +
		"objects, and the controller still converging, reverting drift and honouring\n" +
		"the finalizer, with temporary TeamSpaces (cnpa-check-*, always removed, also\n" +
		"on Ctrl-C). What only the VM can see (the unit, systemd, reruns of\n" +
		"reconcile.sh) is taken from the submission, marked \"as reported\".\n\n" +
		"CLASS.yaml: learners: [{name: alice, kubeconfig: PATH, context: NAME}]\n\n" +
		"A file that is not a submission, or two files of one learner, get their\n" +
		"rows and flags (unreadable, duplicate); the others are graded.\n\n" +
		"-o gradescope or classroom grades one submission into Gradescope's\n" +
		"results.json or GitHub Classroom's autograding result; -o canvas or moodle\n" +
		"writes the CSV each imports, with --roster a CSV of the identity columns the\n" +
		"LMS matches rows by. --policy FILE sets points, visibility, late rules and\n" +
		"exam mode (docs/class.md, \"Into an LMS\").\n\n" +
		"Exit code 0 when the gradebook is made; 1 when -o canvas or moodle leaves\n" +
		"a row out (named on stderr; every other row is written); 2 for bad input\n" +
		"(no file that is a submission, a roster with a name twice, a missing\n" +
		"kubeconfig).\n\n" +
		"With --lab NAME|DIR (a lab kept as a file) each submission is judged again\n" +
		"offline by that lab's engine; one of another lab, or of other files of it\n" +
		"(their SHA-256), is refused in a row of its own. --live, --html and --policy\n" +
		"are not there yet for it.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "roster", Usage: "`FILE` of the learners expected, one name a line, or a CSV with identity columns"},
		&cli.StringFlag{Name: "live", Usage: "grade live: `CLASS.yaml` says how to reach each learner's cluster"},
		&cli.IntFlag{Name: "parallel", Value: 4, Usage: "grade at most `N` learners live at once", Action: atLeast("parallel", 1)},
		&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "longest live grading of one learner", Action: positive("timeout")},
		&cli.DurationFlag{Name: "probe-timeout", Value: 30 * time.Second, Usage: "longest wait for a learner's controller in each live probe", Action: positive("probe-timeout")},
		&cli.StringFlag{Name: "html", Usage: "also write the class page to `FILE`"},
		&cli.StringFlag{Name: "metadata", Usage: "with -o gradescope: Gradescope's submission_metadata.json `FILE`, whose created_at the late rule goes by"},
		&cli.StringFlag{Name: "policy", Usage: "grade by the instructor's policy `FILE` (TOML: points, visibility, late rules, exam mode)"},
	},
	Action: func(c *cli.Context) error {
		return runOptions(c, &ClassGradeOptions{IOStreams: streamsOf(c), Lab: fileLab(c)})
	},
}

// The LMS formats of `cnpa class grade -o` (package gradebook).
const (
	lmsGradescope = "gradescope"
	lmsClassroom  = "classroom"
	lmsCanvas     = "canvas"
	lmsMoodle     = "moodle"
)

// writeLMS writes gb to w in the LMS format out, when out is one (lms true),
// whole or not at all: the output is made in memory, then written. An
// error is a roster the format cannot use, exit 2, naming the column.
// What the file cannot carry for the instructor alone (flags, points
// the learner reported, rows left out) goes to errOut; for Classroom,
// whose log the learner reads, the learner's feedback does. A Canvas or Moodle row left
// out never withholds the others: they are written, and the exit is 1.
func writeLMS(w, errOut io.Writer, out string, gb *class.Gradebook, policy *gradebook.Policy, roster *gradebook.Roster, received time.Time, took time.Duration) (lms bool, err error) {
	rows := class.Results(gb)
	// One submission, one row: the roster's learners without one are
	// the class's, not this submission's.
	one := rows[0]
	for _, r := range rows {
		if r.Graded != class.GradedMissing {
			one = r
			break
		}
	}
	if !received.IsZero() {
		one.SubmittedAt = received
	}
	var buf bytes.Buffer
	var rep *gradebook.Report
	switch out {
	case lmsGradescope:
		err = gradebook.WriteGradescope(&buf, gradebook.Gradescope(one, policy, took))
		rep = &gradebook.Report{Notes: gradebook.InstructorNotes([]*gradebook.Result{one}, policy)}
	case lmsClassroom:
		res := gradebook.Classroom(one, policy, gb.GradedAt)
		err = gradebook.WriteClassroom(&buf, res)
		// The Actions log is the learner's: the feedback, never a flag.
		rep = &gradebook.Report{Notes: gradebook.ClassroomLog(res)}
	case lmsCanvas:
		rep, err = gradebook.Canvas(&buf, rows, policy, roster)
	case lmsMoodle:
		rep, err = gradebook.Moodle(&buf, rows, policy, roster)
	default:
		return false, nil
	}
	if err != nil {
		return true, cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return true, err
	}
	if rep == nil {
		return true, nil
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(errOut, n)
	}
	if len(rep.Left) > 0 {
		return true, cli.Exit(ui.CleanLines(errors.Join(append(rep.Left, errors.New(i18n.T("cli.class.left_out", i18n.Args{"N": len(rep.Left)})))...).Error()), 1)
	}
	return true, nil
}

// fileExists tells whether path names anything at all.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// ClassGradeOptions are `cnpa class grade`'s flags and arguments.
type ClassGradeOptions struct {
	IOStreams
	globalOptions
	// Submissions are the arguments: submission files, or one DIR.
	Submissions                          []string
	Roster, Live, HTML, Metadata, Policy string
	Parallel                             int
	Timeout, ProbeTimeout                time.Duration
	// Lab is --lab when it names a lab kept as a file, "" for the
	// TeamSpace lab: the lab every submission must be of.
	Lab string

	out string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *ClassGradeOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.Submissions = c.Args().Slice()
	o.Roster, o.Live, o.HTML, o.Metadata, o.Policy = c.String("roster"), c.String("live"), c.String("html"), c.String("metadata"), c.String("policy")
	o.Parallel, o.Timeout, o.ProbeTimeout = c.Int("parallel"), c.Duration("timeout"), c.Duration("probe-timeout")
	return nil
}

// Validate refuses an -o grade does not print, no submissions, and flags
// the format asked for cannot use or go without.
func (o *ClassGradeOptions) Validate() error {
	out, err := output(&o.globalOptions, "text", "json", "csv", "junit", lmsGradescope, lmsClassroom, lmsCanvas, lmsMoodle)
	if err != nil {
		return err
	}
	if len(o.Submissions) == 0 {
		return usageError("%s", i18n.T("cli.class.give_submissions"))
	}
	if (out == lmsCanvas || out == lmsMoodle) && o.Roster == "" {
		return usageError("%s", i18n.T("cli.class.needs_roster", i18n.Args{"Format": out}))
	}
	if o.Metadata != "" && out != lmsGradescope {
		return usageError("%s", i18n.T("cli.class.metadata_gradescope"))
	}
	if o.Lab != "" {
		// Graded offline by the lab's engine: what needs the TeamSpace
		// lab's machinery is not there yet for a file lab.
		for _, f := range []struct{ name, value string }{{"--live", o.Live}, {"--html", o.HTML}, {"--policy", o.Policy}} {
			if f.value != "" {
				return usageError("%s", i18n.T("cli.class.lab_flag", i18n.Args{"Flag": f.name, "Lab": o.Lab}))
			}
		}
	}
	o.out = out
	return nil
}

// Run grades the submissions (live too, with --live) and writes the
// gradebook: exit 2 for input it cannot grade.
func (o *ClassGradeOptions) Run(ctx context.Context) error {
	out := o.out
	var policy *gradebook.Policy
	var err error
	if p := o.Policy; p != "" {
		if policy, err = class.ReadPolicy(p); err != nil {
			return cli.Exit(ui.CleanLines(err.Error()), 2)
		}
	}
	var fl *class.FileLab
	if o.Lab != "" {
		lang := i18n.Current()
		l, src, err := loadLab(o.Lab, lang)
		if err != nil {
			return err
		}
		hash, err := labfile.Hash(src.FS)
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		fl = &class.FileLab{Lab: l, Hash: hash, Where: src.Where, Lang: lang}
	}
	started := time.Now()
	subs, unreadable, err := class.Load(o.Submissions)
	if err == nil {
		// A submission of another lab is refused, with its row: it is
		// graded only with the lab it was made with.
		var refused []*submission.Error
		subs, refused = class.Admit(subs, fl)
		unreadable = append(unreadable, refused...)
		if len(subs) == 0 && !((out == lmsGradescope || out == lmsClassroom) && len(o.Submissions) == 1) {
			var errs []error
			for _, u := range unreadable {
				errs = append(errs, u)
			}
			return cli.Exit(ui.CleanLines(errors.Join(errs...).Error()), 2)
		}
	}
	var bad *submission.Error
	one := (out == lmsGradescope || out == lmsClassroom) && len(o.Submissions) == 1
	switch {
	case err != nil && one && !fileExists(o.Submissions[0]):
		// No file where the LMS hands it over (a repository without
		// submission.json): a result of 0 that says so, for the reporter
		// to post, rather than no result at all.
		unreadable = []*submission.Error{{Path: o.Submissions[0], Problem: i18n.T("class.lms.no_file"), Fix: i18n.T("class.load.check_file")}}
	case err != nil && one && errors.As(err, &bad):
		// The one file an LMS hands over is not a submission: its
		// results say so, graded 0, rather than no results at all.
		unreadable = []*submission.Error{bad}
	case err != nil:
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	if n := len(subs) + len(unreadable); (out == lmsGradescope || out == lmsClassroom) && n != 1 {
		return usageError("%s", i18n.T("cli.class.one_submission", i18n.Args{"Format": out, "N": n}))
	}
	opts := class.Options{Version: version, Now: time.Now(), Unreadable: unreadable, Exam: policy != nil && policy.Exam, Lab: fl}
	var roster *gradebook.Roster
	if r := o.Roster; r != "" {
		if opts.Roster, roster, err = class.ReadRosterFile(r); err != nil {
			return cli.Exit(ui.CleanLines(err.Error()), 2)
		}
	}
	if html := o.HTML; html != "" {
		if fi, err := os.Stat(html); err == nil && fi.IsDir() {
			return usageError("%s", i18n.T("cli.html_is_dir", i18n.Args{"Out": html, "Example": filepath.Join(html, "class.html")}))
		}
	}
	if live := o.Live; live != "" {
		cf, err := class.ReadClassFile(live)
		if err != nil {
			return cli.Exit(ui.CleanLines(err.Error()), 2)
		}
		progress := ui.New(o.ErrOut, o.NoColor)
		progress.Note("%s", i18n.T("cli.class.grading_live", i18n.Args{"N": len(cf.Learners), "Parallel": o.Parallel}))
		opts.Live, err = class.GradeLive(ctx, cf, subs, class.LiveOptions{Parallel: o.Parallel,
			Timeout: o.Timeout, ProbeTimeout: o.ProbeTimeout,
			Progress: func(name string, r *class.LiveResult) {
				switch {
				case r.Report != nil:
					progress.Line("%s", i18n.T("cli.class.graded_live", i18n.Args{"Name": ui.Clean(name), "Took": r.Took.Round(time.Second),
						"Passed": r.Report.Passed, "Failed": r.Report.Failed}))
				default:
					// The detail may be the learner's server's own words.
					progress.Warn("%s", i18n.T("cli.class.not_graded_live", i18n.Args{"Name": ui.Clean(name), "Graded": r.Graded,
						"Took": r.Took.Round(time.Second), "Detail": ui.Clean(r.Detail)}))
				}
			}})
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
	}
	gb, err := class.Grade(subs, opts)
	if err != nil {
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	if html := o.HTML; html != "" {
		var buf bytes.Buffer
		if err := class.WriteHTML(&buf, gb); err != nil {
			return fmt.Errorf("render the class page: %w", err)
		}
		if err := atomicfile.WriteFile(html, buf.Bytes(), 0o644); err != nil {
			return cli.Exit(i18n.T("cli.submit.write", i18n.Args{"Path": html, "Err": err.Error()}), 2)
		}
		ui.New(o.ErrOut, o.NoColor).Note("%s", i18n.T("cli.class.wrote", i18n.Args{"Path": html}))
	}
	var received time.Time
	if m := o.Metadata; m != "" {
		if received, err = gradebook.GradescopeSubmittedAt(m); err != nil {
			return cli.Exit(ui.CleanLines("--metadata "+err.Error()), 2)
		}
	}
	if lms, err := writeLMS(o.Out, o.ErrOut, out, gb, policy, roster, received, time.Since(started)); lms {
		return err
	}
	switch out {
	case "json":
		return class.WriteJSON(o.Out, gb)
	case "csv":
		return class.WriteCSV(o.Out, gb)
	case "junit":
		return class.WriteJUnit(o.Out, gb)
	}
	class.WriteText(printer(o.Out, o.NoColor), gb)
	return nil
}
