package kube

import (
	"fmt"

	"k8s.io/client-go/discovery"
	typedcoordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// NewTyped builds the typed clients cnpa uses (see Typed) on one transport
// and one client-side rate limit, as kubernetes.NewForConfig does for all
// groups.
func NewTyped(rc *rest.Config) (Typed, error) {
	cfg := *rc
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	httpClient, err := rest.HTTPClientFor(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	var t typed
	if t.core, err = typedcorev1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if t.coordination, err = typedcoordinationv1.NewForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	if t.discovery, err = discovery.NewDiscoveryClientForConfigAndClient(&cfg, httpClient); err != nil {
		return nil, err
	}
	return &t, nil
}

// Typed is the part of client-go's typed clientset cnpa calls: core/v1
// (namespaces, quotas, events), coordination/v1 (the leader Lease) and
// discovery (the server version). A *kubernetes.Clientset satisfies it, so
// tests may still pass one.
//
// cnpa must not make a *kubernetes.Clientset (kubernetes.NewForConfig) or
// client-go's informers.SharedInformerFactory reachable anywhere in its
// binary. The reason is the linker, not the requests: urfave/cli's help
// printer links text/template, whose reflective method lookup
// (reflect.Value.MethodByName) turns off the Go linker's dead-method
// elimination for the whole binary, so every exported method of every type
// that reaches an interface is kept. A Clientset reaches all ~50 API groups
// and from them every typed client, apply configuration, informer and
// lister: about 7 MB of code and 11 MB of tables. NewForConfig runs every
// group's constructor, which pages those regions in and keeps them
// resident for as long as `cnpa controller` lives (make bench shows the
// resident size).
type Typed interface {
	CoreV1() typedcorev1.CoreV1Interface
	CoordinationV1() typedcoordinationv1.CoordinationV1Interface
	Discovery() discovery.DiscoveryInterface
}

type typed struct {
	core         *typedcorev1.CoreV1Client
	coordination *typedcoordinationv1.CoordinationV1Client
	discovery    *discovery.DiscoveryClient
}

func (t *typed) CoreV1() typedcorev1.CoreV1Interface { return t.core }
func (t *typed) CoordinationV1() typedcoordinationv1.CoordinationV1Interface {
	return t.coordination
}
func (t *typed) Discovery() discovery.DiscoveryInterface { return t.discovery }
