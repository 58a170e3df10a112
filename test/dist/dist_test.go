// Package dist tests the release `make dist` makes, as an instructor and a
// learner get it: the artifacts on their own (checksums, SBOM, a static
// binary, a package that starts nothing), then the .deb and the tarball
// installed into a fresh Debian root with real systemd and no Go
// (test/nspawn's), where the lab runs against a real control plane on the
// host's loopback and the package is removed again.
//
// The artifacts are $CNPA_DIST's (make test runs make dist first and sets
// it), else this test runs `make dist` itself.
package dist

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
	"github.com/labhub/cnpa/test/nspawn"
)

// DistEnv names the folder of make dist's artifacts.
const DistEnv = "CNPA_DIST"

// release is one make dist output.
type release struct {
	dir     string
	commit  string            // the 12-digit commit cnpa version names
	debs    map[string]string // GOARCH -> path of the .deb
	rpms    map[string]string // GOARCH -> path of the .rpm
	tars    map[string]string // GOARCH -> path of the tarball
	sboms   map[string]string // GOARCH -> path of the SBOM
	install string            // install.sh
}

// otherArch is the architecture this machine is not, of the two built.
func otherArch() string {
	if runtime.GOARCH == "arm64" {
		return "amd64"
	}
	return "arm64"
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "packaging", "nfpm.yaml")); err == nil {
			return d
		}
	}
	t.Fatalf("no packaging/nfpm.yaml above %s", dir)
	return ""
}

// madeDist is where this test binary's own make dist put the release.
var madeDist string

// findRelease returns $CNPA_DIST's release, or runs make dist for one
// (once for the package's tests).
func findRelease(t *testing.T) release {
	t.Helper()
	root := repoRoot(t)
	dir := os.Getenv(DistEnv)
	if dir == "" {
		dir = madeDist
	}
	if dir == "" {
		start := time.Now()
		cmd := exec.Command("make", "-s", "dist")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make dist: %v\n%s", err, out)
		}
		t.Logf("$%s not set: ran make dist (%s)", DistEnv, time.Since(start).Round(time.Second))
		dir = filepath.Join(root, "dist")
		madeDist = dir
	}
	commit, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	r := release{dir: dir, commit: strings.TrimSpace(string(commit)), debs: map[string]string{}, rpms: map[string]string{},
		tars: map[string]string{}, sboms: map[string]string{}, install: filepath.Join(dir, "install.sh")}
	for _, arch := range []string{"amd64", "arm64"} {
		rpmArch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[arch]
		for _, f := range []struct {
			m       map[string]string
			pattern string
		}{{r.debs, "cnpa_*_" + arch + ".deb"}, {r.rpms, "cnpa-*." + rpmArch + ".rpm"},
			{r.tars, "cnpa_*_linux_" + arch + ".tar.gz"}, {r.sboms, "cnpa_*_linux_" + arch + ".sbom.cdx.json"}} {
			matches, _ := filepath.Glob(filepath.Join(dir, f.pattern))
			if len(matches) != 1 {
				t.Fatalf("%s: want one %s, found %v (make dist makes them)", dir, f.pattern, matches)
			}
			f.m[arch] = matches[0]
		}
	}
	if _, err := os.Stat(r.install); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestArtifacts holds what make dist made to what docs/release.md
