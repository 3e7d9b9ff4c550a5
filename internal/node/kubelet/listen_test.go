package kubelet

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/svcplane/svcplane/internal/pki"
)

// TestListenHook: with a Listen hook (the netns runtime's ListenInNode)
// every node listens on the kubelet's port in its own namespace and is
// reached at its own address (Endpoint.Host "").
func TestListenHook(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var asked []string
	names := map[string][]string{}
	srv, err := New(Config{Nodes: []string{"a", "b"},
		NodeAddresses: func(node string) []string { return []string{"10.1.0." + map[string]string{"a": "1", "b": "2"}[node]} },
		Certificate: func(node string, hosts []string) (*tls.Certificate, error) {
			names[node] = hosts
			certPEM, keyPEM, err := pki.SelfSigned(node, time.Hour)
			if err != nil {
				return nil, err
			}
			c, err := tls.X509KeyPair(certPEM, keyPEM)
			return &c, err
		},
		Lookup:        func(string, string) (Target, bool) { return Target{}, false },
		Pods:          func(string) []*corev1.Pod { return nil },
		Authenticator: authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil }),
		Authorizer: authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return authorizer.DecisionNoOpinion, "", nil
		}),
		// Stands in for a listener inside the node's namespace.
		Listen: func(node, network, address string) (net.Listener, error) {
			asked = append(asked, node+" "+network+" "+address)
			return net.Listen("tcp", "127.0.0.1:0")
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0] != "a tcp :10250" || asked[1] != "b tcp :10250" {
		t.Errorf("Listen asked for %q", asked)
	}
	for _, n := range []string{"a", "b"} {
		if ep, ok := srv.Endpoint(n); !ok || ep != (Endpoint{Port: DefaultPort}) {
			t.Errorf("endpoint of %s: %+v, %v", n, ep, ok)
		}
	}
	// The serving certificates name the node and its own addresses.
	if !slices.Equal(names["a"], []string{"a", "10.1.0.1"}) || !slices.Equal(names["b"], []string{"b", "10.1.0.2"}) {
		t.Errorf("certificate names %v", names)
	}
}
