package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestWatchFollowsSaves: `cnpa watch -o json` on step 3 judges the script
// again on every save, in English and in Japanese. A reconcile.sh that
// writes on every pass (a label with a new value each time) fails
// step3.rerun_writes_nothing; saved fixed, the verdict is pass again,
// though the fix's first rerun removes the label the broken one left (a
// write: stuck moment 16, where ✗ stayed on screen); a JSON file saved
// half-written is said to be incomplete and judged at the next save; a
// FIFO where an evidence file goes is said once, and watch goes on. The
// files are saved as an editor does (a temporary file renamed over), and
// watch changes none of them. The verdicts' values are asserted, not
// their timing (make bench's watch phase measures that).
func TestWatchFollowsSaves(t *testing.T) {
	for _, lang := range []string{"en", "ja"} {
		t.Run(lang, func(t *testing.T) { watchFollowsSaves(t, lang) })
	}
}

func watchFollowsSaves(t *testing.T, lang string) {
	c := cluster.Shared(t)
	e := kit.New(t, c)
	bin := kit.CnpaBinary(t)
	name := fmt.Sprintf("cli-watch-%d", time.Now().UnixNano()%1_000_000)
	e.Create(name, 1, "")

	work := t.TempDir()
	dir, units := filepath.Join(work, "cnpa-op"), filepath.Join(work, "systemd")
	for _, d := range []string{dir, units} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The learner is on step 3 (watch's position, as a restart finds it).
	if err := os.MkdirAll(filepath.Join(dir, ".cnpa"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cnpa", "watch.json"), []byte(`{"step": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The fix takes away what the broken version wrote, once: its first
	// rerun writes, the next does not.
	fixed := "#!/usr/bin/env bash\nif [ -n \"$(kubectl get teamspace " + name + " -o jsonpath='{.metadata.labels.stamp}')\" ]; then\n  kubectl label teamspace " + name + " stamp-\nfi\n"
	broken := "#!/usr/bin/env bash\nkubectl label teamspace " + name + " --overwrite stamp=\"$RANDOM$RANDOM\"\n"
	save := func(file, content string, mode os.FileMode) {
		t.Helper()
		tmp := filepath.Join(dir, "."+file+".swp")
		if err := os.WriteFile(tmp, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(tmp, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, file)); err != nil {
			t.Fatal(err)
		}
	}
	save("reconcile.sh", fixed, 0o755)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", c.Kubeconfig, "--dir", dir, "--no-color",
		"--lang", lang, "watch", "-o", "json", "--service-manager", "process", "--unit-dir", units)
	cmd.Env = append(c.Env(), "HOME="+work)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		Step     int    `json:"step"`
		ID       string `json:"id"`
		Status   string `json:"status"`
		Expected string `json:"expected"`
		Actual   string `json:"actual"`
		At       string `json:"at"`
	}
	verdicts := make(chan verdict, 100)
	go func() {
		defer close(verdicts)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var v verdict
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Errorf("not one JSON object a line: %q: %v", sc.Text(), err)
				continue
			}
			verdicts <- v
		}
	}()
	const id = "step3.rerun_writes_nothing"
	// await reads verdicts until id's has status want; ctx bounds it.
	await := func(want, after string) verdict {
		t.Helper()
		for {
			select {
			case v, ok := <-verdicts:
				if !ok {
					t.Fatalf("watch ended before %s was %s (%s)\n%s", id, want, after, stderr.String())
				}
				if v.ID == id {
					if v.Status != want {
						t.Logf("%s: %s (%s), waiting for %s", id, v.Status, v.Actual, want)
						continue
					}
					return v
				}
			case <-ctx.Done():
				t.Fatalf("no %s %s %s\n%s", id, want, after, stderr.String())
			}
		}
	}
	if v := await("pass", "at the start, with the fixed script"); v.At == "" || v.Expected == "" {
		t.Errorf("verdict %+v: want expected and at", v)
	}
	save("reconcile.sh", broken, 0o755)
	if v := await("fail", "after saving a script that writes every pass"); !strings.Contains(v.Actual, "teamspace/"+name) {
		t.Errorf("failed verdict's actual %q: want it to name teamspace/%s", v.Actual, name)
	}
	// Half a JSON file: said, not judged; the script's fix is, and
	// passes, though its first rerun removes the broken one's label.
	save("reconcile.json", `{"quota_uid": "`, 0o644)
	save("reconcile.sh", fixed, 0o755)
	await("pass", "after saving the fix")
	// A FIFO where drift.json goes: said, and watch goes on judging.
	fifo := filepath.Join(dir, "drift.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	save("reconcile.sh", broken, 0o755)
	await("fail", "after the FIFO, the broken script again")
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	save("reconcile.sh", fixed, 0o755)
	await("pass", "after the FIFO went, the fix again")

	if _, err := stdin.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("cnpa watch after q: %v\n%s", err, stderr.String())
	}
	said := map[string][]string{
		"en": {"reconcile.json is incomplete", "cannot read drift.json: not a regular file (prw-r--r--)"},
		"ja": {"reconcile.jsonは不完全です", "drift.jsonを読めません: 通常のファイルではない（prw-r--r--）"},
	}
	for _, want := range said[lang] {
		if n := strings.Count(stderr.String(), want); n != 1 {
			t.Errorf("stderr says %q %d times, want once:\n%s", want, n, stderr.String())
		}
	}
	// Nothing of the learner's changed; watch kept only its position.
	for file, want := range map[string]string{"reconcile.sh": fixed, "reconcile.json": `{"quota_uid": "`} {
		if got, err := os.ReadFile(filepath.Join(dir, file)); err != nil || string(got) != want {
			t.Errorf("%s is %q (%v), want it as saved: %q", file, got, err, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	if got := strings.Join(names, " "); got != ".cnpa reconcile.json reconcile.sh" {
		t.Errorf("the evidence dir holds %q, want only .cnpa and the learner's two files", got)
	}
}
