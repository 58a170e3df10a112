package labenv

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
)

// ContextFile is the kubeconfig cnpa writes in the evidence dir when
// --context names a context: it sets current-context and nothing else (no
// cluster, no user, no credential).
const ContextFile = "cnpa-op.context.kubeconfig"

// CommandKubeconfig is the KUBECONFIG of every command cnpa writes or
// starts: reconcile.sh, cnpa-op.service, and the runs of reconcile.sh by
// `cnpa step` and `cnpa check`. Without --context it is the kubeconfig in
// use. With --context NAME it is "<dir>/cnpa-op.context.kubeconfig:<kubeconfig>":
// kubectl and client-go merge the files of a KUBECONFIG list and take
// current-context from the first file that sets it, so that small file
// points every kubectl at NAME, in cnpa's scripts and in the learner's own
// (which cnpa never rewrites, and kubectl has no environment variable for
// a context). The Go engine is also given --context NAME outright.
func (e *Env) CommandKubeconfig() (string, error) {
	if !e.Target.ContextGiven {
		return e.Target.Path, nil
	}
	if strings.ContainsRune(e.Dir, os.PathListSeparator) {
		return "", i18n.NewError("labenv.context_dir", i18n.Args{"Context": e.Target.Context, "Dir": e.Dir,
			"Separator": fmt.Sprintf("%q", os.PathListSeparator)})
	}
	return filepath.Join(e.Dir, ContextFile) + string(os.PathListSeparator) + e.Target.Path, nil
}

// writeContextFile writes ContextFile for --context, before anything that
// CommandKubeconfig names it to runs; without --context it writes nothing.
func (e *Env) writeContextFile() error {
	if !e.Target.ContextGiven {
		return nil
	}
	// A JSON string is a YAML scalar: any context name is written exactly.
	name, _ := json.Marshal(e.Target.Context)
	data := fmt.Sprintf(`# Written by cnpa for --context %s. cnpa's reconcile.sh and cnpa-op.service
# run with KUBECONFIG=<this file>:<your kubeconfig>; kubectl merges the two
# and takes current-context from the first file that sets it: this one.
# Clusters, users and credentials all come from your kubeconfig.
apiVersion: v1
kind: Config
current-context: %s
`, name, name)
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		return err
	}
	_, err := evidence.WriteRaw(e.Dir, ContextFile, []byte(data), 0o644)
	return err
}

// PrivateTmpWarnings says which of the paths the unit names lies under
// /tmp or /var/tmp, where a systemd service with PrivateTmp=yes sees a
// private, empty directory instead: the service could not read or write
// them. Only a systemd service is concerned; process mode sees the real
// /tmp.
func (e *Env) PrivateTmpWarnings() []string {
	if e.Service == nil || e.Service.Name() != "systemd" {
		return nil
	}
	var out []string
	check := func(what, path string) { // what: the message saying so
		real := path
		if r, err := filepath.EvalSymlinks(path); err == nil {
			real = r
		}
		for _, tmp := range []string{"/tmp", "/var/tmp"} {
			if real == tmp || strings.HasPrefix(real, tmp+"/") {
				out = append(out, i18n.T(what, i18n.Args{"Path": path, "Tmp": tmp}))
				return
			}
		}
	}
	check("labenv.private_tmp_dir", e.Dir)
	for _, kc := range filepath.SplitList(e.Target.Path) {
		check("labenv.private_tmp_kubeconfig", kc)
	}
	return out
}
