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
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/safefs"
)

// Kind marks a submission; Format is the newest version of its content
// this cnpa reads. A content is written with the lowest format that
// carries it (formatOf): 1 before a content held the learner's
// reconcile.sh, 2 with it, 3 for a lab kept as a file (Content.Lab); a
// submission of any is read as it is, its hash unchanged.
const (
	Kind   = "cnpa-submission"
	Format = 3
)

// formatOf is the lowest format that carries c: an earlier cnpa reads a
// format 1 content, and says "update cnpa" of a newer one rather than
// failing on a field it does not know.
func formatOf(c *Content) int {
	if c.Lab != nil {
		return 3
	}
	if c.Controller != nil {
		return 2
	}
	return 1
}

// MaxControllerSize is the most of the learner's reconcile.sh a
// submission holds: a controller in bash or python is some KiB; a larger
// file is kept up to here, cut at a character, and says so (Truncated).
const MaxControllerSize = 64 << 10

// Source is a file the learner wrote that the instructor reads and no
// rule grades: their reconcile.sh, the controller itself.
type Source struct {
	Name string `json:"name"`
	// Text is its content as UTF-8, at most MaxControllerSize bytes; a
	// file that is not UTF-8 is in Base64 instead, as evidence is.
	Text   string `json:"text,omitempty"`
	Base64 []byte `json:"base64,omitempty"`
	// Size is the whole file's size in bytes, SHA256 the whole file's
	// hash, Truncated whether Text or Base64 holds less than all of it.
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	Truncated bool   `json:"truncated,omitempty"`
	// Mode is its permission bits (octal, "0755"): a script without its
	// exec bit is the classic mistake the instructor may be asked about.
	Mode string `json:"mode"`
}

// Lines is how many lines Text holds.
func (s *Source) Lines() int {
	if s.Text == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s.Text, "\n"), "\n") + 1
}

// DefaultName is the file `cnpa submit` writes in the evidence dir.
const DefaultName = "submission.json"

// Files are the learner's files a submission holds verbatim: the seven
// JSON records, the CRD and alpha as the learner applied them, and the
// controller's archive record of beta. reconcile.sh travels beside them,
// bounded and read by no rule (Content.Controller); nothing else of the
// evidence dir does: the service's kubeconfig stays on the VM.
func Files(steps lab.Table) []string {
	return append(append([]string{}, steps.Files()...), "crd.yaml", "alpha.yaml", lab.BetaArchive)
}

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
	// Exam: the lab was taken in exam mode (the instructor's policy in
	// the evidence dir said so). Left out when false, so that a
	// submission of an earlier cnpa keeps its hash.
	Exam bool `json:"exam,omitempty"`
	// Stress is the learner's last `cnpa stress`, when it ran: counted
	// only by a policy that gives its faults points. Left out when it
	// never ran, so that a submission of an earlier cnpa keeps its hash.
	Stress *judge.StressReport `json:"stress,omitempty"`
	// Controller is the learner's reconcile.sh, for the instructor to
	// read (format 2; nil when there was none, and in format 1).
	Controller *Source `json:"controller,omitempty"`
	// Lab is the lab kept as a file the submission is of, nil for the
	// TeamSpace lab (format 3). Its evidence is the files its steps name,
	// Checks its checks as the learner's run graded them, and LabFacts
	// (not Facts) what that run read of the cluster.
	Lab *LabRef `json:"lab,omitempty"`
	// LabFacts are a file lab's facts as its grading read them, by step
	// id and fact id (labfile.Report.Facts), kept as JSON for the lab's
	// engine to read with its own numbers (labfile.DecodeFacts).
	LabFacts json.RawMessage `json:"lab_facts,omitempty"`
}

// LabRef names a lab kept as a file: its metadata.name, and the SHA-256
// of its files (labfile.Hash), so that a submission is graded only with
// the lab it was made with.
type LabRef struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// ReadEvidence fills c's evidence from dir: each of names (a file lab's
// evidence files) that exists, verbatim, read as ReadFiles reads the
// TeamSpace lab's.
func (c *Content) ReadEvidence(dir string, names []string) error {
	c.Evidence, c.Timelines = map[string]string{}, map[string]string{}
	for _, f := range names {
		data, err := safefs.ReadRegular(filepath.Join(dir, filepath.Dir(f)), filepath.Base(f), MaxSize)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(dir, f), err)
		}
		c.put(f, data)
	}
	return nil
}

// MaterializeEvidence writes each of names that c holds under dir, for a
// file lab's engine to grade offline.
func (c *Content) MaterializeEvidence(dir string, names []string) error {
	for _, f := range names {
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
	return nil
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
	return json.MarshalIndent(envelope{Kind: Kind, Format: formatOf(c), SHA256: hex.EncodeToString(sum[:]), Content: body}, "", "  ")
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
// and what to do, in the chosen language.
type Error struct {
	Path, Problem, Fix string
}

func (e *Error) Error() string {
	return i18n.T("submission.error", i18n.Args{"Path": e.Path, "Problem": e.Problem, "Fix": e.Fix})
}

// problem is an *Error for path: the problem and the fix are messages of
// the catalog (submission.*), the problem's placeholders as name, value
// pairs.
func problem(path, id, fix string, kv ...any) *Error {
	args := i18n.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i].(string)] = kv[i+1]
	}
	return &Error{Path: path, Problem: i18n.T("submission."+id, args), Fix: i18n.T("submission.fix."+fix, i18n.Args{"Name": DefaultName})}
}

