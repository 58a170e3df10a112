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
	if err := WriteDropIn(ctx, m, "50-test", []string{"KUBECONFIG=/run/x/kubeconfig", "A=b c"}); err != nil {
		t.Fatal(err)
	}
	path := DropInPath(m, "50-test")
	if want := filepath.Join(unitDir, Name+".d", "50-test.conf"); path != want {
		t.Errorf("DropInPath = %s, want %s", path, want)
	}
	if got := dropInEnv(m.UnitPath()); !slices.Equal(got, []string{"KUBECONFIG=/run/x/kubeconfig", "A=b c"}) {
		t.Errorf("dropInEnv = %q", got)
	}
	if err := RemoveDropIn(ctx, m, "50-test"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the drop-in dir is left (stat: %v)", err)
	}
	if err := RemoveDropIn(ctx, m, "50-test"); err != nil {
		t.Errorf("removing a drop-in that is gone: %v, want nil", err)
	}
	if err := WriteDropIn(ctx, m, "50-test", []string{`A="x"`}); err == nil {
		t.Error("a value that needs quoting was written")
	}
}
