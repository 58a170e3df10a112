package i18n

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// learnerFacing are the packages whose every word reaches a learner or an
// instructor, and so is in the catalog: TestNoProseOutsideTheCatalog reads
// their source. A package is added here once its words are in the catalog
// (one line; its literals the lint must let be go in allowProse or
// notProse below). Every package of cnpa is here or in leftOut, with why
// (TestEveryPackageDecided): a new one is decided when it is added.
var learnerFacing = []string{
	"internal/judge",     // cnpa check's checks: titles, hints, notes, text/JSON/JUnit
	"internal/check",     // cnpa check's live probes
	"internal/reset",     // cnpa reset
	"internal/timeline",  // the timelines of steps 4 to 7
	"internal/report",    // cnpa report, text and HTML
	"internal/class",     // cnpa class grade: text and the class page
	"internal/gradebook", // cnpa class grade -o gradescope|classroom|canvas|moodle, the policy's errors
	"cmd/cnpa",           // every command: help, usage errors, what each prints
	"internal/steps",     // cnpa step 1..8: teaching, waits, notes, diagnoses
	"internal/reaction",  // what the timelines of steps 4 to 7 say happened
	"internal/lab",       // the lab: steps, rules, mistakes, explain, hints, a record's problems
	"internal/course",    // the one step table
	// each step's folder: its teaching, rules, fact rows, probes and run
	"internal/course/step1", "internal/course/step2", "internal/course/step3", "internal/course/step4",
	"internal/course/step5", "internal/course/step6", "internal/course/step7", "internal/course/step8",
	"internal/evidence",   // an evidence file's problems, a learner's file refused
	"internal/teamspace",  // what a TeamSpace lacks, a spec no controller serves
	"internal/safefs",     // a file cnpa will not read or run as it is
	"internal/submission", // a file class grade cannot read, a name it refuses
	"internal/labenv",     // the learner's unit and script checked, the lab's choices
	"internal/identity",   // the service's identity: refusals explained, waits
	"internal/service",    // cnpa service: its refusals, errors and fixes
	"internal/kube",       // kubeconfig messages, a learner's kubeconfig refused
	"internal/doctor",     // cnpa doctor's details and fixes
	"internal/submit",     // cnpa submit's submission
	"internal/status",     // cnpa status's table and lines
	"internal/ui",         // the printer, waits, a cut text's note
	"internal/poll",       // a wait's timeout, in identity's and reset's errors
	"internal/manifest",   // errors of cnpa's manifest of its files
	"internal/atomicfile", // errors of a file written
	"internal/archive",    // the archive's promise, kept by reset too
	"internal/stress",     // cnpa stress: its faults' verdicts, hints and refusals
	"internal/watch",      // cnpa watch: its screen, lines, notices and hints
	"internal/labfile",    // a lab kept as a file: its lint's problems and fixes, check's and lab test's words
	// a server-side apply refused for another manager's fields, and the fix
	"internal/ssaconflict",
}

// leftOut are cnpa's packages the lint does not read, and why: what they
// say reaches no person, or is not cnpa's to translate.
var leftOut = map[string]string{
	"internal/controller":               "the reference controller (cnpa controller, what cnpa-op.service runs): its words are its log lines, its Events and status in the cluster and its Prometheus metrics' help, which stay English as Kubernetes' own do, and the errors of a pass, which are the same words as the log lines they are printed beside (its command's help and exit messages are cmd/cnpa's, in the catalog)",
	"internal/faultinject":              "only in test builds (-tags faultinject): it kills the process at a named point and says nothing",
	"internal/i18n":                     "the catalog itself: catalog_gen.go is every message of every language, generated from catalog/*.toml",
	"internal/i18n/gencatalog":          "go generate's program that writes catalog_gen.go; it speaks to a developer",
	"internal/i18n/internal/catalogsrc": "the catalogs' reader for gencatalog and the tests",
	"assets":                            "embedded files (the CRD, reconcile.sh, units, manifests), no words in Go; reconcile.sh's own lines are the shell engine's log, English as the Go engine's",
}

