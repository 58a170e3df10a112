// Package ssaconflict recognises, in a controller's own output, the API
// server refusing a server-side apply because another field manager owns
// fields the apply sets (a hand edit by `kubectl patch` or `kubectl edit`,
// a grader's probe), and says what is wrong and the fix in the learner's
// language.
//
// The refusal is the API server's (k8s.io/apimachinery v0.37.2,
// pkg/util/managedfields/internal/conflict.go: getConflictMessage and
// printManager), and kubectl prints it as it is, the object unnamed:
//
//	error: Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .spec.hard.pods
//
// or, for more than one field, one manager after the other, sorted:
//
//	error: Apply failed with 2 conflicts: conflicts with "kubectl-edit" using v1:
//	- .spec.hard.requests.cpu
//	conflicts with "kubectl-patch" using v1:
//	- .spec.hard.pods
//
// ("error: " only when one object of the apply failed). A program on
// client-go logs the same message as its error's text, often quoted on
// one line of a structured log (`err="Apply failed with … \"kubectl-patch\"
// using v1: .spec.hard.pods"`), which is read too.
package ssaconflict

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Owner is a field manager that holds fields the refused apply sets.
type Owner struct {
	// Manager is the field manager's name, as managedFields names it
	// (kubectl-patch, kubectl-edit, cnpa-check).
	Manager string `json:"manager"`
	// Fields are the paths it owns, as the API server writes them
	// (.spec.hard.pods).
	Fields []string `json:"fields"`
}

// Conflict is one refused apply: who owns which of the fields it sets.
type Conflict struct {
	Owners []Owner `json:"owners"`
}

// ForceFlag is kubectl's flag that takes the fields over; Fix the line a
// learner's shell controller applies with (its own field manager named
// once, as the lab's every write carries one).
const (
	ForceFlag = "--force-conflicts"
	Fix       = "kubectl apply --server-side --field-manager=<yours> " + ForceFlag + " -f -"
)

var (
	// head is the start of the refusal: its count, and what follows on
	// the same line.
	head = regexp.MustCompile(`Apply failed with (\d+) conflicts?: ?(.*)$`)
	// owner is one manager of the refusal ("conflict with" for a single
	// field, "conflicts with" before a list), what follows its colon the
	// field of the single form. A manager of a subresource or an Update
	// adds " with subresource …" and " using <apiVersion>".
	owner = regexp.MustCompile(`^conflicts? with "((?:[^"\\]|\\.)*)"(?: with subresource "[^"]*")?(?: using [^\s:]+)?(?: at [^\s]+)?:\s*(.*)$`)
)

// Find is every refused apply in log, merged: each field manager named
// once, in the order the log first names it, with the fields it holds
// (an object's, or several objects': kubectl names none); nil when log
// holds none. A pass refused for a TeamSpace and then for another (alpha's
// quota edited by hand, a probe's by the grader) shows both managers.
func Find(log string) *Conflict {
	var all Conflict
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		m := head.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		rest := l[m[4]:]
		var body []string
		if quoted(l[:m[0]]) {
			// One line of a structured log: the message is a quoted value,
			// its newlines and quotes escaped; it ends at the first
			// unescaped quote.
			body = strings.Split(unquote(rest), "\n")
		} else {
			body = append([]string{rest}, lines[i+1:]...)
		}
		if c := parse(body); c != nil {
			all.merge(c)
		}
	}
	if len(all.Owners) == 0 {
		return nil
	}
	return &all
}

// merge adds o's owners and fields that c does not hold yet.
func (c *Conflict) merge(o *Conflict) {
	for _, in := range o.Owners {
		i := slices.IndexFunc(c.Owners, func(x Owner) bool { return x.Manager == in.Manager })
		if i < 0 {
			c.Owners = append(c.Owners, Owner{Manager: in.Manager})
			i = len(c.Owners) - 1
		}
		for _, f := range in.Fields {
			if !slices.Contains(c.Owners[i].Fields, f) {
				c.Owners[i].Fields = append(c.Owners[i].Fields, f)
			}
		}
	}
}

// Owns tells whether a manager of c holds a field under prefix
// (.spec.hard).
func (c *Conflict) Owns(prefix string) bool {
	for _, o := range c.Owners {
		for _, f := range o.Fields {
			if strings.HasPrefix(f, prefix) {
				return true
			}
		}
	}
	return false
}

// quoted tells whether a message that starts after prefix is a quoted
// value: an odd number of unescaped quotes before it.
func quoted(prefix string) bool {
	n := 0
	for i := 0; i < len(prefix); i++ {
		switch prefix[i] {
		case '\\':
			i++
		case '"':
			n++
		}
	}
	return n%2 == 1
}

