package step4

import (
	"regexp"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// Grade is what `cnpa check` grades for step 4 (not once, but continuously):
// cnpa-op.service as installed and running now; the temporary TeamSpace it
// must serve is a live probe (probe.go, probe_converges.go).
var Grade = &judge.Step{Step: Step, Probes: Probes, Facts: []judge.Fact{
	{ID: "step4.unit_file", VM: true, TitleFor: func(f *judge.Facts) string {
		return i18n.T("check.title.step4.unit_file", i18n.Args{"Path": f.Service.UnitPath})
	},
		Hint: func(*judge.Evidence, *judge.Facts) string { return i18n.T("check.step4.unit_file.hint") },
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			switch {
			case f.UnitError != "":
				return lab.Holds(false, i18n.T("check.step4.unit_file.want"), f.UnitError)
			case f.OtherDir != "":
				v := lab.Holds(false, i18n.T("check.step4.unit_file.want_ours", i18n.Args{"Dir": f.Dir}), i18n.T("check.step4.unit_file.other", i18n.Args{"Dir": f.OtherDir}))
				// Step 4 never rewrites a unit it did not write as it is
				// (issue 39): it is moved away, then step 4 installs this
				// lab's.
				v.Advice = i18n.T("check.step4.unit_file.hint_other", i18n.Args{"Dir": f.OtherDir,
					"Move": "mv " + lab.QuoteArg(f.Service.UnitPath) + " " + lab.QuoteArg(f.Service.UnitPath+".another-lab")})
				return v
			}
			return lab.Holds(true, i18n.T("check.step4.unit_file.want"), i18n.T("check.step4.unit_file.exists"))
		}},
	{ID: "step4.restart_always", VM: true, Title: "check.title.step4.restart_always",
		// The unit is fixed where it is: cnpa never rewrites a unit that
		// is not its own as written (issue 39), and a hand edit makes it
		// the learner's.
		Hint: func(_ *judge.Evidence, f *judge.Facts) string {
			return i18n.T("check.step4.restart_always.hint", i18n.Args{"Unit": lab.QuoteArg(f.Service.UnitPath)})
		},
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			switch {
			case f.UnitError != "":
				return lab.Skipped(i18n.T("check.step4.skip_no_unit"))
			case f.OtherDir != "":
				return lab.Skipped(i18n.T("check.step4.skip_other_dir"))
			}
			m := restartLine.FindAllStringSubmatch(string(f.Unit), -1)
			if len(m) == 0 {
				return lab.Holds(false, "Restart=always", i18n.T("check.step4.no_restart_line"))
			}
			got := "Restart=" + m[len(m)-1][1]
			return lab.Holds(got == "Restart=always", "Restart=always", got)
		}},
	{ID: "step4.service_enabled", VM: true, TitleFor: func(f *judge.Facts) string {
		return i18n.T("check.title.step4.service_enabled", i18n.Args{"Service": lab.ServiceName, "Manager": f.Service.Manager})
	},
		Hint: func(_ *judge.Evidence, f *judge.Facts) string {
			if f.Service.Manager != "systemd" {
				return i18n.T("check.step4.service_enabled.hint_process")
			}
			return i18n.T("check.step4.service_enabled.hint", i18n.Args{"Service": lab.ServiceName})
		},
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			if f.OtherDir != "" {
				return lab.Skipped(i18n.T("check.step4.skip_other_dir"))
			}
			return lab.Same(true, f.Service.Enabled)
		}},
	{ID: "step4.service_active", Mistake: lab.MistakeNotRunning, VM: true, TitleFor: func(f *judge.Facts) string {
		return i18n.T("check.title.step4.service_active", i18n.Args{"Service": lab.ServiceName, "Manager": f.Service.Manager})
	},
		Hint: func(_ *judge.Evidence, f *judge.Facts) string {
			if f.Service.Manager != "systemd" && !f.Service.Installed && f.Engine != lab.EngineOwn {
				// cnpa's engine, its unit gone: step 4 installs and starts it.
				return i18n.T("check.step4.service_active.hint_no_unit")
			}
			if f.Service.Manager != "systemd" && !f.Service.Installed {
				// A lab done by hand on a machine without systemd: its
				// loop runs somewhere cnpa cannot see.
				return i18n.T("check.step4.service_active.hint_no_systemd")
			}
			return judge.HintStartService()
		},
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			if f.OtherDir != "" {
				return lab.Skipped(i18n.T("check.step4.skip_other_dir"))
			}
			switch {
			case f.Service.Restarting:
				// Between two runs of a unit that runs reconcile.sh once
				// per start: it keeps running, as the lab asks.
				return lab.Holds(true, "active", i18n.T("steps.step4.restarting"))
			case f.Service.Active:
				return lab.Holds(true, "active", i18n.T("check.step4.active_pid", i18n.Args{"PID": f.Service.MainPID}))
			}
			return lab.Holds(false, "active", "inactive")
		}},
}}

// restartLine matches a Restart= line of a unit; systemd takes the last.
var restartLine = regexp.MustCompile(`(?m)^\s*Restart\s*=\s*(\S*)\s*$`)
