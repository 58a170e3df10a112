package hostile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// evidenceDir is a finished lab's evidence dir, as root's cnpa reads it.
func evidenceDir(t *testing.T) string {
	t.Helper()
	c, err := classfixture.Good("ada", 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := c.Materialize(course.Steps.Lab(), dir, filepath.Join(dir, lab.OwnDir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ended waits up to d for cmd, started, to end.
func ended(done <-chan error, d time.Duration) (error, bool) {
	select {
	case err := <-done:
		return err, true
	case <-time.After(d):
		return nil, false
	}
}

// stop ends cmd the way an operator would, SIGTERM then SIGTERM again,
// and says how many it took (0: neither ended it; it is then killed).
func stop(t *testing.T, cmd *exec.Cmd, done <-chan error) int {
	t.Helper()
	for n, wait := range []time.Duration{2 * time.Second, 5 * time.Second} {
		cmd.Process.Signal(syscall.SIGTERM)
		if _, ok := ended(done, wait); ok {
			return n + 1
		}
	}
	cmd.Process.Kill()
	<-done
	return 0
}

// N10: the service user's archive/beta.json is a FIFO, which once hung
// root's `cnpa report --html` for 10 minutes, through SIGTERM. The report
// is made at once, without a signal: the FIFO is refused as not a
// regular file, never opened for a blocking read.
func TestReportNeverWaitsOnAFIFO(t *testing.T) {
	dir := evidenceDir(t)
	beta := filepath.Join(dir, "archive", "beta.json")
	os.Remove(beta)
	if err := syscall.Mkfifo(beta, 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	cmd := exec.Command(cnpaBin, "--no-color", "--kubeconfig", filepath.Join(dir, "no-such-kubeconfig"), "--dir", dir, "report", "--html", page)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	err, ok := ended(done, 30*time.Second)
	if !ok {
		n := stop(t, cmd, done)
		t.Fatalf("cnpa report --html blocked on the FIFO in archive/ for 30 s (ended by %d SIGTERMs; 0: killed)\n%s", n, out.String())
	}
	if err != nil {
		t.Fatalf("cnpa report --html: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(page); err != nil {
		t.Errorf("no page written: %v\n%s", err, out.String())
	}
	t.Logf("made in %s", time.Since(start).Round(time.Millisecond))
}

// N10, the backstop: a read that no context reaches (here cnpa's own
// --kubeconfig, a FIFO no one writes to) ends on SIGTERM: the first
// cancels the command's context, so that it undoes what it started; the
// second, once that is done or stuck, ends cnpa (cmd/cnpa/main.go).
func TestBlockedReadEndsOnTheSecondSignal(t *testing.T) {
	dir := evidenceDir(t)
	fifo := filepath.Join(t.TempDir(), "kubeconfig")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cnpaBin, "--no-color", "--kubeconfig", fifo, "--dir", dir, "report", "--html", filepath.Join(t.TempDir(), "r.html"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// cnpa is in the read once the FIFO has a reader: a writer that does
	// not block can open it then, and, held open and silent, keeps the
	// read waiting.
	var writer *os.File
	deadline := time.Now().Add(30 * time.Second)
	for writer == nil && time.Now().Before(deadline) {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		switch {
		case err == nil:
			writer = f
		case errors.Is(err, syscall.ENXIO): // no reader yet
			time.Sleep(20 * time.Millisecond)
		default:
			t.Fatal(err)
		}
	}
	if writer == nil {
		cmd.Process.Kill()
		t.Fatalf("cnpa never opened its kubeconfig, a FIFO\n%s", out.String())
	}
	defer writer.Close()
	if err, ok := ended(done, 500*time.Millisecond); ok {
		t.Fatalf("cnpa ended before any signal (%v): no blocked read to end\n%s", err, out.String())
	}
	start := time.Now()
	n := stop(t, cmd, done)
	switch n {
	case 0:
		t.Fatalf("two SIGTERMs did not end a read blocked on a FIFO\n%s", out.String())
	case 1:
		t.Logf("the first SIGTERM ended it, in %s", time.Since(start).Round(time.Millisecond))
	default:
		t.Logf("the second SIGTERM ended it, %s after the first", time.Since(start).Round(time.Millisecond))
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && !ws.Signaled() && ws.ExitStatus() == 0 {
		t.Errorf("cnpa, stopped in a blocked read, exited 0: %s", strings.TrimSpace(out.String()))
	}
}
