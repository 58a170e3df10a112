// Package lab says what the lab is, as data. Each step is a lab.Step,
// made in its folder (course/stepN/step.go): its number, title and what
// it teaches, the evidence file it writes with that file's shape and
// record, the rule every key must meet, and its explanation. Around them:
// the table of steps (table.go), how rules judge (rule.go, rules.go), how
// report.json is computed from the others (report.go), the evidence dir
// read once (state.go), the classic mistakes worded once (mistakes.go),
// and the names cnpa gives its temporary objects (names.go). It is a leaf:
// it imports only evidence and teamspace, and for the learner's language
// i18n and ui (its texts in the chosen language, wrapped by display width),
// so that whatever reads or shows the lab (check, report, reset, the CLI)
// never imports what runs it.
package lab