// promises, on the host: every file in SHA256SUMS and each .sha256
// verifies; the binaries are static, for their architecture, and say
// the commit; each SBOM is CycloneDX naming client-go; each .deb holds
// /usr/bin/cnpa, the completions, the man pages and the docs, and no
// unit and no maintainer script that could start one.
func TestArtifacts(t *testing.T) {
	r := findRelease(t)
	sh := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	sums := sh(r.dir, "sha256sum", "-c", "SHA256SUMS")
	if n := strings.Count(sums, ": OK"); n < 9 {
		t.Errorf("sha256sum -c SHA256SUMS: %d files OK, want the 2 tarballs, 2 .debs, 2 .rpms, 2 SBOMs and install.sh:\n%s", n, sums)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		for _, p := range []string{r.tars[arch], r.debs[arch], r.rpms[arch]} {
			sh(r.dir, "sha256sum", "-c", filepath.Base(p)+".sha256")
		}

		bin := filepath.Join(r.dir, "build", "linux_"+arch, "cnpa")
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
		if f.Machine != want {
			t.Errorf("%s: machine %v, want %v", bin, f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				t.Errorf("%s is not static: it has %v (CGO_ENABLED=0 makes none)", bin, p.Type)
			}
		}
		f.Close()

		var bom struct {
			BOMFormat string `json:"bomFormat"`
			Metadata  struct {
				Component struct{ Name, Version string }
			}
			Components []struct{ Name, Version string }
		}
		data, err := os.ReadFile(r.sboms[arch])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &bom); err != nil {
			t.Fatalf("%s: %v", r.sboms[arch], err)
		}
		names := map[string]bool{}
		for _, c := range bom.Components {
			names[c.Name] = true
		}
		if bom.BOMFormat != "CycloneDX" || !names["k8s.io/client-go"] || !names["github.com/urfave/cli/v2"] {
			t.Errorf("%s: bomFormat %q, %d components; want CycloneDX naming k8s.io/client-go and github.com/urfave/cli/v2", r.sboms[arch], bom.BOMFormat, len(bom.Components))
		}

		contents := sh(r.dir, "dpkg-deb", "-c", r.debs[arch])
		for _, want := range []string{"./usr/bin/cnpa", "./usr/share/bash-completion/completions/cnpa", "./usr/share/zsh/vendor-completions/_cnpa",
			"./usr/share/fish/vendor_completions.d/cnpa.fish", "./usr/share/man/man1/cnpa.1.gz", "./usr/share/man/ja/man1/cnpa.1.gz",
			"./usr/share/doc/cnpa/README.md", "./usr/share/doc/cnpa/README.ja.md", "./usr/share/doc/cnpa/docs/release.md"} {
			if !strings.Contains(contents, want+"\n") {
				t.Errorf("%s lacks %s:\n%s", filepath.Base(r.debs[arch]), want, contents)
			}
		}
		for _, never := range []string{"systemd", ".service", "/etc/"} {
			if strings.Contains(contents, never) {
				t.Errorf("%s holds something of %q: a package that could start or configure something by itself:\n%s", filepath.Base(r.debs[arch]), never, contents)
			}
		}
		control := filepath.Join(t.TempDir(), "control")
		sh(r.dir, "dpkg-deb", "-e", r.debs[arch], control)
		entries, _ := os.ReadDir(control)
		var scripts []string
		for _, e := range entries {
			if e.Name() != "control" && e.Name() != "md5sums" && e.Name() != "conffiles" {
				scripts = append(scripts, e.Name())
			}
		}
		if strings.Join(scripts, ",") != "prerm" {
			t.Errorf("%s: maintainer scripts %v, want prerm alone (no postinst: nothing starts)", filepath.Base(r.debs[arch]), scripts)
		}
		if prerm, _ := os.ReadFile(filepath.Join(control, "prerm")); bytes.Contains(prerm, []byte("systemctl start")) || bytes.Contains(prerm, []byte("systemctl enable")) {
			t.Errorf("prerm starts something:\n%s", prerm)
		}
		info := sh(r.dir, "dpkg-deb", "-f", r.debs[arch], "Architecture", "Version")
		if !strings.Contains(info, "Architecture: "+arch) {
			t.Errorf("%s: %s, want Architecture: %s", filepath.Base(r.debs[arch]), info, arch)
		}
	}

	// The binary of this machine says the version, the commit and its date.
	out := sh(r.dir, filepath.Join(r.dir, "build", "linux_"+runtime.GOARCH, "cnpa"), "version")
	if !strings.Contains(out, "(commit "+r.commit) || !strings.Contains(out, "linux/"+runtime.GOARCH) || strings.HasPrefix(out, "cnpa dev") {
		t.Errorf("cnpa version: %q, want the release's version and commit %s", out, r.commit)
	}
}

// vm is the booted container standing for the learner's VM.
type vm struct {
	t   *testing.T
	ctx context.Context
	c   *nspawn.Container
	env []string
}

// run runs a command inside and fails the test when it fails.
func (v *vm) run(args ...string) string {
	v.t.Helper()
	out, errOut, err := v.c.ExecEnv(v.ctx, v.env, args...)
	if err != nil {
		v.t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errOut)
	}
	return strings.TrimSpace(out)
}

// sh runs a shell line inside and returns its output and error.
func (v *vm) sh(line string) (string, string, error) {
	return v.c.ExecEnv(v.ctx, v.env, "bash", "-c", line)
}

