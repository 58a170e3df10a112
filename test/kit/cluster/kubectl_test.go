package cluster_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestTestsKubectlSaysWhatKubectlSays: kubebox-kubectl skips loading
// kubectl's "default" translations and collects garbage less often
// (test/kubebox/kubectl), which must change no word it prints. It is held
// to kubebox's kubectl, the same k8s.io/kubectl that loads them as usual:
// help texts and two usage errors, in the default
// language and in one with translations of its own.
func TestTestsKubectlSaysWhatKubectlSays(t *testing.T) {
	kb, err := cluster.KubeboxPath()
	if err != nil {
		t.Fatal(err)
	}
	kubectl := cluster.KubectlBeside(kb)
	if kubectl == kb {
		t.Fatalf("no kubebox-kubectl beside %s: run `make kubebox`", kb)
	}
	say := func(bin, lang string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Args[0] = "kubectl" // kubebox is kubectl by that name
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=" + lang,
			"KUBECONFIG=" + filepath.Join(t.TempDir(), "none")}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	for _, lang := range []string{"", "C.UTF-8", "fr_FR.UTF-8"} {
		for _, args := range [][]string{
			{"--help"}, {"get", "--help"}, {"apply", "--help"}, {"create", "quota", "--help"},
			{"patch", "--help"}, {"wait", "--help"}, {"label"}, {"get", "--no-such-flag"},
		} {
			want, got := say(kb, lang, args...), say(kubectl, lang, args...)
			if got != want {
				t.Errorf("LANG=%s kubectl %s: kubebox-kubectl says\n%s\nkubebox's kubectl says\n%s", lang, strings.Join(args, " "), got, want)
			}
		}
	}
}

// TestDefaultTranslationIsIdentity: what kubebox-kubectl's defaultlang
// skips is a translation of every English text into itself. Read from
// the k8s.io/kubectl that test/kubebox builds.
func TestDefaultTranslationIsIdentity(t *testing.T) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubectl")
	cmd.Dir = filepath.Join(moduleRoot(t), "test", "kubebox")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubectl in test/kubebox: %v", err)
	}
	po := filepath.Join(strings.TrimSpace(string(out)), "pkg/util/i18n/translations/kubectl/default/LC_MESSAGES/k8s.po")
	f, err := os.Open(po)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A .po entry: msgid "…" then msgstr "…", each continued by lines that
	// are a quoted string alone.
	var id, str *string
	var cur *string
	entries := 0
	flush := func() {
		if id != nil && str != nil && *id != "" {
			entries++
			if *id != *str {
				t.Errorf("%s: %q is translated to %q", po, *id, *str)
			}
		}
		id, str, cur = nil, nil, nil
	}
	unquote := func(s string) string {
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("%s: %q: %v", po, s, err)
		}
		return u
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "msgid "):
			flush()
			s := unquote(strings.TrimPrefix(line, "msgid "))
			id, cur = &s, &s
		case strings.HasPrefix(line, "msgid_plural "), strings.HasPrefix(line, "msgstr["), strings.HasPrefix(line, "msgctxt "):
			t.Fatalf("%s: %q: plural forms and contexts are not identity by construction; defaultlang must load them", po, line)
		case strings.HasPrefix(line, "msgstr "):
			s := unquote(strings.TrimPrefix(line, "msgstr "))
			str, cur = &s, &s
		case strings.HasPrefix(line, `"`) && cur != nil:
			*cur += unquote(line)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if entries < 100 {
		t.Errorf("%s: %d entries, want the whole catalogue (over 300)", po, entries)
	}
}

// moduleRoot is the cnpa module's root, above the working dir.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "test", "kubebox", "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no cnpa module root above the working dir")
		}
		dir = parent
	}
}
