package service

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A drop-in's Environment= reaches process mode's service after the
// unit's own (the last value wins, as under systemd), and removing it
// leaves nothing, not even its directory.
func TestDropInEnvironment(t *testing.T) {
	unitDir, dir := t.TempDir(), t.TempDir()
	m, err := New("process", unitDir, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := WriteDropIn(ctx, m, "50-test", []string{"KUBECONFIG=/run/x/kubeconfig", "A=b c"})
	if err != nil {
		t.Fatal(err)
	}
	path := DropInPath(m, "50-test")
	if want := filepath.Join(unitDir, Name+".d", "50-test.conf"); path != want {
		t.Errorf("DropInPath = %s, want %s", path, want)
	}
	if got := dropInEnv(m.UnitPath()); !slices.Equal(got, []string{"KUBECONFIG=/run/x/kubeconfig", "A=b c"}) {
		t.Errorf("dropInEnv = %q", got)
	}
	if !Held(m, "50-test") || len(Leftovers(m)) != 0 {
		t.Errorf("a drop-in its writer holds: held %t, leftovers %v, want held and none", Held(m, "50-test"), Leftovers(m))
	}
	if err := d.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the drop-in dir is left (stat: %v)", err)
	}
	if err := RemoveDropIn(ctx, m, "50-test"); err != nil {
		t.Errorf("removing a drop-in that is gone: %v, want nil", err)
	}
	if _, err := WriteDropIn(ctx, m, "50-test", []string{`A="x"`}); err == nil {
		t.Error("a value that needs quoting was written")
	}
}

// A drop-in whose writer is gone (its lock with it) is a leftover:
// RepairLeftovers removes it, and only cnpa's own; one the learner wrote
// stays. A held one is no leftover.
func TestDropInLeftover(t *testing.T) {
	unitDir, dir := t.TempDir(), t.TempDir()
	m, err := New("process", unitDir, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := WriteDropIn(ctx, m, "50-test", []string{"KUBECONFIG=/run/x/kubeconfig"})
	if err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(unitDir, Name+".d", "10-mine.conf")
	if err := os.WriteFile(theirs, []byte("[Service]\nEnvironment=A=b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.f.Close() // its writer dies: the kernel drops the lock
	left := Leftovers(m)
	if len(left) != 1 || left[0].Path != DropInPath(m, "50-test") || !slices.Equal(left[0].Env, []string{"KUBECONFIG=/run/x/kubeconfig"}) {
		t.Fatalf("Leftovers = %+v, want the one drop-in with its environment", left)
	}
	if Held(m, "50-test") {
		t.Error("Held: true for a drop-in no one holds")
	}
	removed, err := RepairLeftovers(ctx, m)
	if err != nil || len(removed) != 1 {
		t.Fatalf("RepairLeftovers = %v, %v", removed, err)
	}
	if _, err := os.Stat(DropInPath(m, "50-test")); !os.IsNotExist(err) {
		t.Errorf("the leftover is still there (stat: %v)", err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("the learner's own drop-in went too: %v", err)
	}
}
