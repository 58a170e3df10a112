// Package submission is the file `cnpa submit` writes and `cnpa class
// grade` reads: one self-contained JSON document per learner with the
// evidence files verbatim, the timelines, every check as the learner's own
// run judged it, what that run saw of the cluster, and a SHA-256 over all
// of it. It owns the format, its hash and its strict reading, and nothing
// else: grading is package class's.
//
// The document is an envelope around the content:
//
//	{"kind": "cnpa-submission", "format": 1, "sha256": "<hex>", "content": {...}}
//
// The hash is over the content's compact JSON, so re-indenting the file
// keeps it, and changing any value breaks it. It proves the file is whole,
// not who made it: anyone can compute a SHA-256. What the content claims is
// judged again by the grader, and live against the learner's cluster.
package submission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// Kind marks a submission; Format is the version of its content this cnpa
// writes and the newest it reads.
const (
	Kind   = "cnpa-submission"
	Format = 1
)

// DefaultName is the file `cnpa submit` writes in the evidence dir.
const DefaultName = "submission.json"

// Files are the learner's files a submission holds verbatim: the seven
// JSON records, the CRD and alpha as the learner applied them, and the
// controller's archive record of beta. Nothing else of the evidence dir:
// reconcile.sh and the service's kubeconfig stay on the VM.
var Files = append(append([]string{}, lab.Files...), "crd.yaml", "alpha.yaml", lab.BetaArchive)

// Cluster is which cluster the learner's run graded: two learners on one
// cluster share its kube-system uid.
type Cluster struct {
	// KubeSystemUID is the uid of namespace kube-system, made once when the
	// cluster is born.
	KubeSystemUID string `json:"kube_system_uid"`
	ServerVersion string `json:"server_version"`
	// Datastore is etcd, kine or unknown (as `cnpa doctor` tells).
	Datastore string `json:"datastore"`
	// Server is the API server's address as the learner's kubeconfig
	// names it.
	Server string `json:"server"`
}

// Content is everything the hash covers.
type Content struct {
	Learner     string    `json:"learner"`
	CnpaVersion string    `json:"cnpa_version"`
	SubmittedAt time.Time `json:"submitted_at"`
	Cluster     Cluster   `json:"cluster"`
	// Evidence maps each file of Files that exists to its content, as
	// text; EvidenceBase64 holds, base64-encoded, any that is not UTF-8,
	// so that nothing is lost either way.
	Evidence       map[string]string `json:"evidence"`
	EvidenceBase64 map[string][]byte `json:"evidence_base64,omitempty"`
	// Timelines maps timeline-step<N>.json to its content, verbatim.
	Timelines map[string]string `json:"timelines"`
	// Checks are every check of the learner's `cnpa check`-run, in report
	// order, each with the classic mistake it points to; the counts are
	// that report's.
	Checks  []judge.Check `json:"checks"`
	Passed  int           `json:"passed"`
	Failed  int           `json:"failed"`
	Skipped int           `json:"skipped"`
	Notes   int           `json:"notes"`
	// Diagnosis is the run's classic mistake (judge.LabDiagnosis), "" when
	// every check passed.
	Diagnosis string `json:"diagnosis,omitempty"`
	// Facts is what the run saw of the cluster and the VM before judging.
	Facts *judge.Facts `json:"facts"`
}

// envelope is the document on disk.
type envelope struct {
	Kind    string          `json:"kind"`
	Format  int             `json:"format"`
	SHA256  string          `json:"sha256"`
	Content json.RawMessage `json:"content"`
}

// Submission is a submission as read.
type Submission struct {
	Content
	// Path is the file it was read from.
	Path string `json:"-"`
	// SHA256 is the hash the file carries; HashOK whether the content
	// still has it.
	SHA256 string `json:"-"`
	HashOK bool   `json:"-"`
}

// Report is the content's checks as a judge.Report, for the outputs and
// the page that read one.
func (c *Content) Report() *judge.Report {
	rep := &judge.Report{Server: c.Cluster.Server, Passed: c.Passed, Failed: c.Failed, Skipped: c.Skipped, Notes: c.Notes}
	if c.Facts != nil {
		rep.Dir = c.Facts.Dir
	}
	rep.Checks = append(rep.Checks, c.Checks...)
	return rep
}

// Marshal is the document for c: the envelope with the hash of c.
func Marshal(c *Content) ([]byte, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	return json.MarshalIndent(envelope{Kind: Kind, Format: Format, SHA256: hex.EncodeToString(sum[:]), Content: body}, "", "  ")
}

// Hash is the SHA-256 of raw content as the envelope carries it: of its
// compact form, so indentation does not count.
func Hash(raw []byte) (string, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// Error is a file that cannot be read as a submission; it names the file
// and what to do.
type Error struct {
	Path, Problem, Fix string
}

func (e *Error) Error() string { return e.Path + " " + e.Problem + ": " + e.Fix }

const fixResend = "ask the learner to run `cnpa submit` again and send the file it writes"

// Read reads one submission strictly. A file that is not one, is cut
// short, or is of a newer format is an *Error; a content that no longer
// matches its hash is read, with HashOK false, for the grader to flag.
func Read(path string) (*Submission, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Path: path, Problem: "cannot be read (" + err.Error() + ")", Fix: "check the path"}
	}
	return Parse(path, data)
}

