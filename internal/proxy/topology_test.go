package proxy

import (
	"net/netip"
	"strings"
	"testing"
)

// ep builds an endpoint "10.0.0.N" with flags from a spec string:
// r=ready s=serving t=terminating l=local; z:<zone> n:<node> hints.
func ep(n int, spec string, hints ...string) Endpoint {
	e := Endpoint{IP: netip.AddrFrom4([4]byte{10, 0, 0, byte(n)}), Port: 80}
	e.Ready = strings.Contains(spec, "r")
	e.Serving = e.Ready || strings.Contains(spec, "s")
	e.Terminating = strings.Contains(spec, "t")
	e.IsLocal = strings.Contains(spec, "l")
	for _, h := range hints {
		if e.Hints == nil {
			e.Hints = &EndpointHints{}
		}
		switch {
		case strings.HasPrefix(h, "z:"):
			e.Hints.Zones = append(e.Hints.Zones, h[2:])
		case strings.HasPrefix(h, "n:"):
			e.Hints.Nodes = append(e.Hints.Nodes, h[2:])
		}
	}
	return e
}

func ips(eps []Endpoint) string {
	if eps == nil {
		return "nil"
	}
	var s []string
	for _, e := range eps {
		s = append(s, e.IP.String()[len("10.0.0."):])
	}
	return "[" + strings.Join(s, ",") + "]"
}

func TestCategorizeEndpoints(t *testing.T) {
	node := Node{Name: "node-a", Labels: map[string]string{LabelTopologyZone: "zone-a"}}
	cluster := &ServicePort{}
	internalLocal := &ServicePort{InternalPolicyLocal: true}
	externalLocal := &ServicePort{NodePort: 30080, ExternalPolicyLocal: true}
	bothLocal := &ServicePort{NodePort: 30080, ExternalPolicyLocal: true, InternalPolicyLocal: true}
	tests := []struct {
		name                string
		svc                 *ServicePort
		eps                 []Endpoint
		cluster, local, all string
		hasAny              bool
	}{
		{"cluster: ready only", cluster, []Endpoint{ep(1, "r"), ep(2, "st"), ep(3, "")}, "[1]", "nil", "[1]", true},
		{"cluster: fallback to serving+terminating", cluster, []Endpoint{ep(1, "st"), ep(2, "t"), ep(3, "")}, "[1]", "nil", "[1]", true},
		{"cluster: nothing usable", cluster, []Endpoint{ep(2, "t"), ep(3, "")}, "nil", "nil", "nil", false},
		{"zone hints used when all ready have them", cluster,
			[]Endpoint{ep(1, "r", "z:zone-a"), ep(2, "r", "z:zone-b"), ep(3, "st")}, "[1]", "nil", "[1]", true},
		{"zone hints ignored when one ready lacks them", cluster,
			[]Endpoint{ep(1, "r", "z:zone-a"), ep(2, "r")}, "[1,2]", "nil", "[1,2]", true},
		{"zone hints ignored when none for our zone", cluster,
			[]Endpoint{ep(1, "r", "z:zone-c"), ep(2, "r", "z:zone-b")}, "[1,2]", "nil", "[1,2]", true},
		{"node hints win over zone hints", cluster,
			[]Endpoint{ep(1, "r", "z:zone-a", "n:node-b"), ep(2, "r", "z:zone-a", "n:node-a")}, "[2]", "nil", "[2]", true},
		{"internal local: local ready only, hints ignored", internalLocal,
			[]Endpoint{ep(1, "rl", "z:zone-b"), ep(2, "r", "z:zone-a")}, "nil", "[1]", "[1]", true},
		{"internal local: no local endpoints", internalLocal, []Endpoint{ep(2, "r")}, "nil", "nil", "nil", true},
		{"internal local: local terminating fallback", internalLocal,
			[]Endpoint{ep(1, "stl"), ep(2, "r")}, "nil", "[1]", "[1]", true},
		{"external local: cluster and local, merged", externalLocal,
			[]Endpoint{ep(1, "rl"), ep(2, "r"), ep(3, "stl")}, "[1,2]", "[1]", "[1,2]", true},
		{"external local: local terminating joins all", externalLocal,
			[]Endpoint{ep(2, "r"), ep(3, "stl")}, "[2]", "[3]", "[2,3]", true},
		{"both local on an external service still uses cluster endpoints", bothLocal,
			[]Endpoint{ep(1, "rl"), ep(2, "r")}, "[1,2]", "[1]", "[1,2]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, l, a, any := CategorizeEndpoints(tt.eps, tt.svc, node)
			if ips(c) != tt.cluster || ips(l) != tt.local || ips(a) != tt.all || any != tt.hasAny {
				t.Errorf("got cluster=%s local=%s all=%s hasAny=%v; want %s %s %s %v",
					ips(c), ips(l), ips(a), any, tt.cluster, tt.local, tt.all, tt.hasAny)
			}
		})
	}
}
