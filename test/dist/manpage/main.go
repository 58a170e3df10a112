// Command manpage writes cnpa's man pages, cnpa(1) in English and in
// Japanese, from the help the built binary prints (`cnpa --help`, then
// `cnpa CMD --help` for every command and subcommand it lists), so the
// pages say exactly what the binary says and never go stale. `make dist`
// runs it on the binary built for this machine; the pages go into the
// tarballs and the .deb (/usr/share/man/man1, /usr/share/man/ja/man1).
//
//	go run ./test/dist/manpage -cnpa dist/build/linux_amd64/cnpa -version 0.1.0 -date 2026-12-07 -out dist/build/man
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	cnpa := flag.String("cnpa", "", "the cnpa binary to ask for its help (one this machine runs)")
	version := flag.String("version", "", "the version the pages name")
	date := flag.String("date", "", "the date the pages carry (the commit's, YYYY-MM-DD)")
	out := flag.String("out", "", "directory to write man1/cnpa.1.gz and ja/man1/cnpa.1.gz into")
	flag.Parse()
	if *cnpa == "" || *version == "" || *date == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "manpage: -cnpa, -version, -date and -out are all needed")
		os.Exit(2)
	}
	for _, l := range []struct{ lang, dir string }{{"en", "man1"}, {"ja", "ja/man1"}} {
		page, err := Page(helpOf(*cnpa, l.lang), *version, *date)
		if err != nil {
			fmt.Fprintln(os.Stderr, "manpage:", err)
			os.Exit(1)
		}
		if err := writeGzip(filepath.Join(*out, l.dir, "cnpa.1.gz"), page); err != nil {
			fmt.Fprintln(os.Stderr, "manpage:", err)
			os.Exit(1)
		}
	}
}

// helpOf returns a function that runs cnpa's help for a command path
// ("" for cnpa itself, "service start") in one language.
func helpOf(cnpa, lang string) func(path string) (string, error) {
	return func(path string) (string, error) {
		args := append(append([]string{"--lang", lang}, strings.Fields(path)...), "--help")
		cmd := exec.Command(cnpa, args...)
		// Plain text at a fixed width, whatever the terminal.
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "COLUMNS=80")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s %s: %v: %s", cnpa, strings.Join(args, " "), err, stderr.String())
		}
		return string(out), nil
	}
}

// Page builds the roff of cnpa(1) from help, which gives the help text
// of a command path: NAME and SYNOPSIS from cnpa's own help, then the
// whole help of cnpa and of each command and subcommand, as printed.
func Page(help func(path string) (string, error), version, date string) ([]byte, error) {
	top, err := help("")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, ".TH CNPA 1 %q %q %q\n", date, "cnpa "+version, "cnpa")
	fmt.Fprintf(&b, ".SH NAME\n%s\n", escape(nameLine(top)))
	b.WriteString(".SH SYNOPSIS\n.B cnpa\n[global options] command [command options]\n")
	b.WriteString(".SH DESCRIPTION\n")
	verbatim(&b, top)
	b.WriteString(".SH COMMANDS\n")
	paths := commands(top, "")
	for i := 0; i < len(paths); i++ {
		text, err := help(paths[i])
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, ".SS cnpa %s\n", paths[i])
		verbatim(&b, text)
		// A command's own subcommands follow it (service start, ...).
		sub := commands(text, paths[i])
		paths = append(paths[:i+1], append(sub, paths[i+1:]...)...)
	}
	b.WriteString(".SH FILES\n.nf\n/usr/share/doc/cnpa/README.md\n/usr/share/doc/cnpa/README.ja.md\n/usr/share/doc/cnpa/docs/\n.fi\n")
	return []byte(b.String()), nil
}

// nameLine is the man page's NAME line, "cnpa \- what it is", from the
// first line under the help's first heading: "   cnpa - what it is".
func nameLine(help string) string {
	for _, l := range strings.Split(help, "\n") {
		if name, what, ok := strings.Cut(strings.TrimSpace(l), " - "); ok && name == "cnpa" {
			return "cnpa - " + what
		}
	}
	return "cnpa"
}

// commands lists the commands under the help's command heading (the
// first heading whose lines are "   name[, alias]  usage"), as paths
// below parent, without urfave/cli's own help command.
func commands(help, parent string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case l == "":
			in = false
		case !strings.HasPrefix(l, " "):
			// A heading: COMMANDS: or its translation, the only one
			// whose lines are commands (checked below by the indent
			// and a name with no dash).
			in = strings.HasSuffix(l, ":") && (l == "COMMANDS:" || l == "コマンド:")
		case in:
			name, _, _ := strings.Cut(strings.TrimSpace(l), " ")
			name = strings.TrimSuffix(name, ",")
			if name != "help" && name != "" && !strings.HasPrefix(name, "-") {
				out = append(out, strings.TrimSpace(parent+" "+name))
			}
		}
	}
	return out
}

// verbatim puts text in the page as it is printed: no filling, no
// adjusting, every roff control character escaped.
func verbatim(b *strings.Builder, text string) {
	b.WriteString(".nf\n")
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(escape(l))
		b.WriteByte('\n')
	}
	b.WriteString(".fi\n")
}

// escape makes a line of text literal in roff: backslashes doubled as
// \e, a leading . or ' (a request) and - (a hyphen, which groff may
// print as a Unicode minus) kept as typed.
func escape(l string) string {
	l = strings.ReplaceAll(l, `\`, `\e`)
	l = strings.ReplaceAll(l, "-", `\-`)
	if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
		l = `\&` + l
	}
	return l
}

// writeGzip writes data gzipped to path, with no name or time in the
// gzip header, so two builds of one commit are the same bytes.
func writeGzip(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
