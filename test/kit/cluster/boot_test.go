package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBootTurnBoundsBoots: with bootSlots turns held, one more waits (here
// until its context ends) and gets a turn as soon as one is given back.
func TestBootTurnBoundsBoots(t *testing.T) {
	ctx := context.Background()
	var held []func()
	for range bootSlots {
		release, err := bootTurn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if release, err := bootTurn(short); err == nil {
		release()
		t.Fatalf("a boot beyond %d got a turn while %d were held", bootSlots, bootSlots)
	}
	held[0]()
	release, err := bootTurn(ctx)
	if err != nil {
		t.Fatalf("no turn after one was given back: %v", err)
	}
	release()
	for _, r := range held[1:] {
		r()
	}
}

// TestBootLocksAreTheUsers: the boot slots' lock files live in a dir of
// this user's that no one else can enter, not under fixed names in the
// shared temp dir, where another user could hold every slot (issue 40).
func TestBootLocksAreTheUsers(t *testing.T) {
	dir, err := lockDir()
	if err != nil {
		t.Fatal(err)
	}
	if dir == os.TempDir() {
		t.Errorf("the lock dir is the shared temp dir %s", dir)
	}
	if err := ownPrivate(dir); err != nil {
		t.Errorf("the lock dir: %v", err)
	}
	// A dir of the expected name open to others is refused.
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if err := privateDir(open); err == nil {
		t.Errorf("privateDir of a dir of mode 0777: got nil, want a refusal")
	}
}
