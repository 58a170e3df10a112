package check

import (
	"fmt"
	"regexp"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

// Step 4: not once, but continuously. cnpa-op.service as installed and
// running now; the temporary TeamSpace it must serve is a live probe
// (probe.go).
var step4Checks = &stepChecks{step: lab.Service, live: []liveCheck{
	{id: "step4.unit_file", titleFor: func(f *facts) string { return "the unit file " + f.service.UnitPath + " exists" },
		hint: hintText("run `cnpa step 4` again: it writes the unit"),
		judge: func(_ *evidenceSet, f *facts) verdict {
			switch {
			case f.unitErr != "":
				return holds(false, "a unit file", f.unitErr)
			case f.otherDir != "":
				v := holds(false, "this lab's unit (evidence dir "+f.dir+")", "the unit there serves another evidence dir, "+f.otherDir)
				v.hint = "that service is another lab's: `cnpa --dir " + f.otherDir + " check` grades it; `cnpa step 4` here installs this lab's in its place"
				return v
			}
			return holds(true, "a unit file", "exists")
		}},
	{id: "step4.restart_always", title: "the unit says Restart=always: the controller comes back after any exit",
		hint: hintText("run `cnpa step 4` again: it writes the unit with Restart=always"),
		judge: func(_ *evidenceSet, f *facts) verdict {
			switch {
			case f.unitErr != "":
				return skipped("no unit file (see step4.unit_file)")
			case f.otherDir != "":
				return skipped("the unit is another evidence dir's (see step4.unit_file)")
			}
			m := restartLine.FindAllStringSubmatch(string(f.unit), -1)
			got := "no Restart= line"
			if len(m) > 0 {
				got = "Restart=" + m[len(m)-1][1]
			}
			return holds(got == "Restart=always", "Restart=always", got)
		}},
	{id: "step4.service_enabled", titleFor: func(f *facts) string { return service.Name + " is enabled (" + f.service.Manager + ")" },
		hint: func(_ *evidenceSet, f *facts) string {
			if f.service.Manager != "systemd" {
				return "process mode has no boot-time start; the service counts as enabled once installed: run `cnpa step 4` again"
			}
			return "enable it: `systemctl enable " + service.Name + "` (or run `cnpa step 4` again)"
		},
		judge: func(_ *evidenceSet, f *facts) verdict {
			if f.otherDir != "" {
				return skipped("the unit is another evidence dir's (see step4.unit_file)")
			}
			return same(true, f.service.Enabled)
		}},
	{id: "step4.service_active", titleFor: func(f *facts) string { return service.Name + " is running (" + f.service.Manager + ")" },
		hint: func(_ *evidenceSet, f *facts) string {
			if f.service.Manager != "systemd" && !f.service.Installed && f.engine != labenv.EngineOwn {
				// cnpa's engine, its unit gone: step 4 installs and starts it.
				return "no unit installed: run `cnpa step 4` again: it writes the unit and starts the service"
			}
			if f.service.Manager != "systemd" && !f.service.Installed {
				// A lab done by hand on a machine without systemd: its
				// loop runs somewhere cnpa cannot see.
				return "no systemd here, and cnpa knows of no loop it can check: `cnpa step 4 --engine own --service-manager process` runs LAB.md's loop (bash -c 'while true; do <dir>/reconcile.sh; sleep 3; done') as a process cnpa can check"
			}
			return hintStartService
		},
		judge: func(_ *evidenceSet, f *facts) verdict {
			if f.otherDir != "" {
				return skipped("the unit is another evidence dir's (see step4.unit_file)")
			}
			if f.service.Active {
				return holds(true, "active", fmt.Sprintf("active, main pid %d", f.service.MainPID))
			}
			return holds(false, "active", "inactive")
		}},
}}

// restartLine matches a Restart= line of a unit; systemd takes the last.
var restartLine = regexp.MustCompile(`(?m)^\s*Restart\s*=\s*(\S*)\s*$`)
