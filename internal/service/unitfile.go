package service

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// markPrefix starts the first line of every unit cnpa writes; the hash
// after it is of the rest of the file. A unit whose rest no longer has
// that hash was edited, and is the learner's from then on.
const markPrefix = "# Written by cnpa; edit it and it is yours (cnpa then uses it as it is). sha256:"

// Mark puts cnpa's mark on a unit it writes.
func Mark(unit []byte) []byte {
	sum := sha256.Sum256(unit)
	return append([]byte(markPrefix+hex.EncodeToString(sum[:])+"\n"), unit...)
}

// CnpaWrote tells whether a unit file is cnpa's own, unchanged since cnpa
// wrote it: its mark's hash matches, or it is a unit an earlier cnpa
// rendered without a mark (it names the evidence dir it serves and says
// cnpa wrote it). Anything else is the learner's: never rewritten, never
// removed by reset.
func CnpaWrote(unit []byte) bool {
	first, rest, _ := bytes.Cut(unit, []byte("\n"))
	if sum, ok := bytes.CutPrefix(first, []byte(markPrefix)); ok {
		h := sha256.Sum256(rest)
		return string(sum) == hex.EncodeToString(h[:])
	}
	_, served := ServedDir(unit)
	return served && bytes.Contains(unit, []byte("Written by `cnpa step 4` / `cnpa service install`"))
}

// cnpasUnit tells whether the unit at path is cnpa's to remove: missing,
// or written by cnpa and unchanged. A learner's unit stays.
func cnpasUnit(path string) bool {
	data, err := os.ReadFile(path)
	return err != nil || CnpaWrote(data)
}

// UnitFile is what a unit file says, as systemd reads it, for what cnpa
// checks and what process mode runs.
type UnitFile struct {
	// ExecStart is the last ExecStart= of [Service] as written, and Argv
	// its words as systemd splits them (prefixes such as `-` dropped).
	ExecStart string
	Argv      []string
	// Restart and RestartSec are the last values ("" when unset).
	Restart, RestartSec string
	// StartLimitIntervalSec and StartLimitBurst are [Unit]'s (or the older
	// [Service] StartLimitInterval=), "" when unset: systemd's defaults,
	// 10 s and 5, then hold.
	StartLimitIntervalSec, StartLimitBurst string
	// Environment holds the Environment= assignments in order.
	Environment      []string
	WorkingDirectory string
	User             string
	// WantedBy is [Install]'s WantedBy=, what `systemctl enable` needs.
	WantedBy string
	// Unsupported are directives process mode cannot follow (it says so).
	Unsupported []string
}

// ParseUnit reads a unit file: sections, `#` and `;` comments, lines
// continued with a trailing backslash; the last value of a key wins, and
// an empty ExecStart= or Environment= resets the list, as in systemd.
func ParseUnit(data []byte) (UnitFile, error) {
	var u UnitFile
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	pending := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending != "" {
			line = pending + " " + line
			pending = ""
		}
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") || line == "" {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSuffix(line, `\`)
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return u, i18n.NewError("service.unitfile.not_key_value", i18n.Args{"Line": fmt.Sprintf("%q", line)})
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch section + "." + key {
		case "Service.ExecStart":
			u.ExecStart = value
		case "Service.Restart":
			u.Restart = value
		case "Service.RestartSec":
			u.RestartSec = value
		case "Service.Environment":
			if value == "" {
				u.Environment = nil
				continue
			}
			words, err := SplitCommand(value)
			if err != nil {
				return u, fmt.Errorf("Environment=%s: %w", value, err)
			}
			u.Environment = append(u.Environment, words...)
		case "Service.WorkingDirectory":
			u.WorkingDirectory = strings.TrimPrefix(value, "-")
		case "Service.User":
			u.User = value
		case "Unit.StartLimitIntervalSec", "Service.StartLimitInterval":
			u.StartLimitIntervalSec = value
		case "Unit.StartLimitBurst", "Service.StartLimitBurst":
			u.StartLimitBurst = value
		case "Service.EnvironmentFile", "Service.ExecStartPre", "Service.ExecStartPost", "Service.RootDirectory":
			u.Unsupported = append(u.Unsupported, key+"="+value)
		case "Install.WantedBy":
			u.WantedBy = value
		}
	}
	if err := sc.Err(); err != nil {
		return u, err
	}
	if u.ExecStart != "" {
		cmd := strings.TrimLeft(u.ExecStart, "-@:+!")
		words, err := SplitCommand(cmd)
		if err != nil {
			return u, fmt.Errorf("ExecStart=%s: %w", u.ExecStart, err)
		}
		u.Argv = words
	}
	return u, nil
}

// SplitCommand splits a systemd command line or Environment= value into
// words (systemd.service(5), "Command lines"): whitespace separates,
// "double" and 'single' quotes group, a backslash escapes the next
// character, `%%` is `%` and `$$` is `$`.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs) && quote != '\'':
			i++
			cur.WriteRune(unescape(rs[i]))
			inWord = true
		case (r == '%' || r == '$') && i+1 < len(rs) && rs[i+1] == r:
			i++
			cur.WriteRune(r)
			inWord = true
		case quote == 0 && (r == ' ' || r == '\t'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, i18n.NewError("service.unitfile.quote_not_closed", i18n.Args{"Quote": string(quote)})
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func unescape(r rune) rune {
	switch r {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return r
}
