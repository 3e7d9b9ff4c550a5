package nftables

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

// routingNFT records which way each transaction went: a script, or
// netlink element batches (it applies neither; the kernel tests do). The
// table exists once a script ran.
type routingNFT struct {
	*knftables.Fake
	scripts int
	batches [][]elemBatch
}

func (r *routingNFT) Family() knftables.Family { return knftables.IPv4Family }

func (r *routingNFT) RunScript(context.Context, []byte) error { r.scripts++; return nil }

func (r *routingNFT) List(ctx context.Context, kind string) ([]string, error) {
	if r.scripts > 0 {
		return nil, nil
	}
	return r.Fake.List(ctx, kind)
}

func (r *routingNFT) SendElements(b []elemBatch) error {
	r.batches = append(r.batches, b)
	return nil
}

// A partial sync goes over netlink exactly when it changes elements only,
// in sets the codec knows; anything that adds, flushes or deletes a
// chain, rule or set goes through nft. A full sync into a table that does
// not exist is a script of the objects, then the elements over netlink;
// over an existing table it is one script.
func TestPartialSyncRouting(t *testing.T) {
	const other = "@" + proxytest.OtherNode
	web := proxytest.Svc("web", "10.96.0.10", 80)
	api := proxytest.Svc("api", "10.96.0.20", 80)
	steps := []struct {
		name    string
		objects []runtime.Object
		full    bool
		// want: "script", "none", the batches as "op set n" lines, or
		// both (a script first).
		want []string
	}{
		{"first, into no table", []runtime.Object{web, proxytest.Slice("web", 8080, "10.244.1.2"+other, "10.244.2.3"+other)}, true,
			[]string{"script", "add endpoints-ip-tcp 2", "add service-ips 1"}},
		{"full resync over the table", []runtime.Object{web, proxytest.Slice("web", 8080, "10.244.1.2"+other, "10.244.2.3"+other)}, true,
			[]string{"script"}},
		{"endpoint moved", []runtime.Object{web, proxytest.Slice("web", 8080, "10.244.1.3"+other, "10.244.2.3"+other)}, false,
			[]string{"delete endpoints-ip-tcp 1", "add endpoints-ip-tcp 1"}},
		{"nothing changed", []runtime.Object{web, proxytest.Slice("web", 8080, "10.244.1.3"+other, "10.244.2.3"+other)}, false,
			[]string{"none"}},
		{"a new Service with as many endpoints (its chain exists)", []runtime.Object{web,
			proxytest.Slice("web", 8080, "10.244.1.3"+other, "10.244.2.3"+other),
			api, proxytest.Slice("api", 8080, "10.244.3.1"+other, "10.244.3.2"+other)}, false,
			[]string{"add endpoints-ip-tcp 2", "add service-ips 1"}},
		{"api loses its endpoints (web keeps the chain)", []runtime.Object{web,
			proxytest.Slice("web", 8080, "10.244.1.3"+other, "10.244.2.3"+other), api}, false,
			[]string{"delete endpoints-ip-tcp 2", "delete service-ips 1", "add no-endpoint-services 1"}},
		{"an endpoint becomes local (hairpin set)", []runtime.Object{web,
			proxytest.Slice("web", 8080, "10.244.1.3@"+proxytest.NodeName, "10.244.2.3"+other), api}, false,
			[]string{"add endpoint-hairpin 1"}},
		{"an endpoint count no chain has yet", []runtime.Object{web,
			proxytest.Slice("web", 8080, "10.244.1.3@"+proxytest.NodeName, "10.244.2.3"+other, "10.244.2.4"+other), api}, false,
			[]string{"script"}},
	}
	nft := &routingNFT{Fake: knftables.NewFake(knftables.IPv4Family, TableName)}
	var snap *proxy.Snapshot
	p := NewProxier(Config{Family: proxy.IPv4}, nft, func() *proxy.Snapshot { return snap })
	for _, st := range steps {
		snap = proxytest.Snapshot(proxy.IPv4, st.objects...)
		scripts, sent := nft.scripts, len(nft.batches)
		if err := p.SyncProxyRules(st.full); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		var got []string
		if nft.scripts > scripts {
			got = append(got, "script")
		}
		for _, bs := range nft.batches[sent:] {
			for _, b := range bs {
				got = append(got, fmt.Sprintf("%s %s %d", b.op, b.set, len(b.elems)))
			}
		}
		if got == nil {
			got = []string{"none"}
		}
		if !slices.Equal(got, st.want) {
			t.Errorf("%s: sent %q, want %q", st.name, got, st.want)
		}
	}
}
