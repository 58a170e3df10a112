package hostile

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a command's output, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// R4-6 of the round-4 review: an API server's error text (a 500 Status
// whose message holds a window-title escape, a clear screen, a bidi
// override) reaches the terminal of `cnpa check`, `cnpa status` and
// `cnpa watch` (plain lines and notices) escaped, never raw: it is still
// shown, as \x1b]0;OWNED…, so the learner reads what the server said.
func TestClusterErrorsReachTheTerminalClean(t *testing.T) {
	const message = "\x1b]0;OWNED\x07\x1b[2J\x1b[H all 30 learners graded \u202eflagged 0"
	s := newServer(t, func(w http.ResponseWriter) { fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`) })
	s.message = message
	dir := evidenceDir(t)
	kc := kubeconfig(t, t.TempDir(), "hostile", s, "", "token: t")
	for _, args := range [][]string{
		{"check"},
		{"status"},
		{"watch"},
		{"-o", "json", "watch"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			argv := append(append([]string{"--no-color", "--kubeconfig", kc, "--dir", dir}, args...),
				"--service-manager", "process", "--unit-dir", t.TempDir())
			cmd := exec.CommandContext(ctx, cnpaBin, argv...)
			var out []byte
			if args[len(args)-1] == "watch" {
				// Watch runs until q: it is stopped once its notice is out
				// (the screen only on a terminal: here, plain lines or JSON).
				var buf lockedBuffer
				cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &buf, &buf
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				for deadline := time.Now().Add(15 * time.Second); !strings.Contains(buf.String(), "OWNED") && time.Now().Before(deadline); {
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(200 * time.Millisecond) // the rest of the line
				cmd.Process.Kill()
				cmd.Wait()
				out = []byte(buf.String())
			} else {
				out, _ = cmd.CombinedOutput()
			}
			for i, r := range string(out) {
				if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e' {
					t.Fatalf("cnpa %s printed the control character %U raw at %d: ...%q...", strings.Join(args, " "), r, i, out[max(0, i-60):min(len(out), i+60)])
				}
			}
			if !strings.Contains(string(out), `\x1b]0;OWNED`) {
				t.Errorf("cnpa %s does not show the server's message, escaped:\n%s", strings.Join(args, " "), out)
			}
		})
	}
}