// Parse is Read of data already in memory.
func Parse(path string, data []byte) (*Submission, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			return nil, &Error{Path: path, Problem: "is empty", Fix: fixResend}
		case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) || strings.Contains(err.Error(), "unexpected end of JSON input"):
			return nil, &Error{Path: path, Problem: fmt.Sprintf("is truncated: its JSON ends after %d bytes, in the middle of the document", len(data)), Fix: fixResend}
		case bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && errors.As(err, &typ):
			return nil, &Error{Path: path, Problem: "is not a cnpa submission (" + err.Error() + ")", Fix: "give the file `cnpa submit` writes (" + DefaultName + ")"}
		default:
			return nil, &Error{Path: path, Problem: "is not a cnpa submission: it is not JSON (" + err.Error() + ")", Fix: "give the file `cnpa submit` writes (" + DefaultName + ")"}
		}
	}
	switch {
	case env.Kind != Kind:
		what := "has no \"kind\": \"" + Kind + "\""
		if env.Kind != "" {
			what = fmt.Sprintf("is a %q, not a %q", env.Kind, Kind)
		}
		return nil, &Error{Path: path, Problem: "is not a cnpa submission: it " + what, Fix: "give the file `cnpa submit` writes (" + DefaultName + ")"}
	case env.Format > Format:
		return nil, &Error{Path: path, Problem: fmt.Sprintf("is a format-%d submission, newer than this cnpa reads (format %d)", env.Format, Format),
			Fix: "grade it with the cnpa the learner used, or a newer one (`cnpa version` prints this one's)"}
	case env.Format < 1:
		return nil, &Error{Path: path, Problem: "has no format number", Fix: fixResend}
	case len(env.Content) == 0:
		return nil, &Error{Path: path, Problem: "has no content", Fix: fixResend}
	}
	s := &Submission{Path: path, SHA256: env.SHA256}
	dec := json.NewDecoder(bytes.NewReader(env.Content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Content); err != nil {
		return nil, &Error{Path: path, Problem: "has a content this cnpa cannot read (" + err.Error() + ")", Fix: fixResend}
	}
	if s.Learner == "" {
		return nil, &Error{Path: path, Problem: "names no learner", Fix: "ask the learner to run `cnpa submit --learner NAME` again"}
	}
	if s.Facts == nil {
		return nil, &Error{Path: path, Problem: "holds no facts of the cluster", Fix: fixResend}
	}
	sum, err := Hash(env.Content)
	s.HashOK = err == nil && sum == env.SHA256
	return s, nil
}

// Write writes c's document to path atomically (package atomicfile): a
// half-written submission is never mailed.
func Write(path string, c *Content) error {
	data, err := Marshal(c)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadFiles fills c's evidence and timelines from the evidence dir dir:
// every file of Files that exists, verbatim.
func (c *Content) ReadFiles(dir string, timelineDir string) error {
	c.Evidence, c.Timelines = map[string]string{}, map[string]string{}
	for _, f := range Files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(dir, f), err)
		}
		c.put(f, data)
	}
	entries, err := os.ReadDir(timelineDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "timeline-step") && strings.HasSuffix(e.Name(), ".json") {
			data, err := os.ReadFile(filepath.Join(timelineDir, e.Name()))
			if err != nil {
				return err
			}
			c.Timelines[e.Name()] = string(data)
		}
	}
	return nil
}

func (c *Content) put(name string, data []byte) {
	if utf8.Valid(data) {
		c.Evidence[name] = string(data)
		return
	}
	if c.EvidenceBase64 == nil {
		c.EvidenceBase64 = map[string][]byte{}
	}
	c.EvidenceBase64[name] = data
}

// File is one evidence file's bytes, and whether the submission holds it.
func (c *Content) File(name string) ([]byte, bool) {
	if s, ok := c.Evidence[name]; ok {
		return []byte(s), true
	}
	b, ok := c.EvidenceBase64[name]
	return b, ok
}

// Materialize writes the submission's evidence and timelines under dir as
// an evidence dir looks (timelines under timelineDir), so that the
// grader's own readers judge them.
func (c *Content) Materialize(dir, timelineDir string) error {
	for _, f := range Files {
		data, ok := c.File(f)
		if !ok {
			continue
		}
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	if len(c.Timelines) == 0 {
		return nil
	}
	if err := os.MkdirAll(timelineDir, 0o755); err != nil {
		return err
	}
	for name, data := range c.Timelines {
		if filepath.Base(name) != name {
			continue // a name with a path in it is not one cnpa wrote
		}
		if err := os.WriteFile(filepath.Join(timelineDir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}
