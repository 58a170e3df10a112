package learners

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// slotPool bounds the control planes running at once, as make -l bounds
// jobs by the load: always up to base, and up to max while the machine
// has CPU to spare.
//
// Two labs at a time is what the package may run beside make test's other
// packages: more made every lab's waits, and so its CPU, longer
// (docs/development.md). But test/learners runs on alone once the others
// are done, and two labs alone kept about one of the two cores busy
// (/proc/stat, 2026-12-04: 48% busy): the package's last ten minutes ran
// on half a machine. A third and fourth lab start only while the machine
// was more than spareIdle idle over the last sample, one per settle, so
// that a lab just started (its boot is the busiest part) is counted
// before another is let in.
type slotPool struct {
	base, max int

	mu       sync.Mutex
	running  int
	lastMore time.Time
	free     chan struct{} // signalled when a slot is given back
	// idle is the machine's idle CPU share lately (idleSampler.share).
	idle func() (float64, bool)
}

const (
	// spareIdle is the idle share of the machine's CPU above which a lab
	// beyond base may start: a lab alone uses about a quarter of two cores.
	spareIdle = 0.40
	// settle is the time between two labs let in beyond base.
	settle = 45 * time.Second
)

func newSlotPool(base, max int) *slotPool {
	if max < base {
		max = base
	}
	return &slotPool{base: base, max: max, free: make(chan struct{}, 1), idle: newIdleSampler(15 * time.Second).share}
}

// acquire waits for a slot, at most wait; it says why not.
func (p *slotPool) acquire(wait time.Duration) error {
	deadline := time.After(wait)
	for {
		if p.tryAcquire() {
			return nil
		}
		select {
		case <-p.free:
		case <-time.After(5 * time.Second):
		case <-deadline:
			return fmt.Errorf("no free slot for a control plane in %s", wait)
		}
	}
}

func (p *slotPool) tryAcquire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running < p.base {
		p.running++
		return true
	}
	if p.running < p.max && time.Since(p.lastMore) >= settle {
		if idle, ok := p.idle(); ok && idle > spareIdle {
			p.running++
			p.lastMore = time.Now()
			return true
		}
	}
	return false
}

func (p *slotPool) release() {
	p.mu.Lock()
	p.running--
	p.mu.Unlock()
	select {
	case p.free <- struct{}{}:
	default:
	}
}

// idleSampler is the machine's idle CPU share over the last window, from
// /proc/stat (idle and iowait against every other column).
type idleSampler struct {
	window time.Duration

	mu          sync.Mutex
	at          time.Time
	busy, total uint64
	last        float64
	have        bool
}

func newIdleSampler(window time.Duration) *idleSampler {
	s := &idleSampler{window: window}
	s.at = time.Now()
	s.busy, s.total, _ = cpuTimes()
	return s
}

// share is the idle share measured over the last full window; ok is false
// before one has passed, or where /proc/stat cannot be read.
func (s *idleSampler) share() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.at) >= s.window {
		busy, total, err := cpuTimes()
		if err != nil {
			return 0, false
		}
		if total > s.total {
			s.last = 1 - float64(busy-s.busy)/float64(total-s.total)
			s.have = true
		}
		s.at, s.busy, s.total = time.Now(), busy, total
	}
	return s.last, s.have
}

// cpuTimes are the machine's busy and total jiffies since boot.
func cpuTimes() (busy, total uint64, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: no cpu line")
	}
	for i, v := range f[1:] {
		var n uint64
		if _, err := fmt.Sscan(v, &n); err != nil {
			return 0, 0, err
		}
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// guest time is counted in user already.
		if i >= 8 {
			break
		}
		total += n
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy, total, nil
}

// The pool gives base slots whatever the load, more only while the machine
// is idle enough, one per settle, and never more than max.
func TestSlotPool(t *testing.T) {
	idle, known := 0.0, false
	p := newSlotPool(2, 3)
	p.idle = func() (float64, bool) { return idle, known }
	if !p.tryAcquire() || !p.tryAcquire() {
		t.Fatal("the two base slots were not given")
	}
	if p.tryAcquire() {
		t.Fatal("a third slot with the machine's idle share unknown")
	}
	idle, known = 0.2, true
	if p.tryAcquire() {
		t.Fatal("a third slot with the machine 80% busy")
	}
	idle = 0.7
	if !p.tryAcquire() {
		t.Fatal("no third slot with the machine 70% idle")
	}
	if p.tryAcquire() {
		t.Fatal("a fourth slot beyond max 3")
	}
	p.release()
	if p.tryAcquire() {
		t.Fatal("a slot beyond base again before settle passed")
	}
	p.lastMore = time.Now().Add(-settle)
	if !p.tryAcquire() {
		t.Fatal("no slot beyond base after settle, the machine idle")
	}
	if busy, total, err := cpuTimes(); err != nil || busy == 0 || total <= busy {
		t.Errorf("cpuTimes: busy %d, total %d, %v", busy, total, err)
	}
}
