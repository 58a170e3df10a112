package main

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// palette is the 16 terminal colours (a dark theme close to common
// terminal defaults): 0-7 normal, 8-15 bright.
var palette = [16]string{
	"#1e2127", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#d0d4db",
	"#5c6370", "#ff7b86", "#b5e890", "#ffd68a", "#7cc4ff", "#de9bf2", "#72d3df", "#ffffff",
}

const (
	termBG = "#1e2127"
	termFG = "#d0d4db"
)

// sgr is the graphic state the SGR escape sequences set.
type sgr struct {
	bold, faint, italic, underline, inverse bool
	fg, bg                                  string // CSS colours, "" for the default
}

func (s sgr) style() string {
	fg, bg := s.fg, s.bg
	if s.inverse {
		fg, bg = orDefault(bg, termBG), orDefault(fg, termFG)
	}
	var b strings.Builder
	if fg != "" {
		b.WriteString("color:" + fg + ";")
	}
	if bg != "" {
		b.WriteString("background:" + bg + ";")
	}
	if s.bold {
		b.WriteString("font-weight:bold;")
	}
	if s.faint {
		b.WriteString("opacity:.62;")
	}
	if s.italic {
		b.WriteString("font-style:italic;")
	}
	if s.underline {
		b.WriteString("text-decoration:underline;")
	}
	return b.String()
}

func orDefault(c, d string) string {
	if c == "" {
		return d
	}
	return c
}

// color256 is the CSS colour of xterm colour n.
func color256(n int) string {
	switch {
	case n < 16:
		return palette[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		g := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// apply updates s by the parameters of one SGR sequence (ESC [ ... m).
func (s *sgr) apply(params string) {
	if params == "" {
		params = "0"
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			*s = sgr{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.faint = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.underline = true
		case n == 7:
			s.inverse = true
		case n == 22:
			s.bold, s.faint = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.underline = false
		case n == 27:
			s.inverse = false
		case n >= 30 && n <= 37:
			s.fg = palette[n-30]
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47:
			s.bg = palette[n-40]
		case n == 49:
			s.bg = ""
		case n >= 90 && n <= 97:
			s.fg = palette[n-90+8]
		case n >= 100 && n <= 107:
			s.bg = palette[n-100+8]
		case n == 38 || n == 48:
			// 38;5;N or 38;2;R;G;B (and 48 for the background).
			var c string
			if i+2 < len(ps) && ps[i+1] == "5" {
				k, _ := strconv.Atoi(ps[i+2])
				c, i = color256(k), i+2
			} else if i+4 < len(ps) && ps[i+1] == "2" {
				r, _ := strconv.Atoi(ps[i+2])
				g, _ := strconv.Atoi(ps[i+3])
				b, _ := strconv.Atoi(ps[i+4])
				c, i = fmt.Sprintf("#%02x%02x%02x", r, g, b), i+4
			}
			if n == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
}

// ansiToHTML turns terminal output with SGR colour sequences (what tmux
// capture-pane -e gives) into escaped HTML spans. Other escape sequences
// are dropped.
func ansiToHTML(text string) string {
	var (
		out strings.Builder
		cur sgr
	)
	flush := func(s string) {
		if s == "" {
			return
		}
		if st := cur.style(); st != "" {
			out.WriteString(`<span style="` + st + `">` + html.EscapeString(s) + `</span>`)
		} else {
			out.WriteString(html.EscapeString(s))
		}
	}
	for len(text) > 0 {
		i := strings.IndexByte(text, 0x1b)
		if i < 0 {
			flush(text)
			break
		}
		flush(text[:i])
		text = text[i+1:]
		if len(text) == 0 || text[0] != '[' {
			// Not CSI: a charset designation (ESC ( B) has one byte more
			// than other escapes; either way it is dropped.
			n := 1
			if len(text) > 1 && strings.IndexByte("()*+", text[0]) >= 0 {
				n = 2
			}
			text = text[min(n, len(text)):]
			continue
		}
		// A CSI sequence: parameters, then one final byte in @..~.
		j := 1
		for j < len(text) && (text[j] < 0x40 || text[j] > 0x7e) {
			j++
		}
		if j == len(text) {
			break
		}
		if text[j] == 'm' {
			cur.apply(text[1:j])
		}
		text = text[j+1:]
	}
	return out.String()
}
