package proxytest

import (
	"bytes"
	"embed"
	"fmt"
	"net/netip"
	"path"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"
)

// scenarioFiles is the shared table: one txtar archive per scenario.
//
//go:embed testdata/scenarios/*.txtar
var scenarioFiles embed.FS

// Scenarios is the table every backend runs, read from
// testdata/scenarios/*.txtar in file-name order; a malformed file fails t.
func Scenarios(t testing.TB) []Scenario {
	t.Helper()
	entries, err := scenarioFiles.ReadDir("testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	var out []Scenario
	for _, e := range entries {
		data, err := scenarioFiles.ReadFile(path.Join("testdata/scenarios", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario(strings.TrimSuffix(e.Name(), ".txtar"), data)
		if err != nil {
			t.Fatalf("testdata/scenarios/%s: %v", e.Name(), err)
		}
		out = append(out, sc)
	}
	if len(out) == 0 {
		t.Fatal("no scenario in testdata/scenarios")
	}
	return out
}

// ParseScenario reads one scenario archive. Its comment's first line is the
// scenario's name (the rest describes it); its files are
//
//	config.yaml   the proxy configuration (clusterCIDR, masqueradeAll)
//	objects.yaml  the Node, Services and EndpointSlices the proxy sees,
//	              Kubernetes YAML documents separated by "---"
//	fates         one check a line: a packet, "=>", its expected fate
//	              (FormatCheck); "#" starts a comment
func ParseScenario(file string, data []byte) (Scenario, error) {
	a := txtar.Parse(data)
	name, desc, _ := strings.Cut(strings.TrimSpace(string(a.Comment)), "\n")
	sc := Scenario{Name: strings.TrimSpace(name), File: file, Description: strings.TrimSpace(desc)}
	if sc.Name == "" {
		return sc, fmt.Errorf("no name: the archive's comment must start with the scenario's name")
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		seen[f.Name] = true
		var err error
		switch f.Name {
		case "config.yaml":
			err = yaml.UnmarshalStrict(f.Data, &sc.Config)
		case "objects.yaml":
			sc.Objects, err = decodeObjects(f.Data)
		case "fates":
			sc.Checks, err = parseChecks(f.Data)
		default:
			err = fmt.Errorf("unknown file (want config.yaml, objects.yaml, fates)")
		}
		if err != nil {
			return sc, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	for _, want := range []string{"config.yaml", "objects.yaml", "fates"} {
		if !seen[want] {
			return sc, fmt.Errorf("no %s", want)
		}
	}
	if len(sc.Checks) == 0 {
		return sc, fmt.Errorf("fates: no check")
	}
	return sc, nil
}

var decoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{v1.AddToScheme, discovery.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}()

// decodeObjects decodes YAML documents strictly (an unknown field is an
// error, not silently dropped). A Node must be the scenarios' own node:
// the tracers assume NodeName and NodeIP.
func decodeObjects(data []byte) ([]runtime.Object, error) {
	var out []runtime.Object
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		switch o := obj.(type) {
		case *v1.Node:
			if o.Name != NodeName || len(o.Status.Addresses) == 0 || o.Status.Addresses[0].Address != NodeIP {
				return nil, fmt.Errorf("document %d: the Node must be %s with address %s (the tracers' node)", i+1, NodeName, NodeIP)
			}
		case *v1.Service, *discovery.EndpointSlice:
		default:
			return nil, fmt.Errorf("document %d: %T is not a Node, Service or EndpointSlice", i+1, obj)
		}
		out = append(out, obj)
	}
	return out, nil
}

func parseChecks(data []byte) ([]Check, error) {
	var out []Check
	for n, line := range strings.Split(string(data), "\n") {
		if line, _, _ = strings.Cut(line, "#"); strings.TrimSpace(line) == "" {
			continue
		}
		c, err := ParseCheck(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// FormatCheck is a check as a line of a fates file:
//
//	in 10.244.1.99 → 10.96.0.10:80/tcp => endpoint 10.244.1.2:8080,10.244.2.3:8080 +masq
//
// "in" packets arrive on an interface, "node" packets are sent by the node
// itself; the fate is accept, drop, reject or endpoint with every endpoint
// the packet may reach, then +masq (source rewritten to the node) and
// sticky (ClientIP affinity: one of the listed endpoints, always the same).
func FormatCheck(c Check) string { return c.Packet.String() + " => " + c.Want.String() }

// ParseCheck reads what FormatCheck writes.
func ParseCheck(line string) (Check, error) {
	lhs, rhs, ok := strings.Cut(line, "=>")
	if !ok {
		return Check{}, fmt.Errorf("%q: want <packet> => <fate>", line)
	}
	p, err := parsePacket(strings.Fields(lhs))
	if err != nil {
		return Check{}, fmt.Errorf("%q: %w", line, err)
	}
	f, err := parseFate(strings.Fields(rhs))
	if err != nil {
		return Check{}, fmt.Errorf("%q: %w", line, err)
	}
	return Check{Packet: p, Want: f}, nil
}

func parsePacket(f []string) (Packet, error) {
	if len(f) != 4 || (f[0] != "in" && f[0] != "node") || f[2] != "→" {
		return Packet{}, fmt.Errorf("packet: want in|node SRC → DST:PORT/PROTO")
	}
	dst, proto, ok := strings.Cut(f[3], "/")
	ap, err := netip.ParseAddrPort(dst)
	if !ok || err != nil || (proto != "tcp" && proto != "udp" && proto != "sctp") {
		return Packet{}, fmt.Errorf("packet destination %q: want IP:PORT/tcp|udp|sctp", f[3])
	}
	if _, err := netip.ParseAddr(f[1]); err != nil {
		return Packet{}, fmt.Errorf("packet source: %w", err)
	}
	return Packet{Src: f[1], Dst: ap.Addr().String(), Proto: proto, Port: int(ap.Port()), FromNode: f[0] == "node"}, nil
}

func parseFate(f []string) (Fate, error) {
	if len(f) == 0 {
		return Fate{}, fmt.Errorf("no fate")
	}
	var fate Fate
	switch v := Verdict(f[0]); v {
	case Accept, Drop, Reject:
		fate.Verdict = v
		f = f[1:]
	case Endpoint:
		if len(f) < 2 {
			return Fate{}, fmt.Errorf("endpoint: no endpoints")
		}
		eps := strings.Split(f[1], ",")
		for _, ep := range eps {
			if _, err := netip.ParseAddrPort(ep); err != nil {
				return Fate{}, fmt.Errorf("endpoint %q: %w", ep, err)
			}
		}
		fate = To(eps...)
		f = f[2:]
	default:
		return Fate{}, fmt.Errorf("verdict %q: want accept, drop, reject or endpoint", f[0])
	}
	for _, flag := range f {
		switch {
		case flag == "+masq" && fate.Verdict == Endpoint:
			fate.Masquerade = true
		case flag == "sticky" && fate.Verdict == Endpoint:
			fate.Sticky = true
		default:
			return Fate{}, fmt.Errorf("%q: want +masq or sticky after an endpoint fate", flag)
		}
	}
	return fate, nil
}
