package watch

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Keys reads key presses from in. With raw, on a terminal, it puts it in
// raw mode, so that a key counts without Enter, and restore puts the
// terminal back:
// call it on every way out (Run's caller defers it; Ctrl-C arrives as a
// key, 3, in raw mode, and quits through the same path). Elsewhere (a
// pipe, a file) it reads bytes as they come, Enter ignored; at the end of
// in, no more keys come and watch goes on until it is stopped.
func Keys(in *os.File, raw bool) (keys <-chan rune, restore func(), err error) {
	restore = func() {}
	if fd := int(in.Fd()); raw && term.IsTerminal(fd) {
		old, err := term.MakeRaw(fd)
		if err != nil {
			return nil, restore, err
		}
		restore = func() { _ = term.Restore(fd, old) }
	}
	ch := make(chan rune, 8)
	go readKeys(in, ch)
	return ch, restore, nil
}

func readKeys(in io.Reader, ch chan<- rune) {
	buf := make([]byte, 64)
	esc := 0 // 1 after ESC, 2 inside a CSI or SS3 sequence (an arrow key)
	for {
		n, err := in.Read(buf)
		for _, b := range buf[:n] {
			switch {
			case b == 0x1b:
				esc = 1
			case esc == 1 && (b == '[' || b == 'O'):
				esc = 2
			case esc == 2 && (b < 0x40 || b > 0x7e):
				// a parameter byte of the sequence
			case esc != 0:
				esc = 0 // the sequence's last byte: none of ours
			case b != '\n' && b != '\r':
				ch <- rune(b)
			}
		}
		if err != nil {
			return
		}
	}
}

// IsTerminal tells whether f is a terminal: the screen is drawn there,
// plain lines go elsewhere.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
