package kube

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/safefs"
)

// MaxKubeconfig is the largest learner's kubeconfig read: a real one is a
// few KiB.
const MaxKubeconfig = 1 << 20

// MaxResponse is the most cnpa reads of one response from a learner's
// API server. The grader's own requests get small answers (a version, a
// few objects); past this the server is not a lab's cluster.
const MaxResponse = 8 << 20

// LearnerTarget builds the client config of a learner's cluster from
// their kubeconfig at path as data, never as code or a path: the
// server, the CA data, a token and client certificate and key data, and
// nothing else. The kubeconfig is someone else's file on the grader's
// machine (often run as root), so every field that would run a command
// (exec, auth-provider), read a local file (certificate-authority,
// client-certificate, client-key, tokenFile), go through another host
// (proxy-url) or act as another user (as, as-groups, as-uid,
// as-user-extra) is refused, each with a line naming the learner, the
// field and the fix. Every response body is read through a MaxResponse
// limit (LimitResponses).
func LearnerTarget(learner, path, context string) (*Target, error) {
	data, err := safefs.ReadFile(path, MaxKubeconfig)
	if err != nil {
		return nil, &ConfigError{i18n.T("kube.learner.read", i18n.Args{"Learner": learner, "Err": err.Error()})}
	}
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, &ConfigError{i18n.T("kube.learner.does_not_parse", i18n.Args{"Learner": learner, "Path": path, "Err": err.Error()})}
	}
	if context == "" {
		context = raw.CurrentContext
	}
	kctx, ok := raw.Contexts[context]
	if !ok {
		var names []string
		for n := range raw.Contexts {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &ConfigError{i18n.T("kube.learner.no_context", i18n.Args{"Learner": learner, "Path": path, "Context": fmt.Sprintf("%q", context), "Names": i18n.List(names)})}
	}
	cl, ok := raw.Clusters[kctx.Cluster]
	if !ok || cl.Server == "" {
		return nil, &ConfigError{i18n.T("kube.learner.no_server", i18n.Args{"Learner": learner, "Path": path, "Context": fmt.Sprintf("%q", context)})}
	}
	user := raw.AuthInfos[kctx.AuthInfo]
	if user == nil {
		user = &clientcmdapi.AuthInfo{}
	}
	if refused := Refused(cl, user); len(refused) > 0 {
		var errs []error
		for _, f := range refused {
			errs = append(errs, i18n.NewError("kube.learner.refused", i18n.Args{"Learner": learner, "Path": path, "Field": f, "Fix": fixFor(f)}))
		}
		return nil, &ConfigError{errors.Join(errs...).Error()}
	}
	rc := &rest.Config{
		Host:        cl.Server,
		BearerToken: user.Token,
		TLSClientConfig: rest.TLSClientConfig{
			Insecure:   cl.InsecureSkipTLSVerify,
			ServerName: cl.TLSServerName,
			CAData:     cl.CertificateAuthorityData,
			CertData:   user.ClientCertificateData,
			KeyData:    user.ClientKeyData,
		},
		// No proxy from the environment either: the learner's server is
		// reached directly, as the kubeconfig says.
		Proxy:              func(*http.Request) (*url.URL, error) { return nil, nil },
		DisableCompression: cl.DisableCompression,
		QPS:                100,
		Burst:              200,
	}
	LimitResponses(rc, "learner "+learner+"'s server "+cl.Server, MaxResponse)
	logRequests(rc)
	return &Target{Path: path, Source: SourceClassFile, Context: context, ContextGiven: true, Server: cl.Server, Config: rc}, nil
}

// Refused lists the fields of a learner's kubeconfig cluster and user
// the grader refuses, as kubectl names them.
func Refused(cl *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) []string {
	var out []string
	add := func(set bool, field string) {
		if set {
			out = append(out, field)
		}
	}
	add(cl.CertificateAuthority != "", "certificate-authority")
	add(cl.ProxyURL != "", "proxy-url")
	add(u.Exec != nil, "exec")
	add(u.AuthProvider != nil, "auth-provider")
	add(u.TokenFile != "", "tokenFile")
	add(u.ClientCertificate != "", "client-certificate")
	add(u.ClientKey != "", "client-key")
	add(u.Impersonate != "", "as")
	add(u.ImpersonateUID != "", "as-uid")
	add(len(u.ImpersonateGroups) > 0, "as-groups")
	add(len(u.ImpersonateUserExtra) > 0, "as-user-extra")
	add(u.Username != "" || u.Password != "", "username/password")
	return out
}

// fixFor is the fix for one refused field.
func fixFor(field string) string {
	switch field {
	case "certificate-authority", "tokenFile", "client-certificate", "client-key":
		return i18n.T("kube.learner.fix.files", i18n.Args{"FixInline": i18n.T("kube.learner.fix_inline")})
	case "exec", "auth-provider":
		return i18n.T("kube.learner.fix.exec", i18n.Args{"FixInline": i18n.T("kube.learner.fix_inline")})
	case "proxy-url":
		return i18n.T("kube.learner.fix.proxy")
	case "username/password":
		return i18n.T("kube.learner.fix.password", i18n.Args{"FixInline": i18n.T("kube.learner.fix_inline")})
	}
	return i18n.T("kube.learner.fix.impersonate")
}

// Bytes is n in the largest binary unit it fills.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
