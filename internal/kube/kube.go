// Package kube finds the cluster the learner means and builds clients for
// it. Kubeconfig resolution follows what a k3s VM has: --kubeconfig,
// $KUBECONFIG, /etc/rancher/k3s/k3s.yaml, ~/.kube/config, in that order.
package kube

import (
	"errors"
	"fmt"
	"github.com/labhub/cnpa/internal/i18n"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// K3sKubeconfig is where k3s writes its admin kubeconfig.
const K3sKubeconfig = "/etc/rancher/k3s/k3s.yaml"

// Target is the cluster a command talks to.
type Target struct {
	// Path is the kubeconfig used; Source says why it was chosen.
	Path, Source string
	// Context is the kubeconfig context in use.
	Context string
	// ContextGiven: Context was named with --context rather than taken
	// from the kubeconfig's current-context, so every command cnpa writes
	// or starts must carry it too (labenv.Env.CommandKubeconfig).
	ContextGiven bool
	// Server is the API server URL.
	Server string
	Config *rest.Config
}

// ConfigError is a kubeconfig problem the learner must fix (exit code 2).
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// Locate picks the kubeconfig path without reading it.
func Locate(flagPath string) (path, source string) {
	if flagPath != "" {
		return flagPath, "--kubeconfig"
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		return env, "$KUBECONFIG"
	}
	if _, err := os.Stat(K3sKubeconfig); err == nil {
		return K3sKubeconfig, SourceK3s
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".kube", "config"), "~/.kube/config"
}

// Resolve loads the kubeconfig Locate picks, selects context (empty = the
// current one) and returns a client config. QPS and burst are raised above
// client-go's 5/10 so that a bulk of TeamSpaces is not throttled by the
// client itself.
func Resolve(flagPath, context string) (*Target, error) {
	path, source := Locate(flagPath)
	// Absolute: the path is written into reconcile.sh and the unit, which
	// run from other directories (the unit from /).
	path = absPaths(path)
	rules := &clientcmd.ClientConfigLoadingRules{}
	if strings.Contains(path, string(os.PathListSeparator)) {
		rules.Precedence = filepath.SplitList(path)
	} else {
		if _, err := os.Stat(path); err != nil {
			return nil, &ConfigError{missingKubeconfig(path, source, err)}
		}
		rules.ExplicitPath = path
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, &ConfigError{i18n.T("kube.does_not_parse", i18n.Args{"Path": path, "Err": err.Error()})}
	}
	if context != "" {
		if _, ok := raw.Contexts[context]; !ok {
			var names []string
			for n := range raw.Contexts {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, &ConfigError{i18n.T("kube.no_context", i18n.Args{"Context": fmt.Sprintf("%q", context), "Path": path, "Names": i18n.List(names)})}
		}
	}
	cc := clientcmd.NewNonInteractiveClientConfig(*raw, context, &clientcmd.ConfigOverrides{}, rules)
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, &ConfigError{i18n.T("kube.kubeconfig_error", i18n.Args{"Path": path, "Err": err.Error()})}
	}
	rc.QPS, rc.Burst = 100, 200
	logRequests(rc)
	cur := context
	if cur == "" {
		cur = raw.CurrentContext
	}
	return &Target{Path: path, Source: source, Context: cur, ContextGiven: context != "", Server: rc.Host, Config: rc}, nil
}

// missingKubeconfig says why the kubeconfig Locate chose cannot be used,
// and the fix that fits how it was chosen: a path the learner gave is to be
// checked, not given again.
func missingKubeconfig(path, source string, err error) string {
	why := i18n.T("kube.cannot_be_read", i18n.Args{"Err": errors.Unwrap(err).Error()})
	if errors.Is(err, os.ErrNotExist) {
		why = i18n.T("kube.does_not_exist")
	}
	switch source {
	case "--kubeconfig":
		return i18n.T("kube.flag_path", i18n.Args{"Path": path, "Why": why})
	case "$KUBECONFIG":
		return i18n.T("kube.env_path", i18n.Args{"Path": path, "Why": why})
	}
	if errors.Is(err, os.ErrNotExist) {
		return i18n.T("kube.none_found", i18n.Args{"K3s": K3sKubeconfig, "Path": path})
	}
	return i18n.T("kube.other", i18n.Args{"Path": path, "Source": SourceWords(source), "Why": why})
}

// SourceWords says how a kubeconfig was chosen (Target.Source) in the
// chosen language: a flag, a variable or a path as it is, the rest in
// words.
func SourceWords(source string) string {
	switch source {
	case SourceK3s:
		return i18n.T("kube.source.k3s_default")
	case SourceClassFile:
		return i18n.T("kube.source.class_file")
	}
	return source
}

// How a kubeconfig was chosen, in words (Target.Source): the others are
// the flag, the variable or the path that chose it.
const (
	SourceK3s       = "k3s default"
	SourceClassFile = "class file"
)

// absPaths makes every path of a kubeconfig path list absolute; a path
// that cannot be made absolute is kept as it is, for the error that
// reading it gives.
func absPaths(list string) string {
	parts := filepath.SplitList(list)
	for i, p := range parts {
		if abs, err := filepath.Abs(p); err == nil && p != "" {
			parts[i] = abs
		}
	}
	return strings.Join(parts, string(os.PathListSeparator))
}

// Clients are the typed and dynamic clients for one target.
type Clients struct {
	Kube    Typed
	Dynamic dynamic.Interface
}

// NewClients builds both clients for t.
func NewClients(t *Target) (*Clients, error) {
	k, err := NewTyped(t.Config)
	if err != nil {
		return nil, err
	}
	d, err := dynamic.NewForConfig(t.Config)
	if err != nil {
		return nil, err
	}
	return &Clients{Kube: k, Dynamic: d}, nil
}
