package agent

import (
	"context"
	"net/http"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/svcplane/svcplane/internal/kubeletclient"
	"github.com/svcplane/svcplane/internal/node/kubelet"
)

// TestKubeletAPIEndpointReported: with a kubelet API, each node reports
// its own port, the address the API server dials (annotation) and
// ExtendWebSocketsToKubelet; without, the kubelet's 10250 and nothing else.
func TestKubeletAPIEndpointReported(t *testing.T) {
	f := newFixtureWith(t, func(c *Config) {
		c.KubeletAPI = &kubelet.Config{
			Authenticator: authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil }),
			Authorizer: authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
				return authorizer.DecisionDeny, "", nil
			}),
		}
	}, "n0", "n1")
	kctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := f.a.kubelet.Start(kctx); err != nil {
		t.Fatal(err)
	}
	ports := map[int32]bool{}
	for _, name := range f.a.cfg.Names {
		f.heartbeat(name)
		n := f.node(name)
		ep, _ := f.a.kubelet.Endpoint(name)
		if n.Annotations[kubeletclient.AddressAnnotation] != "127.0.0.1" || ep.Port == 0 ||
			n.Status.DaemonEndpoints.KubeletEndpoint.Port != ep.Port ||
			!slices.Equal(n.Status.DeclaredFeatures, []string{kubeletclient.ExtendWebSocketsToKubelet}) {
			t.Errorf("%s: annotations %v, endpoint %+v, features %v (listening on %+v)", name, n.Annotations,
				n.Status.DaemonEndpoints.KubeletEndpoint, n.Status.DeclaredFeatures, ep)
		}
		ports[ep.Port] = true
	}
	if len(ports) != 2 {
		t.Errorf("nodes share a port: %v", ports)
	}

	// The same node without a kubelet API (an agent restarted with
	// --kubelet-api=false): the kubelet's 10250, the annotation removed.
	plain := newFixture(t, "m0")
	if _, err := plain.client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "m0",
		Annotations: map[string]string{kubeletclient.AddressAnnotation: "127.0.0.1"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	plain.cache(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "m0"}})
	plain.heartbeat("m0")
	if n := plain.node("m0"); n.Status.DaemonEndpoints.KubeletEndpoint.Port != 10250 || n.Annotations[kubeletclient.AddressAnnotation] != "" || n.Status.DeclaredFeatures != nil {
		t.Errorf("without a kubelet API: %+v %v %v", n.Status.DaemonEndpoints, n.Annotations, n.Status.DeclaredFeatures)
	}
}

// TestKubeletPodLookup: the kubelet API finds pods bound to the agent's
// nodes that the runtime runs, and nothing else.
func TestKubeletPodLookup(t *testing.T) {
	f := newFixture(t, "n0")
	if err := f.a.cfg.Runtime.SetNode("n0", []string{"10.0.0.0/24"}, nil); err != nil {
		t.Fatal(err)
	}
	mk := func(name, node string, run bool) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
			Spec: corev1.PodSpec{NodeName: node}}
		if err := f.a.podIndex.Add(p); err != nil {
			t.Fatal(err)
		}
		if run {
			if _, err := f.a.cfg.Runtime.RunPod(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("running", "n0", true)
	mk("starting", "n0", false)
	mk("ended", "n0", false)
	ended, _, _ := f.a.podIndex.GetByKey("ns/ended")
	ended.(*corev1.Pod).Status.Phase = corev1.PodSucceeded
	mk("elsewhere", "other", false)
	if tg, ok := f.a.kubeletPod("ns", "running"); !ok || tg.Node != "n0" || tg.UID != "uid-running" || tg.Streams == nil {
		t.Errorf("running pod: %+v, %v", tg, ok)
	}
	// An ended pod's logs are served until it is deleted.
	if tg, ok := f.a.kubeletPod("ns", "ended"); !ok || tg.UID != "uid-ended" {
		t.Errorf("ended pod: %+v, %v", tg, ok)
	}
	for _, name := range []string{"starting", "elsewhere", "gone"} {
		if tg, ok := f.a.kubeletPod("ns", name); ok {
			t.Errorf("%s found: %+v", name, tg)
		}
	}
	if pods := f.a.kubeletPods("n0"); len(pods) != 3 {
		t.Errorf("pods of n0: %d, want 3", len(pods))
	}
}
