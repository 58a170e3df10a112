package cluster

import (
	"context"
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