// MaxSize is the largest submission cnpa writes and reads: a real one is
// some hundred KiB (seven small records, the CRD, the timelines). The cap
// keeps the grader's memory flat whatever a file holds.
const MaxSize = 8 << 20

// Read reads one submission strictly. A file that is not one, is cut
// short, is larger than MaxSize, or is of a newer format is an *Error; a
// content that no longer matches its hash is read, with HashOK false, for
// the grader to flag.
func Read(path string) (*Submission, error) {
	data, err := safefs.ReadFile(path, MaxSize)
	var big *safefs.TooLargeError
	switch {
	case errors.As(err, &big):
		return nil, problem(path, "too_large", "smaller", "Max", MaxSize>>20, "Err", err.Error())
	case err != nil:
		return nil, problem(path, "unreadable", "path", "Err", err.Error())
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
			return nil, problem(path, "empty", "resend")
		case errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) || strings.Contains(err.Error(), "unexpected end of JSON input"):
			return nil, problem(path, "truncated", "resend", "N", len(data))
		case bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) && errors.As(err, &typ):
			return nil, problem(path, "not_submission", "give", "Err", err.Error())
		default:
			return nil, problem(path, "not_json", "give", "Err", err.Error())
		}
	}
	switch {
	case env.Kind == "":
		return nil, problem(path, "no_kind", "give", "Kind", Kind)
	case env.Kind != Kind:
		return nil, problem(path, "other_kind", "give", "Got", strconv.Quote(env.Kind), "Kind", strconv.Quote(Kind))
	case env.Format > Format:
		return nil, problem(path, "newer", "newer", "Got", env.Format, "Format", Format)
	case env.Format < 1:
		return nil, problem(path, "no_format", "resend")
	case len(env.Content) == 0:
		return nil, problem(path, "no_content", "resend")
	}
	s := &Submission{Path: path, SHA256: env.SHA256}
	dec := json.NewDecoder(bytes.NewReader(env.Content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Content); err != nil {
		return nil, problem(path, "bad_content", "resend", "Err", err.Error())
	}
	if s.Learner == "" {
		return nil, problem(path, "no_learner", "learner")
	}
	if err := CheckName(s.Learner); err != nil {
		return nil, problem(path, "bad_learner", "plain_name", "Name", strconv.QuoteToASCII(s.Learner), "Err", err.Error())
	}
	if p := s.Cluster.check(); p != "" {
		return nil, problem(path, "bad_cluster", "resend", "Problem", p)
	}
	if !validVersion(s.CnpaVersion) {
		return nil, problem(path, "bad_version", "resend", "Value", strconv.QuoteToASCII(s.CnpaVersion))
	}
	if s.Facts == nil && s.Lab == nil {
		return nil, problem(path, "no_facts", "resend")
	}
	if s.Lab != nil && (s.Lab.Name == "" || CheckName(s.Lab.Name) != nil || !sha256RE().MatchString(s.Lab.SHA256)) {
		return nil, problem(path, "bad_lab", "resend", "Name", strconv.QuoteToASCII(s.Lab.Name), "SHA256", strconv.QuoteToASCII(s.Lab.SHA256))
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
	if len(data) >= MaxSize {
		return i18n.NewError("submission.would_be_too_large", i18n.Args{"N": len(data), "Max": MaxSize >> 20})
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadFiles fills c's evidence and timelines from the evidence dir dir:
// every file of Files that exists, verbatim.
func (c *Content) ReadFiles(steps lab.Table, dir string, timelineDir string) error {
	c.Evidence, c.Timelines = map[string]string{}, map[string]string{}
	for _, f := range Files(steps) {
		// archive/ is the service user's (cnpa-op's), and root may be the
		// reader: a regular file with one link, no symlink, a FIFO never
		// waited on (safefs.ReadRegular), anchored at its own dir.
		data, err := safefs.ReadRegular(filepath.Join(dir, filepath.Dir(f)), filepath.Base(f), MaxSize)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", filepath.Join(dir, f), err)
		}
		c.put(f, data)
	}
	ctl, err := readController(dir)
	if err != nil {
		return err
	}
	c.Controller = ctl
	entries, err := os.ReadDir(timelineDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if TimelineName(e.Name()) {
			data, err := safefs.ReadRegular(timelineDir, e.Name(), MaxSize)
			if err != nil {
				return err
			}
			c.Timelines[e.Name()] = string(data)
		}
	}
	return nil
}

// readController reads the learner's reconcile.sh from dir, bounded:
// nil when there is none. It is read as the evidence is (a regular file,
// never a FIFO waited on); a file larger than MaxSize is kept cut, as a
// large one is.
func readController(dir string) (*Source, error) {
	fi, err := os.Lstat(filepath.Join(dir, lab.ScriptName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, lab.ScriptName), err)
	}
	data, err := safefs.ReadRegular(dir, lab.ScriptName, MaxSize)
	var big *safefs.TooLargeError
	if errors.As(err, &big) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, lab.ScriptName), err)
	}
	src := &Source{Name: lab.ScriptName, Size: fi.Size(), Mode: fmt.Sprintf("%04o", fi.Mode().Perm())}
	if int64(len(data)) == fi.Size() {
		sum := sha256.Sum256(data)
		src.SHA256 = hex.EncodeToString(sum[:])
	}
	if len(data) > MaxControllerSize || int64(len(data)) < fi.Size() {
		src.Truncated = true
		data = data[:min(len(data), MaxControllerSize)]
		if utf8.Valid(data[:max(0, len(data)-utf8.UTFMax)]) {
			for len(data) > 0 && !utf8.Valid(data) {
				data = data[:len(data)-1] // cut at a character
			}
		}
	}
	if utf8.Valid(data) {
		src.Text = string(data)
	} else {
		src.Base64 = data
	}
	return src, nil
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
func (c *Content) Materialize(steps lab.Table, dir, timelineDir string) error {
	for _, f := range Files(steps) {
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
		if !TimelineName(name) {
			continue // not one cnpa wrote; Parse refuses it (BadTimelines)
		}
		if err := os.WriteFile(filepath.Join(timelineDir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TimelineName tells whether name is one cnpa writes for a timeline:
// timeline-step1.json to timeline-step9.json, and nothing else (no "..",
// no path, no other file of the evidence dir).
func TimelineName(name string) bool { return timelineName.MatchString(name) }

var timelineName = regexp.MustCompile(`^timeline-step[1-9]\.json$`)

// BadTimelines lists, sorted, the names of c's timelines that are not
// TimelineNames: a file cnpa did not write; the grader flags it and
// unpacks none of them.
func (c *Content) BadTimelines() []string {
	var bad []string
	for name := range c.Timelines {
		if !TimelineName(name) {
			bad = append(bad, strconv.QuoteToASCII(name))
		}
	}
	sort.Strings(bad)
	return bad
}

// CheckName says what is wrong with a learner's name, nil when nothing
// is: it is printed to the instructor's terminal and written to the
// gradebook, so it holds no control character (C0, DEL, C1), no
// bidirectional override and nothing but UTF-8, and it is at most 128
// bytes.
func CheckName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return i18n.NewError("submission.name.not_utf8")
	case len(name) > 128:
		return i18n.NewError("submission.name.too_long", i18n.Args{"N": len(name)})
	case strings.TrimSpace(name) != name:
		return i18n.NewError("submission.name.space")
	}
	for _, r := range name {
		if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return i18n.NewError("submission.name.control", i18n.Args{"Char": fmt.Sprintf("%U", r)})
		}
	}
	return nil
}

// datastores are what `cnpa submit` writes for the datastore
// (doctor.Datastore), and "" for none.
var datastores = []string{"", "etcd", "kine", "unknown"}

// The patterns a submission's cluster and version are held to, compiled
// on first use: their bounded repeats ({0,63}) make programs of two
// thousand allocations, which every cnpa command paid at start-up.
var (
	uuidRE    = lazyRE(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	semverRE  = lazyRE(`^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]{1,64})?$`)
	sha256RE  = lazyRE(`^[0-9a-f]{64}$`)
	versionRE = lazyRE(`^[0-9A-Za-z][0-9A-Za-z.+_()-]{0,63}$`)
)

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// validVersion: a cnpa version as `cnpa version` prints it (v1.2.3,
// 1.2.3-4-gabc, dev, (devel)), starting with a letter or digit.
func validVersion(v string) bool { return v == "(devel)" || versionRE().MatchString(v) }

// check says what is wrong with a cluster as recorded, "" when nothing
// is: the kube-system uid a UUID, the server version a version, the
// datastore one cnpa names, the server an https or http URL.
func (cl Cluster) check() string {
	switch {
	case cl.KubeSystemUID != "" && !uuidRE().MatchString(cl.KubeSystemUID):
		return i18n.T("submission.cluster.uid", i18n.Args{"Value": strconv.QuoteToASCII(cl.KubeSystemUID)})
	case cl.ServerVersion != "" && !semverRE().MatchString(cl.ServerVersion):
		return i18n.T("submission.cluster.version", i18n.Args{"Value": strconv.QuoteToASCII(cl.ServerVersion)})
	case !slices.Contains(datastores, cl.Datastore):
		return i18n.T("submission.cluster.datastore", i18n.Args{"Value": strconv.QuoteToASCII(cl.Datastore)})
	case cl.Server != "" && !validServer(cl.Server):
		return i18n.T("submission.cluster.server", i18n.Args{"Value": strconv.QuoteToASCII(cl.Server)})
	}
	return ""
}

func validServer(s string) bool {
	if CheckName(s) != nil || strings.ContainsAny(s, " \"") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
