// Package lab says what the lab is, as data: its steps (steps.go), the
// files they write and the rules every value in them must meet (rules.go,
// rule.go), how report.json is computed from the others (report.go), the
// teaching text (explain.go), and the names cnpa gives its temporary
// objects (names.go). It is a leaf: it imports only evidence and
// teamspace, so that whatever reads or shows the lab (check, report, reset,
// the CLI) never imports what runs it.
package lab