// refused runs a line that must fail, with stderr or stdout naming each of
// want (the thing, and the fix).
func (v *vm) refused(line string, want ...string) {
	v.t.Helper()
	out, errOut, err := v.sh(line)
	if err == nil {
		v.t.Fatalf("%s: succeeded, want it refused\n%s%s", line, out, errOut)
	}
	for _, w := range want {
		if !strings.Contains(out+errOut, w) {
			v.t.Errorf("%s: refused, but without %q:\n%s%s", line, w, out, errOut)
		}
	}
	v.t.Logf("refused as it should be: %s\n%s", line, strings.TrimSpace(out+errOut))
}

// absent fails for each path that exists inside.
func (v *vm) absent(paths ...string) {
	v.t.Helper()
	for _, p := range paths {
		if _, _, err := v.c.Exec(v.ctx, "test", "-e", p); err == nil {
			v.t.Errorf("%s is still there", p)
		}
	}
}

const (
	distIn      = "/opt/dist"    // make dist's folder, read-only
	kubectlIn   = "/opt/kubectl" // the control plane's kubectl, read-only
	evidenceDir = "/root/cnpa-op"
	copies      = "/root/release" // what the instructor handed out, as copied onto the VM
)

// TestOnAFreshVM installs the release as docs/release.md and the README
// say, into a fresh Debian root with real systemd and no Go, with the
// cluster's admin kubeconfig where k3s puts it. In order: the tarball's
// install.sh refuses the other architecture's tarball, a tarball that
// does not match its checksum and one without it, installs the right one
// and removes it again; apt refuses the other architecture's .deb and
// installs this one, which starts nothing; `cnpa doctor` refuses a VM
// without kubectl, naming the fix, and passes with it; `cnpa step all`
// runs the lab with cnpa-op.service under systemd; `cnpa check` passes;
// `cnpa stress` runs once; removing the package while the lab's unit
// runs it warns; `cnpa reset --yes` and `apt-get purge` leave nothing of
// cnpa's but the learner's files.
func TestOnAFreshVM(t *testing.T) {
	nspawn.Require(t)
	r := findRelease(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cache, err := nspawn.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	rootfs, err := nspawn.EnsureRootFS(ctx, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	kb, err := cluster.KubeboxPath()
	if err != nil {
		t.Fatal(err)
	}
	kubectlDir := t.TempDir()
	if err := os.Chmod(kubectlDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", cluster.KubectlBeside(kb), filepath.Join(kubectlDir, "kubectl")).CombinedOutput(); err != nil {
		t.Fatalf("copy kubectl: %v\n%s", err, out)
	}
	c, err := nspawn.Boot(ctx, rootfs, nspawn.Options{
		Binds:   []nspawn.Bind{{Host: r.dir, Container: distIn}, {Host: kubectlDir, Container: kubectlIn}},
		Overlay: true,
		Logf:    t.Logf,
	})
	// After the cluster's cleanup, so it runs first: the unit stops
	// before the API server it talks to.
	t.Cleanup(c.Stop)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := os.ReadFile(cl.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile("/etc/rancher/k3s/k3s.yaml", kc, 0o600); err != nil {
		t.Fatal(err)
	}
	v := &vm{t: t, ctx: ctx, c: c, env: []string{"NO_COLOR=1", "DEBIAN_FRONTEND=noninteractive"}}
	start := time.Now()

	// The VM as the learner gets it: no Go, no cnpa, no kubectl yet.
	for _, tool := range []string{"go", "cnpa", "kubectl"} {
		if out, _, err := v.sh("command -v " + tool); err == nil {
			t.Fatalf("the fresh VM already has %s (%s)", tool, out)
		}
	}
	v.run("cp", "-r", distIn, copies)
	base := func(p string) string { return copies + "/" + filepath.Base(p) }
	this, other := runtime.GOARCH, otherArch()

	// The tarball: refused for the other architecture, when it does not
	// match its checksum or has none; then installed and removed.
	want := strings.Replace(filepath.Base(r.tars[other]), "_"+other+".tar.gz", "_"+this+".tar.gz", 1)
	v.refused("sh "+copies+"/install.sh "+base(r.tars[other]), "is for "+other+", this machine is "+this, "use "+want)
	v.run("mkdir", "/root/bad")
	v.run("cp", base(r.tars[this]), base(r.tars[this])+".sha256", "/root/bad/")
	bad := "/root/bad/" + filepath.Base(r.tars[this])
	v.run("sh", "-c", "printf x >>"+bad)
	v.refused("sh "+copies+"/install.sh "+bad, "does not match "+filepath.Base(bad)+".sha256", "copy it again")
	v.run("rm", bad+".sha256")
	v.refused("sh "+copies+"/install.sh "+bad, "no "+filepath.Base(bad)+".sha256", "copy it from the release")
	v.absent("/usr/local/bin/cnpa")
	v.run("sh", copies+"/install.sh")
	tarFiles := []string{"/usr/local/bin/cnpa", "/usr/local/share/bash-completion/completions/cnpa", "/usr/local/share/zsh/site-functions/_cnpa",
		"/usr/local/share/fish/vendor_completions.d/cnpa.fish", "/usr/local/share/man/man1/cnpa.1.gz", "/usr/local/share/man/ja/man1/cnpa.1.gz"}
	v.run(append([]string{"ls"}, tarFiles...)...)
	if got := v.run("/usr/local/bin/cnpa", "version"); !strings.Contains(got, "(commit "+r.commit) {
		t.Errorf("the tarball's cnpa version: %q, want commit %s", got, r.commit)
	}
	v.run("sh", copies+"/install.sh", "--uninstall")
	v.absent(tarFiles...)

	// The .deb: refused for the other architecture; installed, it
	// starts nothing.
	v.refused("apt-get install -y "+base(r.debs[other]), "architecture", other)
	v.run("apt-get", "install", "-y", base(r.debs[this]))
	files := strings.Fields(v.run("dpkg-query", "-L", "cnpa"))
	for _, want := range []string{"/usr/bin/cnpa", "/usr/share/bash-completion/completions/cnpa", "/usr/share/man/man1/cnpa.1.gz",
		"/usr/share/man/ja/man1/cnpa.1.gz", "/usr/share/doc/cnpa/README.ja.md"} {
		if !contains(files, want) {
			t.Errorf("dpkg -L cnpa lacks %s: %v", want, files)
		}
	}
	// systemctl exits 1 when no unit matches: the output says.
	if got, _, _ := v.sh("systemctl list-unit-files 'cnpa*' --no-legend"); strings.TrimSpace(got) != "" {
		t.Errorf("after installing the .deb, systemd knows cnpa units: %s", got)
	}
	if out, _, err := v.sh("pgrep -a cnpa"); err == nil {
		t.Errorf("after installing the .deb, something of cnpa runs: %s", out)
	}
	if got := v.run("cnpa", "version"); !strings.Contains(got, "(commit "+r.commit) {
		t.Errorf("cnpa version: %q, want commit %s", got, r.commit)
	}
	if got := v.run("bash", "-c", "source /usr/share/bash-completion/completions/cnpa && complete -p cnpa"); !strings.Contains(got, "_cnpa_complete") {
		t.Errorf("the bash completion does not register: %q", got)
	}
	if got := v.run("bash", "-c", "zcat /usr/share/man/ja/man1/cnpa.1.gz"); !strings.HasPrefix(got, ".TH CNPA 1") || !strings.Contains(got, "cnpa step") {
		t.Errorf("the Japanese man page: %.200q", got)
	}

	// A VM without kubectl: doctor refuses, naming the fix; with the
	// control plane's kubectl where k3s puts its own, it passes.
	v.refused("cnpa doctor", "kubectl", "install kubectl")
	v.run("ln", "-s", kubectlIn+"/kubectl", "/usr/local/bin/kubectl")
	if out := v.run("cnpa", "doctor"); !strings.Contains(out, "systemd") {
		t.Errorf("cnpa doctor names no systemd:\n%s", out)
	}
	// A VM without systemd, as cnpa sees one (no /run/systemd/system: a
	// private /run in a mount namespace of its own): doctor still passes,
	// since process mode runs the lab, but says the fix.
	out, errOut, err := v.sh("unshare --mount sh -c 'mount -t tmpfs tmpfs /run && exec cnpa doctor'")
	if err != nil || !strings.Contains(out, "not running") || !strings.Contains(out, "boot the VM with systemd as PID 1") {
		t.Errorf("cnpa doctor without systemd: err=%v, want the systemd line's warning with the fix:\n%s%s", err, out, errOut)
	} else {
		t.Logf("cnpa doctor without systemd:\n%s", out)
	}
	t.Logf("installed and checked in %s", time.Since(start).Round(time.Second))

	// The lab, as the learner runs it, with the unit under systemd.
	labStart := time.Now()
	if out, errOut, err := v.c.ExecEnv(ctx, v.env, "cnpa", "step", "all"); err != nil {
		journal, _, _ := v.sh("journalctl -u cnpa-op --no-pager -n 60")
		t.Fatalf("cnpa step all: %v\n%s\n%s\njournal:\n%s", err, out, errOut, journal)
	}
	t.Logf("cnpa step all took %s", time.Since(labStart).Round(time.Second))
	unit := v.run("cat", "/etc/systemd/system/cnpa-op.service")
	if !strings.Contains(unit, "/usr/bin/cnpa") {
		t.Errorf("cnpa-op.service does not run the package's /usr/bin/cnpa:\n%s", unit)
	}
	if got := v.run("systemctl", "is-active", "cnpa-op"); got != "active" {
		t.Errorf("systemctl is-active cnpa-op: %q", got)
	}
	if got := v.run("systemctl", "is-enabled", "cnpa-op"); got != "enabled" {
		t.Errorf("systemctl is-enabled cnpa-op: %q", got)
	}
	checkStart := time.Now()
	out, errOut, err = v.c.ExecEnv(ctx, v.env, "cnpa", "check", "-o", "json", "--timeout", "90s")
	var report struct{ Passed, Failed, Skipped int }
	if jerr := json.Unmarshal([]byte(out), &report); err != nil || jerr != nil || report.Failed != 0 || report.Passed < 60 {
		t.Errorf("cnpa check: err=%v, %+v\n%s", err, report, errOut)
	}
	t.Logf("cnpa check: %d passed, %d failed, %d skipped in %s", report.Passed, report.Failed, report.Skipped, time.Since(checkStart).Round(time.Second))
	stressStart := time.Now()
	if out, errOut, err := v.c.ExecEnv(ctx, v.env, "cnpa", "stress"); err != nil {
		t.Errorf("cnpa stress: %v\n%s\n%s", err, out, errOut)
	}
	t.Logf("cnpa stress took %s", time.Since(stressStart).Round(time.Second))

	// The learner's own file, which nothing may take.
	if err := c.WriteFile(evidenceDir+"/notes.md", []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Removing cnpa while the lab's unit runs it: the one line of prerm.
	out, errOut, err = v.sh("apt-get remove -y cnpa")
	if err != nil || !strings.Contains(out+errOut, "still runs /usr/bin/cnpa") || !strings.Contains(out+errOut, "cnpa reset --yes") {
		t.Errorf("apt-get remove cnpa with the lab's unit running: err=%v, want the warning naming cnpa reset --yes:\n%s%s", err, out, errOut)
	}
	v.absent("/usr/bin/cnpa")
	// Back, to take the lab down as docs/release.md says: reset, purge.
	v.run("apt-get", "install", "-y", base(r.debs[this]))
	v.run("cnpa", "reset", "--yes", "--purge")
	v.run("apt-get", "purge", "-y", "cnpa")
	v.run("rm", "-r", copies, "/root/bad")

	if out, _, err := v.sh("dpkg-query -W cnpa"); err == nil {
		t.Errorf("dpkg still knows cnpa after purge: %s", out)
	}
	// dpkg -L lists /usr and /usr/share too, which are not cnpa's.
	var own []string
	for _, f := range files {
		if strings.Contains(f, "cnpa") {
			own = append(own, f)
		}
	}
	v.absent(own...)
	v.absent("/etc/systemd/system/cnpa-op.service")
	if got, _, _ := v.sh("systemctl list-units 'cnpa*' --all --no-legend"); strings.TrimSpace(got) != "" {
		t.Errorf("after reset and purge, systemd still has cnpa units: %s", got)
	}
	if out, _, err := v.sh("pgrep -a cnpa"); err == nil {
		t.Errorf("after reset and purge, something of cnpa runs: %s", out)
	}
	// Every file or folder named after cnpa on the VM's own filesystem.
	// (/.cnpa-nspawn-rootfs is test/nspawn's mark on the root filesystem.)
	found, _, _ := v.sh(`find / -xdev -name '*cnpa*' -not -path '` + evidenceDir + `/*' -not -path /.cnpa-nspawn-rootfs -print 2>/dev/null`)
	left := strings.Fields(found)
	sort.Strings(left)
	// The evidence dir is the learner's: it stays, and so does what they
	// wrote there.
	if strings.Join(left, " ") != evidenceDir {
		t.Errorf("after reset and purge, files of cnpa's outside the learner's %s: %v", evidenceDir, left)
	}
	if got := v.run("cat", evidenceDir+"/notes.md"); got != "my notes" {
		t.Errorf("the learner's notes.md: %q", got)
	}
	// In it, besides the learner's own: the lab's choices, which reset
	// keeps for the next run (docs/commands.md, cnpa reset), and the
	// manifest of cnpa's writes that says so. Every evidence file and
	// archive record cnpa wrote is gone (--purge).
	kept := strings.Fields(v.run("find", evidenceDir, "-mindepth", "1"))
	sort.Strings(kept)
	wantKept := []string{evidenceDir + "/.cnpa", evidenceDir + "/.cnpa-state.json", evidenceDir + "/.cnpa/manifest.jsonl", evidenceDir + "/notes.md"}
	if strings.Join(kept, " ") != strings.Join(wantKept, " ") {
		t.Errorf("the learner's %s after reset and purge: %v, want %v", evidenceDir, kept, wantKept)
	}
	// The service's system user, which step 4 made, stays, as Debian's
	// packages leave the users they made (docs/release.md): it owns
	// nothing any more, so `userdel cnpa-op` loses nothing.
	user, _, _ := v.sh("getent passwd cnpa-op")
	owned, _, _ := v.sh("find / -xdev -user cnpa-op -print 2>/dev/null")
	if strings.TrimSpace(owned) != "" {
		t.Errorf("after reset and purge, the cnpa-op user still owns:\n%s", owned)
	}
	t.Logf("the cnpa-op user after reset and purge, owning nothing: %q", strings.TrimSpace(user))
	t.Logf("whole test in the VM: %s", time.Since(start).Round(time.Second))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRPMInstallsAndRemoves installs this machine's .rpm with rpm itself
// (Debian's rpm, into an empty root of its own) as a Fedora or RHEL VM's
// rpm would: the files land where the .deb puts them, the binary there
// says the release's version, rpm's own digest check passes, its one
// script is the prerm that only warns, and `rpm -e` leaves nothing of
// cnpa's. The scripts are not run here (the empty root has no shell);
// the .deb's test runs the same prerm in a booted Debian root.
func TestRPMInstallsAndRemoves(t *testing.T) {
	r := findRelease(t)
	rpm, err := exec.LookPath("rpm")
	if err != nil {
		t.Fatalf("rpm is not installed: apt-get install -y rpm (.ci/run installs it)")
	}
	pkg := r.rpms[runtime.GOARCH]
	root := t.TempDir()
	sh := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(rpm, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("rpm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := sh("-K", "--nosignature", pkg); !strings.Contains(out, "digests OK") {
		t.Errorf("rpm -K %s: %q, want its digests OK", filepath.Base(pkg), out)
	}
	scripts := sh("-qp", "--scripts", pkg)
	if !strings.Contains(scripts, "preuninstall scriptlet") || strings.Contains(scripts, "postinstall") ||
		strings.Contains(scripts, "systemctl start") || strings.Contains(scripts, "systemctl enable") {
		t.Errorf("%s: scripts other than a prerm that warns:\n%s", filepath.Base(pkg), scripts)
	}
	sh("--root", root, "--initdb")
	sh("--root", root, "-i", "--nodeps", "--noscripts", pkg)
	files := []string{"/usr/bin/cnpa", "/usr/share/bash-completion/completions/cnpa", "/usr/share/zsh/vendor-completions/_cnpa",
		"/usr/share/fish/vendor_completions.d/cnpa.fish", "/usr/share/man/man1/cnpa.1.gz", "/usr/share/man/ja/man1/cnpa.1.gz",
		"/usr/share/doc/cnpa/README.md", "/usr/share/doc/cnpa/README.ja.md", "/usr/share/doc/cnpa/docs/release.md"}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("after rpm -i: %v", err)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "/usr/bin/cnpa")); err == nil && fi.Mode().Perm() != 0o755 {
		t.Errorf("/usr/bin/cnpa has mode %v, want 0755", fi.Mode().Perm())
	}
	out, err := exec.Command(filepath.Join(root, "/usr/bin/cnpa"), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "(commit "+r.commit) {
		t.Errorf("the installed cnpa version: %q (%v), want commit %s", out, err, r.commit)
	}
	if q := sh("--root", root, "-qf", "/usr/bin/cnpa"); !strings.HasPrefix(q, "cnpa-") {
		t.Errorf("rpm -qf /usr/bin/cnpa: %q, want the cnpa package", q)
	}
	sh("--root", root, "-e", "--noscripts", "cnpa")
	var left []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "cnpa") && !strings.HasPrefix(p, filepath.Join(root, "var/lib/rpm")) {
			left = append(left, strings.TrimPrefix(p, root))
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("after rpm -e, cnpa's files are left: %v", left)
	}
}
