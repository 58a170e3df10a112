package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestLearnersFilesKept is the review's M3 on a real control plane, for the
// go and the shell engine: a learner's own reconcile.sh, crd.yaml and
// alpha.yaml are in the evidence dir before `cnpa step all`. Not the
// lab's, step 1 fails naming what to write, with --force too; made the
// lab's, step 1 applies them as they are (issue 39), and every file keeps
// its content (sha256) throughout; reconcile.sh is refused at step 3, with
// --force too (the message names --engine own and moving it away). Moved
// away, step 3 runs; then the learner edits its evidence file
// (reconcile.json), and step 3 again refuses it until --force, which keeps
// it as a backup too. (A learner's whole evidence file of steps 1, 2 and
// 7, or one a later file depends on, is kept as it is and the step not
// run: nothing is written, nothing lost.)
func TestLearnersFilesKept(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, engine := range []string{"go", "shell"} {
		t.Run(engine, func(t *testing.T) {
			// A cluster each: step 1 refuses a cluster past it.
			cl, err := cluster.Start(ctx, cluster.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cl.Stop)
			learnersFiles(ctx, t, cl, engine)
		})
	}
}

func learnersFiles(ctx context.Context, t *testing.T, cl *cluster.Cluster, engine string) {
	l := kit.NewLab(ctx, t, cl, cnpaBin)
	l.Quiet = true
	dir, unitDir := l.Dir, l.UnitDir
	cnpa := l.CombinedOutput
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := map[string]string{
		"reconcile.sh": "#!/bin/bash\n# my own controller, LAB.md step 3\nkubectl get teamspaces\n",
		"crd.yaml":     "# my CRD, typed by hand\n",
		"alpha.yaml":   "# my alpha\n",
	}
	sums := map[string]string{}
	for name, content := range mine {
		mode := os.FileMode(0o644)
		if name == "reconcile.sh" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		sums[name] = sum([]byte(content))
	}
	unchanged := func(when string) {
		t.Helper()
		for name, want := range sums {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || sum(data) != want {
				t.Errorf("%s: your %s changed (err %v): sha256 %s, want %s", when, name, err, sum(data), want)
			}
		}
	}
	stepAll := []string{"step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir}

	// Files that are not LAB.md step 1's: step 1 fails with a line per
	// field naming what to write, and never replaces them, --force or not.
	for _, args := range [][]string{stepAll, append(stepAll, "--force")} {
		out, err := cnpa(args...)
		if err == nil || !strings.Contains(string(out), "your "+filepath.Join(dir, "crd.yaml")+" differs from the lab text's step 1") ||
			!strings.Contains(string(out), "add apiVersion: apiextensions.k8s.io/v1") {
			t.Fatalf("cnpa %s over a crd.yaml that is not the lab's: err %v, want step 1 to fail naming what to write:\n%s", strings.Join(args, " "), err, out)
		}
		unchanged("after " + strings.Join(args, " ") + " failed at step 1")
	}
	// Made the lab's (with a short name of the learner's), they are
	// applied as they are; reconcile.sh is still refused at step 3, even
	// with --force (the message names --engine own and moving it away).
	for name, content := range map[string]string{
		"crd.yaml":   strings.Replace(string(assets.CRD), "    singular: teamspace\n", "    singular: teamspace\n    shortNames: [ts]\n", 1),
		"alpha.yaml": "# my alpha\napiVersion: platform.labhub.io/v1alpha1\nkind: TeamSpace\nmetadata:\n  name: alpha\nspec:\n  pods: 4\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		sums[name] = sum([]byte(content))
	}
	out, err := cnpa(append(stepAll, "--force")...)
	if err == nil || !strings.Contains(string(out), "reconcile.sh is yours") ||
		!strings.Contains(string(out), "--engine own") || !strings.Contains(string(out), "move yours away") {
		t.Fatalf("cnpa step all --force over your reconcile.sh: err %v, want step 3's refusal naming --engine own and moving it away:\n%s", err, out)
	}
	for _, name := range []string{"crd.yaml", "alpha.yaml"} {
		if want := filepath.Join(dir, name) + " is yours (cnpa did not write it): cnpa applies it as it is"; !strings.Contains(kit.Unwrapped(string(out)), want) {
			t.Errorf("step 1 does not say %q:\n%s", want, out)
		}
	}
	backups := func(names ...string) {
		t.Helper()
		for _, name := range names {
			baks, _ := filepath.Glob(filepath.Join(dir, name+".bak-*"))
			if len(baks) != 1 {
				t.Errorf("--force: %d backups of %s (%v), want 1", len(baks), name, baks)
				continue
			}
			if data, _ := os.ReadFile(baks[0]); sum(data) != sums[name] {
				t.Errorf("--force: %s holds sha256 %s, want yours %s", baks[0], sum(data), sums[name])
			}
			if !strings.Contains(string(out), "kept your "+filepath.Join(dir, name)+" as "+baks[0]) {
				t.Errorf("--force: the step does not say it kept %s as %s:\n%s", name, baks[0], out)
			}
			delete(sums, name)
		}
	}
	unchanged("after step all --force")
	if baks, _ := filepath.Glob(filepath.Join(dir, "*.yaml.bak-*")); len(baks) != 0 {
		t.Errorf("--force made backups of your step 1 files (%v): cnpa uses them, never writes over them", baks)
	}
	if baks, _ := filepath.Glob(filepath.Join(dir, "reconcile.sh.bak-*")); len(baks) != 0 {
		t.Errorf("--force made a backup of reconcile.sh (%v): it must never write over it", baks)
	}

	// Moved away, cnpa's engine is installed and the step passes.
	if err := os.Rename(filepath.Join(dir, "reconcile.sh"), filepath.Join(dir, "reconcile.sh.mine")); err != nil {
		t.Fatal(err)
	}
	delete(sums, "reconcile.sh")
	if out, err := cnpa("step", "3"); err != nil {
		t.Fatalf("cnpa step 3 with reconcile.sh moved away: %v\n%s", err, out)
	}
	// The learner edits step 3's evidence: it is theirs now.
	edited := []byte(`{"quota_uid": "mine", "namespace_owner_uid": "mine", "second_pass_rv_changed": false}` + "\n")
	if err := os.WriteFile(filepath.Join(dir, lab.ReconcileFile), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	sums[lab.ReconcileFile] = sum(edited)
	out, err = cnpa("step", "3")
	if err == nil || !strings.Contains(string(out), filepath.Join(dir, lab.ReconcileFile)+" is yours") {
		t.Fatalf("cnpa step 3 over your reconcile.json: err %v, want a refusal naming it:\n%s", err, out)
	}
	unchanged("after step 3 refused reconcile.json")
	if out, err = cnpa("step", "3", "--force"); err != nil {
		t.Fatalf("cnpa step 3 --force with reconcile.sh moved away: %v\n%s", err, out)
	}
	backups(lab.ReconcileFile)
	// And cnpa's own files stay cnpa's: step 3 again rewrites its script
	// and its evidence.
	if out, err := cnpa("step", "3"); err != nil {
		t.Errorf("cnpa step 3 again over cnpa's own files: %v\n%s", err, out)
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
