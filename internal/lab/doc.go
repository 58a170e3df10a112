// Package lab says what the lab is, as data: its steps, the files they
// write, and the names cnpa gives its temporary objects. It is a leaf: it
// imports only evidence and teamspace, so that whatever reads or shows the
// lab (check, report, reset, the CLI) never imports what runs it.
package lab
