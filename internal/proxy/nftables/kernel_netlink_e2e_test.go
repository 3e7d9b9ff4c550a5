package nftables

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// netlinkE2EStates are states whose transitions change elements only, so
// partial syncs between them go over netlink: the web Service (NodePort
// 30080) moving from b1 to b2 with one endpoint ("one" → "one-b2"), a
// second TCP Service with as many endpoints as web ("two-api"), that
// Service without endpoints ("api-none"), and the IPv6 web6 with b1 only
// ("v6-b1"; "v6-one" has b2 only).
func netlinkE2EStates() map[string][]runtime.Object {
	const b1, b2 = "10.244.1.2@" + proxytest.OtherNode, "10.244.2.3@" + proxytest.OtherNode
	web := func() *v1.Service { return proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080)) }
	dns := func() []runtime.Object {
		svc := proxytest.Svc("dns", "10.96.0.53", 53)
		svc.Spec.Ports[0].Protocol = v1.ProtocolUDP
		slice := proxytest.Slice("dns", 8080, b1)
		slice.Ports[0].Protocol = ptr.To(v1.ProtocolUDP)
		return []runtime.Object{svc, slice}
	}
	api := proxytest.Svc("api", "10.96.0.20", 80)
	web6 := proxytest.Svc("web6", netlab.IPv6ClusterIP, 80, proxytest.NodePort(netlab.IPv6NodePort))
	web6.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol}
	slice6 := proxytest.Slice("web6", 8080, "fd00:244:1::2@"+proxytest.OtherNode)
	slice6.AddressType = discovery.AddressTypeIPv6
	// many: 1,500 Services × 10 endpoints (a quarter on this node), so a
	// full sync's netlink batch spans many messages and needs the
	// enlarged socket buffers.
	var many []runtime.Object
	for i := range 1500 {
		name := fmt.Sprintf("m%d", i)
		var eps []string
		for j := range 10 {
			node := proxytest.OtherNode
			if (i+j)%4 == 0 {
				node = proxytest.NodeName
			}
			eps = append(eps, fmt.Sprintf("10.%d.%d.%d@%s", 128+j, i/256, i%256, node))
		}
		many = append(many, proxytest.Svc(name, fmt.Sprintf("10.97.%d.%d", i/256, i%256), 80), proxytest.Slice(name, 8080, eps...))
	}
	return map[string][]runtime.Object{
		"many":     many,
		"one-b2":   append([]runtime.Object{web(), proxytest.Slice("web", 8080, b2)}, dns()...),
		"two-api":  append([]runtime.Object{web(), proxytest.Slice("web", 8080, b1, b2), api, proxytest.Slice("api", 8080, b2, b1)}, dns()...),
		"api-none": append([]runtime.Object{web(), proxytest.Slice("web", 8080, b1, b2), api}, dns()...),
		"v6-b1":    {web6, slice6},
	}
}

// scriptOnly is the CLI without its netlink path: every sync is one nft
// script, the reference the netlink paths are compared with.
type scriptOnly struct {
	knftables.Interface
	cli *CLI
}

func (s scriptOnly) Family() knftables.Family { return s.cli.Family() }

func (s scriptOnly) RunScript(ctx context.Context, script []byte) error {
	return s.cli.RunScript(ctx, script)
}

// compareSteps syncs each state in turn (the first fully) and after each
// compares the kernel's table with what one nft script of a full sync of
// the same state gives: it deletes the table and puts that full sync's
// table in its place (same content), so later steps go on from the kernel
// state the sync under test left. It prints each step's way:
// "<state> nft", "<state> netlink" or "<state> nft+netlink".
func compareSteps(steps []string) error {
	family := helperFamily()
	ctx := context.Background()
	nft, err := NewInterface(family)
	if err != nil {
		return err
	}
	cli := nft.(*CLI)
	var snap *proxy.Snapshot
	p := NewProxier(Config{Family: family}, nft, func() *proxy.Snapshot { return snap })
	for i, s := range steps {
		snap = proxytest.Snapshot(family, e2eStates()[s]...)
		scripts, netlinkTxs := cli.scripts, cli.netlinkTxs
		if err := p.SyncProxyRules(i == 0); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		var ways []string
		if cli.scripts > scripts {
			ways = append(ways, "nft")
		}
		if cli.netlinkTxs > netlinkTxs {
			ways = append(ways, "netlink")
		}
		way := strings.Join(ways, "+")
		got, err := listTable(string(cli.family))
		if err != nil {
			return err
		}
		if err := Cleanup(ctx, nft); err != nil {
			return err
		}
		ref := scriptOnly{Interface: nft, cli: cli}
		if err := NewProxier(Config{Family: family}, ref, func() *proxy.Snapshot { return snap }).SyncProxyRules(true); err != nil {
			return fmt.Errorf("%s: full sync: %w", s, err)
		}
		want, err := listTable(string(cli.family))
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("after %s (via %s) the table differs from a full sync's:\n%s\nwant:\n%s", s, way, got, want)
		}
		fmt.Printf("%s %s\n", s, way)
	}
	return nil
}

