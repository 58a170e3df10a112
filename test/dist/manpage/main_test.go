package main

import (
	"errors"
	"strings"
	"testing"
)

// helps are the help texts of a small command tree, as cnpa prints them.
var helps = map[string]string{
	"": `NAME:
   cnpa - run, verify and explain the TeamSpace controller lab

USAGE:
   cnpa [global options] command [command options]

COMMANDS:
   step        run lab step 1..8, or all of them
   service     start, stop cnpa-op.service
   help, h     Shows a list of commands or help for one command

GLOBAL OPTIONS:
   --dir DIR  evidence DIR (default: "/root/cnpa-op")
`,
	"step": "NAME:\n   cnpa step - run lab step 1..8\n\n.leading dot and a back\\slash\n",
	"service": `NAME:
   cnpa service - start, stop

COMMANDS:
   start    start the controller service
   help, h  Shows a list of commands or help for one command

OPTIONS:
   --help, -h  show help
`,
	"service start": "NAME:\n   cnpa service start - start the controller service\n",
}

func TestPage(t *testing.T) {
	var asked []string
	page, err := Page(func(path string) (string, error) {
		asked = append(asked, path)
		h, ok := helps[path]
		if !ok {
			return "", errors.New("no help for " + path)
		}
		return h, nil
	}, "0.1.0", "2026-12-07")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(asked, "|"), "|step|service|service start"; got != want {
		t.Errorf("asked for the help of %q, want %q (every command and subcommand, depth first, no help)", got, want)
	}
	text := string(page)
	for _, want := range []string{
		`.TH CNPA 1 "2026-12-07" "cnpa 0.1.0" "cnpa"`,
		".SH NAME\ncnpa \\- run, verify and explain the TeamSpace controller lab\n",
		".SS cnpa service start\n.nf\n",
		// A line of help that would be a roff request or escape stays text.
		"\\&.leading dot and a back\\eslash\n",
		"\\-\\-dir DIR",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q:\n%s", want, text)
		}
	}
}

func TestPageFailsWithTheHelp(t *testing.T) {
	_, err := Page(func(path string) (string, error) {
		if path == "service" {
			return "", errors.New("cnpa service --help: exit status 2")
		}
		return helps[path], nil
	}, "0.1.0", "2026-12-07")
	if err == nil || !strings.Contains(err.Error(), "cnpa service --help") {
		t.Errorf("Page with a help that fails: err %v, want it named", err)
	}
}