// prose is what English words for people look like in a string literal:
// two words of letters with a space between ("is gone", "run it"). Ids
// (step5.quota_in_sync), keys, paths, placeholders and format verbs alone
// do not match.
var prose = regexp.MustCompile(`[A-Za-z]{2,}[,:;]? [A-Za-z]{2,}`)

// codeSpan is a `command` inside a literal: a command is said as it is.
var codeSpan = regexp.MustCompile("`[^`]*`")

// allowProse are the literals of learnerFacing that look like prose and
// stay as they are in every language, each with why, grouped by why.
// Anything else that looks like prose fails the lint: say it with i18n.T.
var allowProse = map[string]string{
	// The LMS's own column names (internal/gradebook): Canvas and Moodle
	// match an imported CSV by these words, in English whatever the
	// reader's language.
	"SIS User ID":         "Canvas's column name",
	"SIS Login ID":        "Canvas's column name",
	"    Points Possible": "Canvas's export's row name, as it reads it back",
	"Email address":       "Moodle's user field, as its import maps it",
	"ID number":           "Moodle's user field, as its import maps it",
	"cnpa lab":            "the default assignment column: a name in the LMS, not prose",
	// A table of steps out of order panics when the binary starts: a
	// programming error every test that loads the table catches, which
	// no learner sees.
	"lab: step %d is number %d in the table":    "a table built wrongly, caught at start",
	"course: step %d is graded as another step": "a table built wrongly, caught at start",
	// Error context wrapped around an error (fmt.Errorf("...: %w")), as the
	// house style writes it (STYLE.md: wrap with context, lowercase): it
	// names the API operation that failed, as kubectl's own errors do; the
	// learner reads the error it wraps, whose words are the API server's.
	"get CRD %s: %w":                                         "error context",
	"get team-alpha/team-quota: %w":                          "error context",
	"get namespace %s: %w":                                   "error context",
	"get teamspace %s: %w":                                   "error context",
	"get role %s/%s: %w":                                     "error context",
	"status of %s: %w":                                       "error context",
	"list teamspaces: %w":                                    "error context",
	"list namespaces: %w":                                    "error context",
	"list resourcequotas: %w":                                "error context",
	"drop the finalizers of %s: %w":                          "error context",
	"drop the finalizers of probe %s: %w":                    "error context",
	"create temporary TeamSpace %s: %w":                      "error context",
	"delete namespace %s: %w":                                "error context",
	"delete teamspace %s: %w":                                "error context",
	"delete the probe's namespace %s: %w":                    "error context",
	"delete CRD %s: %w":                                      "error context",
	"CRD %s not gone: %w":                                    "error context",
	"remove finalizer %s from %s: %w":                        "error context",
	"remove %s of the evidence dir %s: %w":                   "error context",
	"keep the lab's choices in %s: %w":                       "error context",
	"kubectl patch %s %s with %s: %w":                        "error context, as the command shown",
	"kubectl label %s %s %s=%s: %w":                          "error context, as the command shown",
	"kubectl delete %s %s: %w":                               "error context, as the command shown",
	"the answer to DELETE %s: %w":                            "error context",
	"read namespace kube-system, the cluster's identity: %w": "error context",
	"follow the journal of %s: %w":                           "error context",
	"getent passwd %s: unexpected answer %q":                 "error context, naming the command",
	"getent passwd %s: uid %q gid %q: %w":                    "error context, naming the command",
	"rename into %s: %w":                                     "error context",
	"read cnpa's manifest %s: %w":                            "error context",
	"read cnpa's manifest: %w":                               "error context",
	"record %s in cnpa's manifest: %w":                       "error context",
	"service marker: %w":                                     "error context",
	"open directory":                                         "an os.PathError's Op, as os names its own (open, read): the error context of the error it wraps",
	"write archive: %w":                                      "error context",
	"keep your %s as %s: %w":                                 "error context",
	"identity manifest: %w":                                  "error context (assets, cnpa's own)",
	"parse manifest: %w":                                     "error context (assets, cnpa's own)",
	"render the class page: %w":                              "error context (a template cnpa carries)",
	"render the report: %w":                                  "error context (a template cnpa carries)",

	// cnpa's own bugs, a build gone wrong: never the learner's doing.
	"%T has no metadata":                                              "a watch of objects without metadata",
	"%q is not a path inside the directory":                           "safefs asked for a path cnpa built outside its directory",
	" is not an evidence file of the lab":                             "lab.State.Value asked for a file no step writes",
	"%s is not an evidence file of the lab":                           "lab.ReadFile asked for a file no step writes",
	"cannot apply kind %s":                                            "a kind cnpa's embedded manifests do not have",
	"embedded reconcile.sh has no shebang line":                       "assets/reconcile.sh as embedded",
	"render unit: unknown placeholder at %q":                          "assets/cnpa-op.service as embedded",
	"transient run: no command":                                       "service.TransientRun of cnpa's own unit",
	"transient run: %s line %q is no directive":                       "service.TransientRun of cnpa's own unit",
	"transient run: %s line %q has a specifier cnpa does not resolve": "service.TransientRun of cnpa's own unit",
	"burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0": "client-go's own check and words (rest.RESTClientFor), repeated by kube.NewTyped",

	// Values, not words: recorded in files that other programs read, and
	// said in the chosen language where they are shown.
	"garbage collector":         "timeline.GarbageCollector, a value of timeline-stepN.json; printed as timeline.actor.*",
	"namespace controller":      "timeline.NamespaceController, likewise",
	"quota controller":          "timeline.QuotaController, likewise",
	"service manager":           "timeline.ServiceManager, likewise",
	"another writer":            "timeline.OtherWriter, likewise",
	"teamspace alpha":           "a timeline entry's object, a value programs read (Entry.Object)",
	"teamspace beta":            "a timeline entry's object, likewise",
	"delete teamspace ":         "reaction.DeletionKey, a key",
	"class file":                "kube.SourceClassFile, how a kubeconfig was chosen; said by kube.SourceWords",
	"null or object":            "evidence.Kind.String, a JSON type's name for programs; a problem says it as evidence.kind.*",
	"integer or string":         "evidence.Kind.String, likewise",
	"cnpa TeamSpace controller": "the system user cnpa-op's GECOS field (useradd --comment), in /etc/passwd",

	// Names, the same in every language: an object, a field, a key.
	" served=true storage=true": "a CRD version's fields and values, as kubectl shows them",
	"TeamSpace alpha":           "an object as kubectl names it (kind, name): a placeholder's value",
	"TeamSpace beta":            "an object as kubectl names it, likewise",
	"alpha spec.pods":           "an object's field: a placeholder's value",
	"team-quota hard.pods":      "a ✓/✗ line's name: the field it shows, a key of -o json",
	"archive/beta.json pods":    "a ✓/✗ line's name, likewise",
	"api server":                "a doctor check's name, its JSON key (docs/i18n.md)",
	"evidence dir":              "a doctor check's name, likewise",
	"evidence dir owner":        "a doctor check's name, likewise",

	// Commands, said as they are.
	"cnpa class grade":      "the JUnit document's name: the command that made it",
	"cnpa check":            "the JUnit document's name: the command that made it",
	"cnpa step all":         "a command the hints give",
	"cnpa service ":         "a command the timelines record",
	"getent passwd ":        "a command step 4 shows",
	"jq --arg uid ":         "a command step 5 shows",
	"apt-get install -y jq": "a command doctor's fix gives",
	"chmod go-w ":           "a command doctor's fix gives",
	"chown root ":           "a command safefs's refusal gives",
	"; chown root ":         "a command doctor's fix gives",
	"; do sleep 0.2; done":  "a command the steps show",
	"if %s >/dev/null 2>&1; then %s=true; else %s=false; fi":                                              "a command the steps show",
	"$([ \"$rv_before\" != \"$rv_after\" ] && echo true || echo false)":                                   "a command step 3 shows",
	"$([ \"$team_beta_exists\" = false ] && echo true || echo false)":                                     "a command step 6 shows",
	"(umask 077; kubectl config view --raw --minify --flatten -o json | jq --argjson secret \"$secret\" ": "a command step 4 shows",
	"while true; do %s; sleep 3; done":                                                                    "the lab text's loop, which the unit runs",

	// kubectl's own answers, shown as kubectl prints them.
	" (no change)": "kubectl's answer to a patch that changed nothing",
	"namespace/kube-system labeled (server dry run)": "kubectl's answer",
	"Error from server (%s): %s":                     "kubectl's answer",
	"Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again": "the API server's own 409 message, which cnpa stress's proxy answers in its stead",
	"Internal error occurred: injected by cnpa stress":                                                                           "a 500's message as the API server words one, which cnpa stress's proxy answers in its stead",
	// The API server's own words for a 403, a 410 and a 429, which cnpa
	// stress's proxy answers in its stead (fault_forbidden.go, fault_gone.go,
	// fault_throttle.go): a client reads them as the server's.
	"%s %q is forbidden: the service's identity cannot %s resource %q in API group %q (its RBAC was revoked by cnpa stress)": "a 403's message as the authorizer words one, answered by cnpa stress's proxy",
	"too old resource version: %d (%s)":          "the API server's 410 message for a watch, answered by cnpa stress's proxy",
	"the cache is starting again":                "part of the 410 message above",
	"Too many requests, please try again later.": "kube-apiserver's own 429 message, answered by cnpa stress's proxy",
	"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.": "kube-apiserver's own 410 message for an expired continue token, answered by cnpa stress's proxy",

	// File contents: scripts, units, kubeconfigs, as written (and some
	// of it matched again when read).
	"complete -c cnpa -n '__fish_seen_subcommand_from step explain' -f -a '%s'\n": "the fish completion script",
	"ExecStart=/bin/bash -c 'while true; do %s; sleep 3; done'":                   "the lab text's unit line, shown as the fix",
	"# Written by cnpa; ": "the first words of a unit cnpa wrote, matched (service.CnpaWrote)",
	"# Written by cnpa; edit it and it is yours (cnpa then uses it as it is). sha256:": "the first line of a unit cnpa writes, matched (likewise)",
	"Written by `cnpa step 4` / `cnpa service install`":                                "what an earlier cnpa's unit says, matched (likewise)",
	"# cnpa-op.service as the lab text's step 4 shows it":                              "a line of assets/cnpa-op-lab.service, matched",
	"# Its own identity (cnpa step 4), as the user running cnpa: the\n":                "a comment of the unit cnpa writes",
	"# ServiceAccount's kubeconfig as a credential.\n":                                 "a comment of the unit cnpa writes",
	"# Root with the learner's kubeconfig (--service-identity admin); home\n":          "a comment of the unit cnpa writes",
	"# directories readable (the kubeconfig may live in ~/.kube) but not writable.\n":  "a comment of the unit cnpa writes",
	"# Its own identity (cnpa step 4): a system user without privileges, and the":      "a comment of the unit cnpa writes",
	"# ServiceAccount's kubeconfig as a credential only this service can read.":        "a comment of the unit cnpa writes",
	"# /root and /home are empty to it, but for what it must reach: the archive":       "a comment of the unit cnpa writes",
	"# dir (owned by ": "a comment of the unit cnpa writes",
	", at the path the lab text names) and what it runs.": "a comment of the unit cnpa writes",
	"reconcile.sh (cnpa Go engine)":                       "a line of the reconcile.sh cnpa writes, matched (labenv's recoveredState)",
	"Pinned by cnpa for this machine":                     "a line of the reconcile.sh cnpa writes, matched (likewise)",
	"# --context %q: the first file of KUBECONFIG names it as current-context\n# (kubectl has no environment variable for a context).\n":                                                                                                                                                                                                                                                               "the shell engine's reconcile.sh",
	"%s\n# %s (the environment still wins):\n%s%s\n[ -n \"${CNPA_ARCHIVE_DIR:-}\" ] || CNPA_ARCHIVE_DIR=%s\n[ -n \"${CNPA_FINALIZER:-}\" ] || CNPA_FINALIZER=%t\nexport KUBECONFIG CNPA_ARCHIVE_DIR CNPA_FINALIZER\n%s":                                                                                                                                                                                "the shell engine's reconcile.sh",
	"#!/usr/bin/env bash\n# %s: one level-triggered pass over every\n# TeamSpace. For each one it makes sure namespace team-<name> (owned by the\n# TeamSpace), ResourceQuota team-quota and status.observedGeneration match\n# the spec, and writes nothing when they already do. Installed by cnpa.\n%s\nexec %s controller --once --kubeconfig \"$KUBECONFIG\"%s --archive-dir %s --finalizer=%t\n": "the Go engine's reconcile.sh",
	"# Written by cnpa for --context %s. cnpa's reconcile.sh and cnpa-op.service\n# run with KUBECONFIG=<this file>:<your kubeconfig>; kubectl merges the two\n# and takes current-context from the first file that sets it: this one.\n# Clusters, users and credentials all come from your kubeconfig.\napiVersion: v1\nkind: Config\ncurrent-context: %s\n":                                         "the kubeconfig cnpa writes for --context",

	// Text a program matches, not a person reads.
	`(?m)^(NAME|USAGE|VERSION|DESCRIPTION|AUTHOR|COMMANDS|GLOBAL OPTIONS|OPTIONS|CATEGORY|COPYRIGHT)\b`: "urfave/cli's help headings, matched in its templates and said as help.heading.*",
	"would exceed context deadline":                                       "client-go's rate limiter's error, matched",
	"may only add or remove the finalizer":                                "the admission policy's message, matched in the controller's log",
	"is forbidden":                                                        "kubectl's error, matched in the script's output",
	"unexpected end of JSON input":                                        "encoding/json's error, matched (a submission cut short)",
	"flag provided but not defined: ":                                     "the Go flag package's error, matched (cmd/cnpa/usage.go) and said again in the catalog's words",
	"flag needs an argument: ":                                            "the Go flag package's error, likewise",
	"^invalid value \"(.*)\" for flag -+(\\S+): (.*)$":                    "the Go flag package's error, likewise",
	"cannot (\\w+) resource \"([^\"]+)\"(?: in API group \"[^\"]*\")?":    "kubectl's RBAC refusal, matched (identity.ExplainRefusal)",
	"denied request: (.*)$":                                               "the admission policy's refusal, matched (likewise)",
	"cnpa-controller may not set or change the finalizers or annotations": "the admission policy's message (assets/admission.yaml), matched to its fix (identity.fix.*)",
	"cnpa-controller may not set or change labels":                        "the admission policy's message, likewise",
	"cnpa-controller may not change the ownerReferences":                  "the admission policy's message, likewise",
	"cnpa-controller may not take over namespace":                         "the admission policy's message, likewise",
	"cnpa-controller may only write namespaces named team-<name>":         "the admission policy's message, likewise",
	"cnpa-controller may only write the quota team-quota":                 "the admission policy's message, likewise",
	"cnpa-controller may not create TeamSpaces":                           "the admission policy's message, likewise",
	"cnpa-controller may change only the finalizers of TeamSpace":         "the admission policy's message, likewise",
	"cnpa-controller may only add or remove the finalizer":                "the admission policy's message, likewise",

	// The API server's refusal of a server-side apply, matched
	// (ssaconflict.Find), and one field manager of it.
	"Apply failed with (\\d+) conflicts?: ?(.*)$": "the API server's refusal, matched",
	"^conflicts? with \"((?:[^\"\\\\]|\\\\.)*)\"(?: with subresource \"[^\"]*\")?(?: using [^\\s:]+)?(?: at [^\\s]+)?:\\s*(.*)$": "likewise, one manager",
}

