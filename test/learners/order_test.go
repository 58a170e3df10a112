package learners

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// startOrder makes TestCorpus's runs take their control-plane slots in the
// order they were started in, which TestCorpus sorts longest first. go
// test alone does not keep that order: its parallel subtests all wake at
// once when the parent returns, and the scheduler readies them in an
// order of its own (a run of 2026-12-03 began with three cases sorted in
// the middle).
//
// A run takes a ticket before t.Parallel, when subtests still run one at
// a time in t.Run's order; it may wait for a slot only once every earlier
// ticket has taken its slot or ended.
type startOrder struct {
	mu      sync.Mutex
	issued  int
	next    int          // the ticket whose turn it is
	done    map[int]bool // tickets that took their slot or ended
	turns   map[string]int
	changed chan struct{} // closed and replaced when next moves
}

var order = &startOrder{done: map[int]bool{}, turns: map[string]int{}, changed: make(chan struct{})}

// take gives t the next ticket. When t ends without taking a slot (a
// case that fails before its lab, or has nothing to do), its turn passes.
func (o *startOrder) take(t *testing.T) {
	o.mu.Lock()
	ticket := o.issued
	o.issued++
	o.turns[t.Name()] = ticket
	o.mu.Unlock()
	t.Cleanup(func() { o.pass(ticket) })
}

// await waits until it is t's turn, or ctx ends. A test that took no
// ticket (not started by TestCorpus) does not wait.
func (o *startOrder) await(ctx context.Context, t *testing.T) (ticket int, err error) {
	o.mu.Lock()
	ticket, ok := o.turns[t.Name()]
	o.mu.Unlock()
	if !ok {
		return -1, nil
	}
	for {
		o.mu.Lock()
		if o.next >= ticket {
			o.mu.Unlock()
			return ticket, nil
		}
		changed := o.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ticket, ctx.Err()
		}
	}
}

// pass ends ticket's turn: the next one may take a slot. Passing twice is
// harmless.
func (o *startOrder) pass(ticket int) {
	if ticket < 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done[ticket] {
		return
	}
	o.done[ticket] = true
	for o.done[o.next] {
		o.next++
	}
	close(o.changed)
	o.changed = make(chan struct{})
}

// TestStartOrder: runs get their turn in the order they took tickets,
// whatever order go test wakes them in, and a run that ends without
// waiting for its turn does not hold up the ones after it.
func TestStartOrder(t *testing.T) {
	o := &startOrder{done: map[int]bool{}, turns: map[string]int{}, changed: make(chan struct{})}
	var (
		mu  sync.Mutex
		got []string
	)
	t.Run("runs", func(t *testing.T) {
		for _, name := range []string{"first", "second", "ends-early", "third", "fourth"} {
			t.Run(name, func(t *testing.T) {
				o.take(t)
				t.Parallel()
				if name == "ends-early" {
					return
				}
				ticket, err := o.await(context.Background(), t)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				got = append(got, name)
				mu.Unlock()
				o.pass(ticket)
			})
		}
	})
	if want := []string{"first", "second", "third", "fourth"}; !slices.Equal(got, want) {
		t.Errorf("turns taken in the order %v, want %v", got, want)
	}
	if ticket, err := o.await(context.Background(), t); ticket != -1 || err != nil {
		t.Errorf("a test with no ticket: await gave %d, %v; want -1 and no wait", ticket, err)
	}
}