// listTable lists the family's table with its chains, sets and maps in
// name order (nft lists them in creation order) and each set's elements
// sorted (a hash set lists them in its buckets' order): two tables of the
// same content list the same.
func listTable(family string) (string, error) {
	out, err := exec.Command("nft", "list", "table", family, TableName).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("nft list table: %v: %s", err, out)
	}
	return sortBlocks(sortElements(string(out))), nil
}

// sortBlocks sorts the table's top-level blocks ("\tchain x {" to "\t}").
func sortBlocks(listing string) string {
	var head, blocks []string
	var cur []string
	for _, line := range strings.Split(listing, "\n") {
		switch {
		case cur != nil:
			cur = append(cur, line)
			if line == "\t}" {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
		case strings.HasPrefix(line, "\tchain ") || strings.HasPrefix(line, "\tset ") || strings.HasPrefix(line, "\tmap "):
			cur = []string{line}
		case strings.TrimSpace(line) != "":
			head = append(head, line)
		}
	}
	slices.Sort(blocks)
	return strings.Join(head, "\n") + "\n" + strings.Join(blocks, "\n")
}

// sortElements rewrites every "elements = { a, b, … }" block (which nft
// may wrap over several lines) as one line with the elements sorted.
func sortElements(listing string) string {
	var b strings.Builder
	for {
		i := strings.Index(listing, "elements = {")
		if i < 0 {
			b.WriteString(listing)
			return b.String()
		}
		b.WriteString(listing[:i])
		rest := listing[i+len("elements = {"):]
		j := strings.Index(rest, "}")
		if j < 0 {
			b.WriteString(listing[i:])
			return b.String()
		}
		var elems []string
		for _, e := range strings.Split(rest[:j], ",") {
			if e = strings.Join(strings.Fields(e), " "); e != "" {
				elems = append(elems, e)
			}
		}
		slices.Sort(elems)
		b.WriteString("elements = { " + strings.Join(elems, ", ") + " }")
		listing = rest[j+1:]
	}
}

func TestSortBlocks(t *testing.T) {
	got := sortBlocks("table ip t {\n\tcomment \"c\"\n\tset b {\n\t\ttype x\n\t}\n\n\tchain a {\n\t\tjump b\n\t}\n}\n")
	want := "table ip t {\n\tcomment \"c\"\n}\n\tchain a {\n\t\tjump b\n\t}\n\tset b {\n\t\ttype x\n\t}"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSortElements(t *testing.T) {
	got := sortElements("map m {\n\telements = { b : x,\n\t\t     a : y }\n}\nset s {\n\telements = { 2, 1 }\n}\n")
	want := "map m {\n\telements = { a : y, b : x }\n}\nset s {\n\telements = { 1, 2 }\n}\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestKernelE2ENetlink: partial syncs that change elements only go over
// netlink, and a full sync into no table sends its elements over netlink
// after an nft script of its objects; both leave the kernel's table
// exactly as one nft script of a full sync would (every element kind:
// endpoint slots of ClusterIPs and NodePorts, TCP and UDP, IPv4 and
// IPv6, dispatch and no-endpoint verdicts, hairpin pairs), and traffic
// follows them.
func TestKernelE2ENetlink(t *testing.T) {
	l := newNetlab(t)
	l.AddIPv6()
	for _, tc := range []struct {
		steps, family string
		want          []string
	}{
		{"many,two,two-api,api-none,two,one,one-b2", "4",
			[]string{"many nft+netlink", "two nft", "two-api netlink", "api-none netlink", "two netlink", "one nft", "one-b2 netlink"}},
		{"dns-both,dns-b1,dns-b2", "4", []string{"dns-both nft", "dns-b1 nft", "dns-b2 netlink"}},
		{"v6-two,v6-one,v6-b1", "6", []string{"v6-two nft+netlink", "v6-one nft", "v6-b1 netlink"}},
	} {
		out := l.HelperOut("node", "compare", "STEPS="+tc.steps, "FAMILY="+tc.family)
		if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: steps went %q, want %q", tc.steps, got, tc.want)
		}
	}

	// Traffic follows a netlink-only change: web's one endpoint moves
	// from b1 to b2 (its ClusterIP and its NodePort).
	out := l.HelperOut("node", "sync", "STEPS=two,one,one-b2")
	if !strings.Contains(out, "nft scripts 2, netlink transactions 1") {
		t.Errorf("the last step should have gone over netlink: %s", out)
	}
	if got := l.Dial("tcp", "10.96.0.10:80"); got["b2"] != 24 {
		t.Errorf("ClusterIP after the netlink change: got %v", got)
	}
	if got := l.Dial("tcp", "10.100.0.1:30080"); got["b2"] != 24 {
		t.Errorf("NodePort after the netlink change: got %v", got)
	}
	// And IPv6: web6 moves from b2 to b1.
	vip := "[" + netlab.IPv6ClusterIP + "]:80"
	out = l.HelperOut("node", "sync", "STEPS=v6-two,v6-one,v6-b1", "FAMILY=6")
	if !strings.Contains(out, "netlink transactions 1") {
		t.Errorf("the last IPv6 step should have gone over netlink: %s", out)
	}
	l.WaitIPv6(vip)
	if got := l.Dial("tcp", vip); got["b1"] != 24 {
		t.Errorf("IPv6 ClusterIP after the netlink change: got %v", got)
	}
}