// allowUsed are the allowProse entries the lint met.
var allowUsed = map[string]bool{}

// notProse are the fields of composite literals, and the constants and
// variables, whose value is, as a category, no prose for the catalog: the
// English source of catalog messages, looked up by id and held equal to
// them by a test; file contents (a script, a manifest) written as they
// are. A field is "package Type.Field": its type as the literal names it
// (T{...}, &T{...}, pkg.T{...}) or as its enclosing []T or map[K]T literal
// implies it; a declaration is "package Name". Every literal in such a
// value is let be. The lint fails on an entry it never meets, as on
// allowProse's.
var notProse = map[string]string{
	// Every command's help: the English of help.* (TestHelpCatalog).
	"cmd/cnpa cli.Command.Usage":       "help.CMD.usage, TestHelpCatalog",
	"cmd/cnpa cli.Command.Description": "help.CMD.description, TestHelpCatalog",
	"cmd/cnpa cli.StringFlag.Usage":    "help.flag.NAME, help.CMD.flag.NAME, TestHelpCatalog",
	"cmd/cnpa cli.BoolFlag.Usage":      "likewise",
	"cmd/cnpa cli.IntFlag.Usage":       "likewise",
	"cmd/cnpa cli.DurationFlag.Usage":  "likewise",
	"cmd/cnpa appUsage":                "help.app.usage, TestHelpCatalog",
	// The commands of the lab's steps (internal/course/stepN/step.go),
	// shown as they are in every language; their comments are the
	// catalog's, stepN.cmd.M, as all of a step's and a rule's words are.
	"internal/course/step* lab.Explanation.Commands": "commands, said as they are",
	// The mistakes' advice (lab.Say).
	"internal/lab Mistake.Advice":       "lab.advice.*, TestAdviceCatalog",
	"internal/lab KeepOtherFinalizers":  "lab.advice.keep_other_finalizers, TestAdviceCatalog",
	"internal/lab ArchiveThenRelease":   "lab.advice.archive_then_release, likewise",
	"internal/lab StatusViaSubresource": "lab.advice.status_via_subresource, likewise",
	// Values: the same in every language.
	"internal/lab Mistake.Name": "a diagnosis's name, a value submissions and reports keep (docs/i18n.md)",
	// Commands.
	"internal/watch restartCommands": "the commands that restart the service with a changed unit, said as they are",
	"internal/lab processCommands":   "the lab text's systemctl and journalctl commands, and the cnpa service commands that do the same without systemd",
	// File contents.
	"internal/identity KubeconfigJQ": "the jq program a learner's shell runs (step 4 shows it)",
	"cmd/cnpa bashCompletion":        "the bash completion script",
	"cmd/cnpa zshCompletion":         "the zsh completion script",
	"internal/service dropInHeader":  "the head of the drop-in cnpa stress writes (a unit file)",
	"internal/service restartScript": "the shell loop process mode runs a learner's Restart=always unit in",
	"internal/ssaconflict Fix":       "the command line of the fix, said as it is",
	// The TeamSpaces the steps' runs apply (course/stepN/run.go).
	"internal/course/step1 AlphaYAML": "alpha.yaml, the TeamSpace of the lab text's step 1",
	"internal/course/step6 BetaYAML":  "beta.yaml, the TeamSpace of the lab text's step 6",
}

