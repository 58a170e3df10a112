package stress

import (
	"errors"
	"syscall"
	"testing"
)

// The restart fault's proxy: while refused, a connect is refused (no
// answer at all, as a restarting kube-apiserver gives), and after reopen
// the same URL, certificate and token serve again.
func TestProxyRefusesThenReopens(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	if code, _, err := do(t, "GET", url+tsPath); err != nil || code != 200 {
		t.Fatalf("before: %d %v", code, err)
	}
	if err := p.refuse(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := do(t, "GET", url+tsPath); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("while refused: err %v, want connection refused", err)
	}
	if err := p.reopen(); err != nil {
		t.Fatal(err)
	}
	if code, _, err := do(t, "GET", url+tsPath); err != nil || code != 200 {
		t.Errorf("after reopen: %d %v, want 200", code, err)
	}
	// Close after a reopen closes the new server.
	p.Close()
	if _, _, err := do(t, "GET", url+tsPath); err == nil {
		t.Errorf("after Close: answered")
	}
}
