package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Browser is a real headless Chromium (Debian's `chromium` package, which
// .ci/run installs): the tests load cnpa's HTML report in it, and
// test/pictures screenshots with it.
type Browser struct {
	Path string
}

// browserNames are the executables tried, in order, when CNPA_CHROMIUM
// does not name one.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome"}

// FindBrowser locates Chromium: $CNPA_CHROMIUM, else the first of
// browserNames on PATH.
func FindBrowser() (*Browser, error) {
	if p := os.Getenv("CNPA_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("CNPA_CHROMIUM=%s: %w", p, err)
		}
		return &Browser{Path: p}, nil
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return &Browser{Path: p}, nil
		}
	}
	return nil, fmt.Errorf("no headless browser: none of %v on PATH and CNPA_CHROMIUM unset; install Debian's chromium (`apt-get install -y chromium`, as .ci/run does)", browserNames)
}

// NeedBrowser returns Chromium, or ends the test without it: under CI=true
// a missing browser fails the test (CI must run it), elsewhere it skips
// with what to install.
func NeedBrowser(t testing.TB) *Browser {
	t.Helper()
	b, err := FindBrowser()
	if err == nil {
		return b
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %v", err)
	}
	t.Skipf("%v (under CI=true this fails)", err)
	return nil
}

// Load is one page load in a fresh browser profile.
type Load struct {
	// DOM is the document as rendered, after scripts and layout.
	DOM string
	// PageRequests are the URLs the page itself asked the network for
	// (from Chromium's net log); the browser's own housekeeping requests
	// are not among them.
	PageRequests []string
}

// args are the flags of every run: headless, no sandbox (root in CI),
// a profile of its own (tests run in parallel), and every host name
// unresolvable, so that a page that reaches out fails to, visibly.
func (b *Browser) args(profile string, extra ...string) []string {
	return append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--force-device-scale-factor=1", "--no-first-run", "--disable-extensions",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + profile,
	}, extra...)
}

// Shot asks a page load for a screenshot of the page too, in the same
// browser run: Chromium's headless mode does --dump-dom and --screenshot
// in one start, and a start is about 2 CPU s here.
type Shot struct {
	// PNG is the file written.
	PNG string
	// Width and Height are the window's, in pixels.
	Width, Height int
}

// LoadPage renders url and returns its DOM and the network requests it
// made; with shot, the same run writes its screenshot. work is a scratch
// directory (the profile and the net log).
func (b *Browser) LoadPage(ctx context.Context, work, url string, shot *Shot) (*Load, error) {
	netlog := filepath.Join(work, "netlog.json")
	extra := []string{"--log-net-log=" + netlog, "--dump-dom"}
	if shot != nil {
		extra = append(extra, "--screenshot="+shot.PNG, fmt.Sprintf("--window-size=%d,%d", shot.Width, shot.Height))
	}
	cmd := exec.CommandContext(ctx, b.Path, b.args(filepath.Join(work, "profile"), append(extra, url)...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s --dump-dom %s: %w\n%s", b.Path, url, err, tail(stderr.String(), 2000))
	}
	if shot != nil {
		if err := wrote(shot.PNG); err != nil {
			return nil, fmt.Errorf("%s --screenshot: %w\n%s", b.Path, err, tail(stderr.String(), 2000))
		}
	}
	reqs, err := pageRequests(netlog)
	if err != nil {
		return nil, err
	}
	return &Load{DOM: stdout.String(), PageRequests: reqs}, nil
}

// wrote says why png is not a screenshot Chromium wrote, nil when it is.
func wrote(png string) error {
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		return fmt.Errorf("no screenshot %s written (%v)", png, err)
	}
	return nil
}

// Screenshot writes a PNG of url as a window of width × height pixels.
func (b *Browser) Screenshot(ctx context.Context, work, url, png string, width, height int) error {
	return b.ScreenshotEnv(ctx, work, url, png, width, height, nil)
}

// ScreenshotEnv is Screenshot with env added to the browser's environment
// (FONTCONFIG_FILE, say, to render with other fonts).
func (b *Browser) ScreenshotEnv(ctx context.Context, work, url, png string, width, height int, env []string) error {
	cmd := exec.CommandContext(ctx, b.Path, b.args(filepath.Join(work, "profile"),
		"--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", width, height), url)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --screenshot %s: %w\n%s", b.Path, url, err, tail(stderr.String(), 2000))
	}
	if err := wrote(png); err != nil {
		return fmt.Errorf("%s --screenshot: %w\n%s", b.Path, err, tail(stderr.String(), 2000))
	}
	return nil
}

// pageRequests reads Chromium's net log and returns the URLs of the
// requests a file:// page made: those whose network isolation key is the
// file:// site. The browser's own requests (clock sync, accounts) carry
// other keys.
func pageRequests(netlog string) ([]string, error) {
	data, err := os.ReadFile(netlog)
	if err != nil {
		return nil, fmt.Errorf("chromium net log: %w", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL string `json:"url"`
				Key string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return nil, fmt.Errorf("chromium net log %s: %w", netlog, err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		return nil, errors.New("chromium net log names no URL_REQUEST_START_JOB events: cannot tell the page's requests")
	}
	var out []string
	for _, e := range log.Events {
		if e.Type == start && strings.HasPrefix(e.Params.Key, "file://") && !strings.HasPrefix(e.Params.URL, "file:") {
			out = append(out, e.Params.URL)
		}
	}
	return out, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ArtifactDir is where a test leaves files for people to look at after the
// run (screenshots): $CNPA_ARTIFACTS when set, else .artifacts/ at the
// module root. It is created; the test logs what it puts there.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CNPA_ARTIFACTS")
	if dir == "" {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			t.Fatalf("find the module root for .artifacts/: %v (set CNPA_ARTIFACTS)", err)
		}
		dir = filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), ".artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifact dir: %v", err)
	}
	return dir
}