// notProseUsed are the notProse entries the lint met.
var notProseUsed = map[string]bool{}

// Every string literal of the learner-facing packages that reads as prose
// is in the catalog: it appears in the code only as a message id (i18n.T,
// i18n.N), or is in allowProse with a reason, or in a field or declaration
// notProse names. Logs (log, slog) and struct tags are not output to a learner;
// comments are not literals.
//
// This holds "no learner-facing string outside the catalog" for these
// packages at the source, where a new message is written: a new English
// sentence printed, returned as an error, put in a check's title, hint,
// note, expected or found fails here, whatever function carries it.
func TestNoProseOutsideTheCatalog(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	for _, pkg := range learnerFacing {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", pkg, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			found = append(found, proseIn(t, pkg, file)...)
		}
	}
	for s := range allowProse {
		if !allowUsed[s] {
			t.Errorf("allowProse has %q, which no learner-facing package says any more: drop it", s)
		}
	}
	for f := range notProse {
		if !notProseUsed[f] {
			t.Errorf("notProse has %q, which no literal of a learner-facing package fills any more: drop it", f)
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: English outside the catalog: say it with i18n.T (catalog/*.toml), or allow it in allowProse with why", f)
	}
}

// Every package of cnpa (a directory of internal/, cmd/ or assets/ with
// Go files that are not tests) is read by the lint or left out with why:
// a package added later is decided, not forgotten.
func TestEveryPackageDecided(t *testing.T) {
	root := filepath.Join("..", "..")
	decided := map[string]bool{}
	for _, p := range learnerFacing {
		decided[p] = true
	}
	for p := range leftOut {
		if decided[p] {
			t.Errorf("%s is both learnerFacing and leftOut", p)
		}
		decided[p] = true
	}
	seen := map[string]bool{}
	for _, top := range []string{"internal", "cmd", "assets"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			if strings.Contains(filepath.ToSlash(dir), "/testdata") {
				return nil
			}
			seen[filepath.ToSlash(dir)] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for dir := range seen {
		if !decided[dir] {
			t.Errorf("package %s is neither in learnerFacing (its words reach a person: in the catalog) nor in leftOut (why not)", dir)
		}
	}
	for p := range decided {
		if !seen[p] {
			t.Errorf("%s is listed, but there is no such package", p)
		}
	}
}

// proseIn lists the prose literals of one file of package pkg (its
// directory), as file:line: "literal".
func proseIn(t *testing.T, pkg, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	// elided are the types of composite literals written without one
	// ({...} in a []T{...}), from their enclosing literal; skip are the
	// values notProse lets be.
	elided := map[ast.Expr]ast.Expr{}
	skip := map[ast.Node]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if n != nil && skip[n] {
			return false
		}
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.Field:
			// A struct tag (json:"...") is for encoding/json; look at the
			// type only.
			ast.Inspect(n.Type, func(ast.Node) bool { return true })
			return false
		case *ast.ValueSpec:
			for i, name := range n.Names {
				decl := pkg + " " + name.Name
				if _, ok := notProse[decl]; ok && i < len(n.Values) {
					notProseUsed[decl] = true
					skip[n.Values[i]] = true
				}
			}
		case *ast.CompositeLit:
			typ := n.Type
			if typ == nil {
				typ = elided[n]
			}
			elem := elementType(typ)
			name := typeName(typ)
			for _, e := range n.Elts {
				v := e
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					v = kv.Value
					if key, ok := kv.Key.(*ast.Ident); ok && name != "" {
						field := stepFolders(pkg) + " " + name + "." + key.Name
						if _, ok := notProse[field]; ok {
							notProseUsed[field] = true
							skip[kv.Value] = true
						}
					}
				}
				if elem == nil {
					continue
				}
				if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.AND {
					v = u.X // &T{...} elided as {...} in a []*T
				}
				if c, ok := v.(*ast.CompositeLit); ok && c.Type == nil {
					elided[c] = elem
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					switch x.Name {
					case "slog", "log", "logger":
						// Log lines stay English (docs/i18n.md).
						return false
					}
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				return true
			}
			if _, ok := allowProse[s]; ok {
				allowUsed[s] = true
				return true
			}
			if prose.MatchString(codeSpan.ReplaceAllString(s, "")) {
				out = append(out, fmt.Sprintf("%s: %q", fset.Position(n.Pos()), s))
			}
		}
		return true
	})
	return out
}

// stepFolders is pkg as notProse names it: every step's folder
// (internal/course/stepN) as internal/course/step*, since each says the
// same kinds of things.
func stepFolders(pkg string) string {
	if strings.HasPrefix(pkg, "internal/course/step") {
		return "internal/course/step*"
	}
	return pkg
}

// typeName is a composite literal's type as notProse names it: Step,
// cli.Command (a pointer's element: *T is T); "" for any other type.
func typeName(typ ast.Expr) string {
	switch t := typ.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			return x.Name + "." + t.Sel.Name
		}
	case *ast.StarExpr:
		return typeName(t.X)
	}
	return ""
}

// elementType is the type of the elements of a slice, array or map
// literal of type typ (a pointer's element: *T is T), nil for others.
func elementType(typ ast.Expr) ast.Expr {
	var elem ast.Expr
	switch t := typ.(type) {
	case *ast.ArrayType:
		elem = t.Elt
	case *ast.MapType:
		elem = t.Value
	default:
		return nil
	}
	if s, ok := elem.(*ast.StarExpr); ok {
		return s.X
	}
	return elem
}

// The lint sees English wherever it is carried (printed, returned as an
// error, put in a value) and lets ids, keys, values, commands, logs and
// struct tags be.
func TestProseInFindsEnglish(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\n" +
		"type R struct {\n\tA string `json:\"a,omitempty\" yaml:\"the a field\"`\n}\n\n" +
		"func f(p printer) error {\n" +
		"\tp.Line(\"the controller is gone\")\n" + // flagged
		"\t_ = R{A: \"not converged yet\"}\n" + // flagged
		"\tslog.Info(\"reconcile pass done\", \"name\", n)\n" +
		"\t_ = i18n.T(\"check.step5.quota_in_sync\")\n" +
		"\t_ = \"`kubectl get teamspaces`\"\n" +
		"\t_ = \"step5.quota_in_sync\"\n" +
		"\treturn fmt.Errorf(\"no step %d\", n)\n" + // flagged
		"}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := proseIn(t, "x", file)
	if len(got) != 3 || !strings.Contains(got[0], "the controller is gone") || !strings.Contains(got[1], "not converged yet") || !strings.Contains(got[2], "no step %d") {
		t.Errorf("proseIn: got %q, want the three English literals", got)
	}
}

// The lint lets be the fields and declarations notProse names, a field
// in a literal of that type however it is written (T{...}, &T{...},
// {...} in a []T, []*T or map[K]T, pkg.T{...}), and only those: the same
// field of another type, another field of that type, another declaration
// and the same in another package are read.
func TestProseInSkipsNotProse(t *testing.T) {
	for f, why := range map[string]string{
		"y Step.Title":         "held by a test",
		"y Step.Teaches":       "held by a test",
		"y Rule.Title":         "held by a test",
		"y cli.Command.Usage":  "held by a test",
		"y cli.BoolFlag.Usage": "held by a test",
		"y script":             "file contents",
	} {
		notProse[f] = why
		defer delete(notProse, f)
		defer delete(notProseUsed, f)
	}
	file := filepath.Join(t.TempDir(), "y.go")
	src := `package y

var s = &Step{Title: "Registering a type does nothing", Teaches: "A CRD only registers " +
	"a new noun with the API server", Name: "the step's name"} // Name flagged
var rules = []Rule{{Title: "before.json uid is the live uid", Hint: "run it again"}} // Hint flagged
var byName = map[string]*Rule{"a": {Title: "the file is there"}}
var other = Verdict{Title: "the title of a verdict"} // flagged: not Rule
var cmd = &cli.Command{Usage: "grade the lab", Flags: []cli.Flag{
	&cli.BoolFlag{Name: "yes", Usage: "do not ask for confirmation"},
	&cli.StringFlag{Name: "out", Usage: "write the submission"}, // flagged: not named
}}
var nested = []*cli.Command{{Usage: "run the controller"}}
const script, other2 = "#!/bin/sh\n# one pass over every TeamSpace\n", "a second value" // other2 flagged
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := proseIn(t, "y", file)
	want := []string{"the step's name", "run it again", "the title of a verdict", "write the submission", "a second value"}
	if len(got) != len(want) {
		t.Fatalf("proseIn: got %q, want %q", got, want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("proseIn: got %q, want %q", got[i], w)
		}
	}
	// In another package the same fields are prose.
	if got := proseIn(t, "z", file); len(got) != 14 {
		t.Errorf("proseIn in package z: %d literals, want all 14: %q", len(got), got)
	}
}
