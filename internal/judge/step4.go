package judge

import (
	"fmt"
	"regexp"

	"github.com/labhub/cnpa/internal/lab"
)

// Step 4: not once, but continuously. cnpa-op.service as installed and
// running now; the temporary TeamSpace it must serve is a live probe
// (package check, probe_converges.go).
var step4Checks = &stepChecks{step: lab.Service, facts: []factCheck{
	{id: "step4.unit_file", vm: true, titleFor: func(f *Facts) string { return "the unit file " + f.Service.UnitPath + " exists" },
		hint: hintText("run `cnpa step 4` again: it writes the unit"),
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			switch {
			case f.UnitError != "":
				return Holds(false, "a unit file", f.UnitError)
			case f.OtherDir != "":
				v := Holds(false, "this lab's unit (evidence dir "+f.Dir+")", "the unit there serves another evidence dir, "+f.OtherDir)
				// Step 4 never rewrites a unit it did not write as it is
				// (issue 39): it is moved away, then step 4 installs this
				// lab's.
				v.Hint = "that service is another lab's: `cnpa --dir " + f.OtherDir + " check` grades it; to serve this lab, move it away (`mv " +
					lab.QuoteArg(f.Service.UnitPath) + " " + lab.QuoteArg(f.Service.UnitPath+".another-lab") + "`), then run `cnpa step 4`"
				return v
			}
			return Holds(true, "a unit file", "exists")
		}},
	{id: "step4.restart_always", vm: true, title: "the unit says Restart=always: the controller comes back after any exit",
		// The unit is fixed where it is: cnpa never rewrites a unit that
		// is not its own as written (issue 39), and a hand edit makes it
		// the learner's.
		hint: func(_ *evidenceSet, f *Facts) string {
			return "write Restart=always in its [Service] section (`sed -i 's/^Restart=.*/Restart=always/' " + lab.QuoteArg(f.Service.UnitPath) +
				"`), then run `cnpa step 4`"
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			switch {
			case f.UnitError != "":
				return Skipped("no unit file (see step4.unit_file)")
			case f.OtherDir != "":
				return Skipped("the unit is another evidence dir's (see step4.unit_file)")
			}
			m := restartLine.FindAllStringSubmatch(string(f.Unit), -1)
			got := "no Restart= line"
			if len(m) > 0 {
				got = "Restart=" + m[len(m)-1][1]
			}
			return Holds(got == "Restart=always", "Restart=always", got)
		}},
	{id: "step4.service_enabled", vm: true, titleFor: func(f *Facts) string { return lab.ServiceName + " is enabled (" + f.Service.Manager + ")" },
		hint: func(_ *evidenceSet, f *Facts) string {
			if f.Service.Manager != "systemd" {
				return "process mode has no boot-time start; the service counts as enabled once installed: run `cnpa step 4` again"
			}
			return "enable it: `systemctl enable " + lab.ServiceName + "` (or run `cnpa step 4` again)"
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			if f.OtherDir != "" {
				return Skipped("the unit is another evidence dir's (see step4.unit_file)")
			}
			return Same(true, f.Service.Enabled)
		}},
	{id: "step4.service_active", vm: true, titleFor: func(f *Facts) string { return lab.ServiceName + " is running (" + f.Service.Manager + ")" },
		hint: func(_ *evidenceSet, f *Facts) string {
			if f.Service.Manager != "systemd" && !f.Service.Installed && f.Engine != lab.EngineOwn {
				// cnpa's engine, its unit gone: step 4 installs and starts it.
				return "no unit installed: run `cnpa step 4` again: it writes the unit and starts the service"
			}
			if f.Service.Manager != "systemd" && !f.Service.Installed {
				// A lab done by hand on a machine without systemd: its
				// loop runs somewhere cnpa cannot see.
				return "no systemd here, and cnpa knows of no loop it can check: `cnpa step 4 --engine own --service-manager process` runs LAB.md's loop (bash -c 'while true; do <dir>/reconcile.sh; sleep 3; done') as a process cnpa can check"
			}
			return hintStartService
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			if f.OtherDir != "" {
				return Skipped("the unit is another evidence dir's (see step4.unit_file)")
			}
			if f.Service.Active {
				return Holds(true, "active", fmt.Sprintf("active, main pid %d", f.Service.MainPID))
			}
			return Holds(false, "active", "inactive")
		}},
}}

// restartLine matches a Restart= line of a unit; systemd takes the last.
var restartLine = regexp.MustCompile(`(?m)^\s*Restart\s*=\s*(\S*)\s*$`)
