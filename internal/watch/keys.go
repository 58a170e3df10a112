package watch

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Keys reads key presses from in. On a terminal it puts it in raw mode,
// so that a key counts without Enter, and restore puts the terminal back:
// call it on every way out (Run's caller defers it; Ctrl-C arrives as a
// key, 3, in raw mode, and quits through the same path). Elsewhere (a
// pipe, a file) it reads bytes as they come, Enter ignored; at the end of
// in, no more keys come and watch goes on until it is stopped.
func Keys(in *os.File) (keys <-chan rune, restore func(), err error) {
	restore = func() {}
	if fd := int(in.Fd()); term.IsTerminal(fd) {
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
	for {
		n, err := in.Read(buf)
		for _, b := range buf[:n] {
			if b == 0x1b {
				break // an escape sequence (an arrow key): none of ours
			}
			if b != '\n' && b != '\r' {
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