// unquote is s up to its first unescaped quote, its escapes undone.
func unquote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return b.String()
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parse reads the managers and their fields from the refusal's text after
// its count, stopping at the first line that is neither (kubectl's advice
// that follows it).
func parse(body []string) *Conflict {
	var c Conflict
	for _, l := range body {
		l = strings.TrimSpace(l)
		if m := owner.FindStringSubmatch(l); m != nil {
			o := Owner{Manager: unescape(m[1])}
			if f := strings.TrimSpace(m[2]); f != "" {
				o.Fields = append(o.Fields, f)
			}
			c.Owners = append(c.Owners, o)
			continue
		}
		if f, ok := strings.CutPrefix(l, "- "); ok && len(c.Owners) > 0 {
			last := &c.Owners[len(c.Owners)-1]
			last.Fields = append(last.Fields, strings.TrimSpace(f))
			continue
		}
		break
	}
	if len(c.Owners) == 0 {
		return nil
	}
	return &c
}

// unescape is a manager's name as Go's %q wrote it.
func unescape(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// Managers are the owners' names, sorted.
func (c *Conflict) Managers() []string {
	var out []string
	for _, o := range c.Owners {
		out = append(out, o.Manager)
	}
	sort.Strings(out)
	return out
}

// owners says who owns what: `"kubectl-patch" owns .spec.hard.pods`, one
// manager after the other.
func (c *Conflict) owners(sep string) string {
	var parts []string
	for _, o := range c.Owners {
		parts = append(parts, i18n.T("ssaconflict.owns", i18n.Args{"Manager": strconv.Quote(o.Manager), "Fields": i18n.List(o.Fields)}))
	}
	return strings.Join(parts, sep)
}

// Found is the refusal for a check's found line, to follow what it
// observed (it starts with its separator, "; " in English): who owns
// which fields, in one sentence.
func (c *Conflict) Found() string {
	return i18n.T("ssaconflict.found", i18n.Args{"Owners": c.owners(i18n.T("ssaconflict.and"))})
}

// Hint is the fix for a check's hint: --force-conflicts, client-go's
// Force, and the line to apply with.
func (c *Conflict) Hint() string {
	return i18n.T("ssaconflict.hint", i18n.Args{"Flag": ForceFlag, "Fix": Fix})
}

// Explain is the whole diagnosis for a step: what was refused, who owns
// which fields, why every pass fails, and the fix by name (the fix's line,
// Fix, is the caller's to show as a command). English keeps its own line
// breaks, each manager on a line of its own; another language is one
// paragraph (docs/i18n.md).
func (c *Conflict) Explain() string {
	sep := i18n.T("ssaconflict.and")
	if i18n.Current() == i18n.English {
		// A line each, under 80 columns as a step shows them.
		sep = ";\n"
	}
	return i18n.T("ssaconflict.explain", i18n.Args{"Owners": c.owners(sep), "Flag": ForceFlag})
}

// Still is c without the owners that no longer hold any of their fields
// in objs (the lab's namespaces and quotas, with their managedFields): a
// log keeps a refusal after the learner's fix took the fields over with
// --force-conflicts, and that refusal says nothing any more. nil when no
// owner is left.
func (c *Conflict) Still(objs []metav1.Object) *Conflict {
	var out Conflict
	for _, o := range c.Owners {
		if holds(objs, o) {
			out.Owners = append(out.Owners, o)
		}
	}
	if len(out.Owners) == 0 {
		return nil
	}
	return &out
}

// holds tells whether an object of objs has a managedFields entry of o's
// manager that holds one of o's fields: its fieldsV1 names the field's
// key (f:pods for .spec.hard.pods; f:platform.labhub.io/teamspace for a
// label, whose key holds dots). A field the API server writes with a
// key of a list ([uid="…"]) counts as held when the manager holds
// anything there.
func holds(objs []metav1.Object, o Owner) bool {
	for _, obj := range objs {
		for _, m := range obj.GetManagedFields() {
			if m.Manager != o.Manager || m.FieldsV1 == nil {
				continue
			}
			raw := string(m.FieldsV1.Raw)
			for _, f := range o.Fields {
				if strings.Contains(f, "[") {
					return true
				}
				for rest := strings.TrimPrefix(f, "."); rest != ""; {
					if strings.Contains(raw, `"f:`+rest+`"`) {
						return true
					}
					_, after, ok := strings.Cut(rest, ".")
					if !ok {
						break
					}
					rest = after
				}
			}
		}
	}
	return false
}

// Current is c (Find's) kept to what the cluster still shows: the owners
// that hold their fields in the lab's namespaces (team-*) and their
// quotas (Still). When they cannot be listed, c as it is: the log is all
// there is to go by.
func Current(ctx context.Context, core typedcorev1.CoreV1Interface, c *Conflict) *Conflict {
	if c == nil {
		return nil
	}
	nss, err := core.Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return c
	}
	var objs []metav1.Object
	for i := range nss.Items {
		ns := &nss.Items[i]
		if !strings.HasPrefix(ns.Name, teamspace.NamespacePrefix) {
			continue
		}
		objs = append(objs, ns)
		qs, err := core.ResourceQuotas(ns.Name).List(ctx, metav1.ListOptions{})
		if err != nil {
			return c
		}
		for j := range qs.Items {
			objs = append(objs, &qs.Items[j])
		}
	}
	return c.Still(objs)
}
