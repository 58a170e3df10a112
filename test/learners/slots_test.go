package learners

import (
	"fmt"
	"os"
	"path/filepath"
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
//
// A free slot goes to a case of the lowest rank waiting (caseRank): the
// class learners' first, so that TestClass grades while the corpus runs
// on instead of after it, then the longest labs, the step-3 group last.
type slotPool struct {
	base, max int

	mu       sync.Mutex
	running  int
	lastMore time.Time
	waiting  map[int]int   // cases waiting, by rank
	freed    chan struct{} // closed (and replaced) when a slot is given back
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
	return &slotPool{base: base, max: max, waiting: map[int]int{}, freed: make(chan struct{}),
		idle: newIdleSampler(15 * time.Second).share}
}

// acquire waits for a slot, at most wait, behind every case of a lower
// rank; it says why not.
func (p *slotPool) acquire(rank int, wait time.Duration) error {
	p.mu.Lock()
	p.waiting[rank]++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.waiting[rank]--; p.waiting[rank] == 0 {
			delete(p.waiting, rank)
		}
		p.mu.Unlock()
	}()
	deadline := time.After(wait)
	for {
		p.mu.Lock()
		freed := p.freed
		p.mu.Unlock()
		if p.tryAcquire(rank) {
			return nil
		}
		select {
		case <-freed:
		case <-time.After(5 * time.Second): // the machine's idle share may have grown
		case <-deadline:
			return fmt.Errorf("no free slot for a control plane in %s", wait)
		}
	}
}

func (p *slotPool) tryAcquire(rank int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for r := range p.waiting {
		if r < rank {
			return false // a case ahead of this one waits
		}
	}
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
	close(p.freed) // every waiter looks again: the lowest rank takes it
	p.freed = make(chan struct{})
	p.mu.Unlock()
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
	if !p.tryAcquire(1) || !p.tryAcquire(1) {
		t.Fatal("the two base slots were not given")
	}
	if p.tryAcquire(1) {
		t.Fatal("a third slot with the machine's idle share unknown")
	}
	idle, known = 0.2, true
	if p.tryAcquire(1) {
		t.Fatal("a third slot with the machine 80% busy")
	}
	idle = 0.7
	if !p.tryAcquire(1) {
		t.Fatal("no third slot with the machine 70% idle")
	}
	if p.tryAcquire(1) {
		t.Fatal("a fourth slot beyond max 3")
	}
	p.release()
	if p.tryAcquire(1) {
		t.Fatal("a slot beyond base again before settle passed")
	}
	p.lastMore = time.Now().Add(-settle)
	if !p.tryAcquire(1) {
		t.Fatal("no slot beyond base after settle, the machine idle")
	}
	p.release()
	p.release()

	// A case waits behind any of a lower rank, and takes a slot before
	// any of a higher one.
	p.waiting[0] = 1
	if p.tryAcquire(1) {
		t.Error("a rank-1 case took a slot while a rank-0 case waited")
	}
	delete(p.waiting, 0)
	if !p.tryAcquire(1) {
		t.Error("no slot for a rank-1 case once no rank-0 case waited")
	}
	p.release()
	got := make(chan int, 2)
	p.running, p.lastMore = p.base, time.Now() // full, and none beyond base
	for _, rank := range []int{2, 0} {
		go func() {
			if err := p.acquire(rank, time.Minute); err != nil {
				t.Error(err)
			}
			got <- rank
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		p.mu.Lock()
		n := p.waiting[0] + p.waiting[2]
		p.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two cases never waited")
		}
	}
	p.release()
	if first := <-got; first != 0 {
		t.Errorf("a freed slot went to a rank-%d case before the rank-0 one", first)
	}
	p.release()
	<-got

	if busy, total, err := cpuTimes(); err != nil || busy == 0 || total <= busy {
		t.Errorf("cpuTimes: busy %d, total %d, %v", busy, total, err)
	}
}

// TestCaseRanks holds which of the corpus's cases go first: the long ones
// by what their case.json says, measured 200-220 s in a make test against
// 100-150 s for a plain case.
func TestCaseRanks(t *testing.T) {
	want := map[string]int{
		"edge-triggered":            rankLong,  // step 5 waits out its timeout
		"finalizer-never-released":  rankLong,  // step 6 waits out its timeout
		"finalizers-dropped":        rankLong,  // only check's probe sees it, after its timeout
		"foreign-namespace-adopted": rankLong,  // checked again under admin
		"valid-set-e-ssa":           rankLong,  // checked again under admin
		"valid-create-patch":        rankPlain, // one lab, every step passes
		"valid-python":              rankPlain,
		"cpu-ignored":               rankPlain, // on its own, a plain one; in the step-3 group, rankShort
	}
	for name, rank := range want {
		if got := loadCase(t, filepath.Join("cases", name)).rank(); got != rank {
			t.Errorf("case %s: rank %d, want %d", name, got, rank)
		}
	}
}
