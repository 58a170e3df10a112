package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/labfile"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/internal/watch"
)

// FileWatchOptions are `cnpa watch` for a lab kept as a file: the step
// the learner is on (the first that does not pass) graded again when one
// of the lab's evidence files is saved (fsnotify, as the TeamSpace lab's
// watch) and every --poll, which is how a change of the objects its
// facts read is seen: the cluster is polled, by grading, not watched.
type FileWatchOptions struct {
	FileStepOptions
	Interval time.Duration
}

// Complete reads the command line into o.
func (o *FileWatchOptions) Complete(c *cli.Context) error {
	if err := o.FileStepOptions.Complete(c); err != nil {
		return err
	}
	o.Interval = c.Duration("poll")
	return nil
}

// Validate refuses an -o watch does not print.
func (o *FileWatchOptions) Validate() error {
	_, err := output(&o.globalOptions, "text", "json")
	return err
}

// Run grades the lab at every save and every interval until q, the end
// of the keys, or ctx: each time the verdict of the step the learner is
// on changes, it is shown (text as `cnpa check` shows a step; -o json
// one object a check, with the keys of the TeamSpace lab's watch).
func (o *FileWatchOptions) Run(ctx context.Context) error {
	lang := i18n.Current()
	l, src, err := loadLab(o.Lab, lang)
	if err != nil {
		return err
	}
	dir, err := evidenceDir(o.dirGiven(l))
	if err != nil {
		return err
	}
	if !anyEvidence(l, dir) {
		return cli.Exit(lang.T("labfile.out.no_evidence", i18n.Args{"Dir": dir, "Lab": l.Metadata.Name}), 1)
	}
	e, done, err := labEngine(&o.globalOptions, l, src)
	if err != nil {
		return err
	}
	defer done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	files := watch.Watched{}
	for i, s := range l.Steps {
		files[filepath.Join(dir, s.Evidence.File)] = i + 1
	}
	warn := ui.New(ui.CleanWriter(o.ErrOut), o.NoColor)
	saved, err := watch.Files(ctx, files, watch.Debounce, func(s string) { warn.Warn("%s", s) })
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	in, err := fileOf(o.In)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	keys, restore, err := watch.Keys(in, false)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	defer restore()
	p := printer(o.Out, o.NoColor)
	note := p
	if o.Output == "json" {
		note = warn // stdout is one JSON object a line
	}
	note.Note("%s", lang.T("labfile.out.watching", i18n.Args{"Lab": l.Metadata.Name, "Dir": dir, "Interval": o.Interval}))
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	last := ""
	for {
		rep, err := e.Grade(ctx, dir, "")
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return cli.Exit(ui.CleanLines(err.Error()), 2)
		}
		step := currentStep(rep)
		shown := &labfile.Report{Lab: rep.Lab, Steps: []labfile.StepReport{step}}
		if key, _ := json.Marshal(shown); string(key) != last {
			last = string(key)
			if o.Output == "json" {
				now := time.Now().UTC()
				for _, c := range step.Checks {
					v := watch.Verdict{Step: l.StepIndex(step.Step) + 1, ID: c.Check, Status: judge.Status(c.Status),
						Expected: c.Want, Actual: c.Got, At: now}
					if c.Reason != "" {
						v.Actual = lang.T(c.Reason, c.Args)
					}
					if err := json.NewEncoder(o.Out).Encode(v); err != nil {
						return err
					}
				}
			} else {
				l.WriteText(p, lang, shown, labfile.LoadHints(dir, l.Metadata.Name), false)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case k, ok := <-keys:
			if !ok || k == 'q' {
				return nil
			}
		case <-saved:
		case <-tick.C:
		}
	}
}

// currentStep is the step the learner is on: the first whose checks do
// not all pass, the last when every one does.
func currentStep(rep *labfile.Report) labfile.StepReport {
	for _, s := range rep.Steps {
		if !s.Passed() {
			return s
		}
	}
	return rep.Steps[len(rep.Steps)-1]
}
