package node

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/svcplane/svcplane/internal/kubeletclient"
)

type kubelet struct{ host string }

var kubeletTransport, otherTransport = &http.Transport{}, &http.Transport{}

func (k kubelet) GetConnectionInfo(context.Context, string) (*kubeletclient.ConnectionInfo, error) {
	return &kubeletclient.ConnectionInfo{Scheme: "https", Hostname: k.host, Port: "10250", Transport: kubeletTransport}, nil
}

func resolveIP(_ context.Context, host string) ([]net.IPAddr, error) {
	ip := net.ParseIP(host)
	if ip == nil {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	return []net.IPAddr{{IP: ip}}, nil
}

func TestProxyLocation(t *testing.T) {
	for _, tc := range []struct {
		host, id, want string
		transport      http.RoundTripper
		err            string
	}{
		{"192.0.2.7", "n1", "https://192.0.2.7:10250", kubeletTransport, ""},
		{"192.0.2.7", "n1:10250", "https://192.0.2.7:10250", kubeletTransport, ""},
		{"192.0.2.7", "http:n1:8080", "http://192.0.2.7:8080", otherTransport, ""},
		{"127.0.0.1", "n1", "", nil, "address not allowed"},
		{"n1.invalid", "n1", "", nil, "lookup n1.invalid: no such host"},
		{"192.0.2.7", "a:b:c:d", "", nil, `invalid node request "a:b:c:d"`},
	} {
		r := &ProxyREST{Kubelet: kubelet{tc.host}, ProxyTransport: otherTransport, Resolve: resolveIP}
		u, tr, err := r.location(context.Background(), tc.id)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s via %s: %v, want %q", tc.id, tc.host, err, tc.err)
			}
		case err != nil || u.String() != tc.want || tr != tc.transport:
			t.Errorf("%s via %s: %v, %v; want %s", tc.id, tc.host, u, err, tc.want)
		}
	}
}
