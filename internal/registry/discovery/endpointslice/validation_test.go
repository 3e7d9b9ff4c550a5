package endpointslice

import (
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
)

func TestValidate(t *testing.T) {
	host := "H.1"
	for _, tc := range []struct {
		name string
		t    discoveryv1.AddressType
		ep   discoveryv1.Endpoint
		want string
	}{
		{"valid", discoveryv1.AddressTypeIPv4, discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}}, ""},
		{"other family", discoveryv1.AddressTypeIPv4, discoveryv1.Endpoint{Addresses: []string{"2001:db8::1"}},
			`endpoints[0].addresses: Invalid value: "2001:db8::1": must be an IPv4 address`},
		{"leading zero", discoveryv1.AddressTypeIPv4, discoveryv1.Endpoint{Addresses: []string{"010.0.0.1"}},
			`endpoints[0].addresses[0]: Invalid value: "010.0.0.1": must not have leading 0s`},
		{"loopback", discoveryv1.AddressTypeIPv4, discoveryv1.Endpoint{Addresses: []string{"127.0.0.1"}},
			`endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`},
		{"bad hostname", discoveryv1.AddressTypeIPv4, discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}, Hostname: &host},
			`endpoints[0].hostname: Invalid value: "H.1": a lowercase RFC 1123 label`},
		{"bad type", "IPv5", discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}},
			`addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"`},
	} {
		errs := validate(&discoveryv1.EndpointSlice{AddressType: tc.t, Endpoints: []discoveryv1.Endpoint{tc.ep}})
		got := ""
		if len(errs) > 0 {
			got = errs.ToAggregate().Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDropTopology: v1 writes drop deprecatedTopology, keeping a node name
// the old slice carried there.
func TestDropTopology(t *testing.T) {
	old := &discoveryv1.EndpointSlice{Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"},
		DeprecatedTopology: map[string]string{"kubernetes.io/hostname": "n1"}}}}
	s := &discoveryv1.EndpointSlice{Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.2"},
		DeprecatedTopology: map[string]string{"kubernetes.io/hostname": "n1", "x": "y"}}}}
	dropTopology(old, s)
	if ep := s.Endpoints[0]; ep.DeprecatedTopology != nil || ep.NodeName == nil || *ep.NodeName != "n1" {
		t.Errorf("endpoint %+v", ep)
	}
	s.Generation, old.Generation = 0, 4
	bumpGeneration(s, old)
	if s.Generation != 5 {
		t.Errorf("generation %d, want 5", s.Generation)
	}
}
