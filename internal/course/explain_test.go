package course_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/lab"
)

// The commands `cnpa explain` gives to type by hand are written by hand;
// each must at least be one a shell accepts (bash -n parses without
// running), and every kubectl in them must use a verb the lab's kubectl has.
func TestExplainCommandsParse(t *testing.T) {
	verbs := map[string]bool{"apply": true, "get": true, "wait": true, "delete": true, "patch": true, "label": true,
		"describe": true, "edit": true, "create": true, "replace": true, "annotate": true, "auth": true}
	for _, s := range steps {
		n := s.Number
		if len(s.Explanation.Commands) == 0 {
			t.Errorf("step %d has no commands to type by hand", n)
		}
		for _, c := range s.Explanation.Commands {
			if strings.HasPrefix(c, "#") {
				continue
			}
			if out, err := exec.Command("bash", "-n", "-c", c).CombinedOutput(); err != nil {
				t.Errorf("step %d: %q does not parse: %v: %s", n, c, err, out)
			}
			for _, f := range strings.Split(c, "kubectl ")[1:] {
				if verb, _, _ := strings.Cut(f, " "); !verbs[verb] {
					t.Errorf("step %d: %q: kubectl %s is not a verb the lab uses", n, c, verb)
				}
			}
		}
	}
}

// Review row 14: in process mode (no systemd) the commands to type are
// cnpa service's, never a systemctl that cannot run there.
func TestExplainProcessMode(t *testing.T) {
	for _, s := range steps {
		text, err := steps.ExplainFor(s.Number, lab.Where{Dir: "/home/me/lab", UnitDir: "/home/me/units", ServiceManager: "process"})
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"systemctl", "journalctl", "/home/me/units/"} {
			if strings.Contains(text, bad) {
				t.Errorf("step %d in process mode shows %q:\n%s", s.Number, bad, text)
			}
		}
	}
	text, _ := steps.ExplainFor(7, lab.Where{Dir: "/home/me/lab", ServiceManager: "process"})
	for _, want := range []string{"$ cnpa service stop\n", "$ cnpa service start\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("step 7 in process mode lacks %q:\n%s", want, text)
		}
	}
	text, _ = steps.ExplainFor(7, lab.Where{Dir: "/root/cnpa-op", UnitDir: "/etc/systemd/system", ServiceManager: "systemd"})
	if !strings.Contains(text, "$ systemctl stop cnpa-op\n") {
		t.Errorf("step 7 under systemd lacks systemctl stop:\n%s", text)
	}
}
