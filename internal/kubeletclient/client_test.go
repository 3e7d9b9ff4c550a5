package kubeletclient

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestGetConnectionInfo(t *testing.T) {
	nodes := map[string]*corev1.Node{
		"real": {ObjectMeta: metav1.ObjectMeta{Name: "real"}, Status: corev1.NodeStatus{
			Addresses:        []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}, {Type: corev1.NodeHostName, Address: "real.example"}},
			DaemonEndpoints:  corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			DeclaredFeatures: []string{ExtendWebSocketsToKubelet}}},
		"sim": {ObjectMeta: metav1.ObjectMeta{Name: "sim", Annotations: map[string]string{AddressAnnotation: "192.0.2.9"}}, Status: corev1.NodeStatus{
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.240.0.1"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 41234}}}},
		"noport":    {ObjectMeta: metav1.ObjectMeta{Name: "noport"}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}}}},
		"noaddress": {ObjectMeta: metav1.ObjectMeta{Name: "noaddress"}},
	}
	get := func(_ context.Context, name string) (*corev1.Node, error) {
		if n, ok := nodes[name]; ok {
			return n, nil
		}
		return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
	}
	cfg := DefaultConfig()
	cfg.PreferredAddressTypes = []string{"InternalIP", "ExternalIP", "Hostname"}
	g, err := New(cfg, get)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		node, host, port string
		ws               bool
		err              string
	}{
		{node: "real", host: "10.0.0.5", port: "10250", ws: true},
		{node: "sim", host: "192.0.2.9", port: "41234"},
		{node: "noport", host: "203.0.113.1", port: "10250"},
		{node: "noaddress", err: "no preferred addresses found; known addresses: []"},
		{node: "gone", err: `nodes "gone" not found`},
	} {
		info, err := g.GetConnectionInfo(context.Background(), tc.node)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %v, want %q", tc.node, err, tc.err)
			}
			continue
		}
		if err != nil || info.Scheme != "https" || info.Hostname != tc.host || info.Port != tc.port || info.SupportsWebSockets() != tc.ws || info.Transport == nil {
			t.Errorf("%s: %+v, %v; want %s:%s websockets %v", tc.node, info, err, tc.host, tc.port, tc.ws)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(*Config) {}, ""},
		{func(c *Config) { c.PreferredAddressTypes = []string{"InternalIP", "Bogus"} }, "Bogus is not a valid NodeAddressType"},
		{func(c *Config) { c.CertFile = "x.crt" }, "must be given together"},
		{func(c *Config) { c.Timeout = -1 }, "must not be negative"},
	} {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", c, err, tc.want)
		}
	}
}
