package lab

// The replay: every `$ ` command `cnpa step all` showed, run by hand with
// bash on a fresh cluster, gives the same evidence. It proves that the
// commands the steps print are real, exact and complete: a learner who
// types them does the lab.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
	"github.com/labhub/cnpa/test/labassert"
)

// systemdStandIn replaces systemctl in the replay. The steps show the
// systemd commands a learner types on the lab's VM (`systemctl enable --now
// cnpa-op.service`), but this machine must never boot systemd (it would
// empty /tmp), and the steps ran the unit in process mode. So systemctl is
// a shell function here that does what systemd would with the unit file the
// replay wrote: its LoadCredential= lines (a private copy of each file in a
// credentials directory, which %d names and $CREDENTIALS_DIRECTORY holds),
// its Environment= lines, then its ExecStart (systemd's `$$` is `$`, its
// `%%` is `%`, its double quotes are bash's) in a session of its own; stop
// ends that session. The unit's content is thus replayed for real, only its
// manager is a stand-in.
const systemdStandIn = `
# unit_values KEY: the unit's KEY= values, with systemd's specifiers
# expanded: %d is the credentials directory, %% a literal %.
unit_values() {
  sed -n "s/^$1=//p" "$svc_unit" | sed "s/%%/\x01/g; s|%d|$svc_creds|g; s/\x01/%/g"
}
svc_start() {
  if [ -s "$svc_pidfile" ] && kill -0 "$(cat "$svc_pidfile")" 2>/dev/null; then return 0; fi
  local exec_line cred
  rm -rf "$svc_creds" && mkdir -m 700 "$svc_creds"
  # LoadCredential=ID:PATH, the path as written (its %% a %).
  while IFS= read -r cred; do cp "${cred#*:}" "$svc_creds/${cred%%:*}"; done < <(unit_values LoadCredential)
  # systemd's $$ is a literal $ (\$ for bash's eval).
  exec_line=$(unit_values ExecStart | sed 's/\$\$/\\$/g')
  (
    export CREDENTIALS_DIRECTORY="$svc_creds"
    # Environment="K=V" or Environment=K=V; systemd expands no $ there.
    while IFS= read -r kv; do eval "export $kv"; done < <(unit_values Environment | sed 's/\$/\\$/g')
    cd "$svc_dir"
    exec setsid bash -c 'eval exec "$1"' _ "$exec_line"
  ) >>"$svc_log" 2>&1 &
  echo $! > "$svc_pidfile"
}
svc_stop() {
  [ -s "$svc_pidfile" ] || return 0
  local pid i
  pid=$(cat "$svc_pidfile")
  kill -TERM -- "-$pid" 2>/dev/null || true
  for i in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$svc_pidfile"
}
systemctl() {
  case "$1" in
    daemon-reload) ;;
    enable|start) svc_start ;;
    stop) svc_stop ;;
    restart) svc_stop; svc_start ;;
    *) echo "systemctl $*: not in the replay's stand-in" >&2; return 1 ;;
  esac
}
trap svc_stop EXIT
`

// replayLab runs the commands shown in out (a `cnpa step all` run on
// cluster a, evidence in dirA, unit in unitDirA) on a fresh cluster, and
// checks that they give the same evidence: the same keys; equal values
// where a correct run is deterministic; uids and seconds, which differ by
// nature, judged by the lab's rules (package lab) against the new
// cluster, as labassert does for every lab run.
func replayLab(ctx context.Context, t *testing.T, out []byte, a *cluster.Cluster, dirA, unitDirA string) {
	cmds := kit.ShownCommands(string(out))
	// Every step shows commands; a run that printed few has lost some.
	if len(cmds) < 40 {
		t.Fatalf("cnpa step all showed %d commands, want every action (40 or more):\n%s", len(cmds), out)
	}
	b, err := cluster.Start(ctx, cluster.Options{Datastore: cluster.DatastoreEtcd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	work := t.TempDir()
	dirB, unitDirB := filepath.Join(work, "cnpa-op"), filepath.Join(work, "systemd")
	// The evidence dir and /etc/systemd/system exist on the lab's VM
	// before the learner types anything.
	for _, d := range []string{dirB, unitDirB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The only edits: where this machine keeps things. On the lab's VM the
	// evidence dir, the unit dir and the kubeconfig are one path each; here
	// the first run's paths belong to the first cluster.
	paths := strings.NewReplacer(a.Dir, b.Dir, dirA, dirB, unitDirA, unitDirB)
	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	script.WriteString("svc_unit=" + filepath.Join(unitDirB, "cnpa-op.service") + " svc_dir=" + dirB +
		" svc_pidfile=" + filepath.Join(work, "service.pid") + " svc_log=" + filepath.Join(work, "service.log") +
		" svc_creds=" + filepath.Join(work, "credentials") + "\n")
	script.WriteString(systemdStandIn)
	for _, c := range cmds {
		script.WriteString(paths.Replace(c) + "\n")
	}
	scriptPath := filepath.Join(work, "replay.sh")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", scriptPath)
	cmd.Dir = work
	// The shown waits are `until …; do sleep 0.2; done` loops: if the test
	// binary dies (a timeout, a kill), the loop must die with it rather
	// than poll a dead cluster for ever.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// cnpa on PATH for the `cnpa scaffold` the steps show.
	cmd.Env = append(b.Env(), "PATH="+filepath.Dir(cnpaBin)+":"+b.BinDir+":"+os.Getenv("PATH"))
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	start := time.Now()
	err = cmd.Run()
	t.Logf("replayed %d shown commands with bash in %s", len(cmds), time.Since(start).Round(time.Millisecond))
	if err != nil {
		service, _ := os.ReadFile(filepath.Join(work, "service.log"))
		t.Fatalf("the replay (%s) failed: %v\n%s\nservice log:\n%s", scriptPath, err, log.Bytes(), service)
	}

	labassert.Lab(ctx, t, b.Kubeconfig, dirB)
	stA, stB := course.Steps.Lab().Read(dirA), course.Steps.Lab().Read(dirB)
	for _, file := range course.Steps.Lab().Files() {
		va, errA := stA.Records[file].Strict()
		vb, errB := stB.Records[file].Strict()
		if errA != nil || errB != nil {
			t.Errorf("%s: first run %v, replay %v", file, errA, errB)
			continue
		}
		if len(va) != len(vb) {
			t.Errorf("%s: got keys %v in the replay, want %v", file, keys(vb), keys(va))
		}
		for k, want := range va {
			got, ok := vb[k]
			switch {
			case !ok:
				t.Errorf("%s: %s missing in the replay", file, k)
			case !deterministic(k):
				// Judged by labassert.Lab above against the replay's cluster.
			case jsonOf(got) != jsonOf(want):
				t.Errorf("%s: %s got %s in the replay, want %s as in the first run", file, k, jsonOf(got), jsonOf(want))
			}
		}
	}
}

// deterministic tells the keys whose value a correct run always has: not
// uids (the cluster makes them) nor restore_seconds (the clock).
func deterministic(key string) bool {
	return !strings.Contains(key, "uid") && key != "restore_seconds" && key != "archived"
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
