package nftables

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/nftables/expr"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Every set and map of the base plan whose elements partial syncs write
// has a codec, except those with intervals (nft sends those as ranges).
func TestCodecForBaseSets(t *testing.T) {
	for _, family := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
		cfg := Config{Family: family}
		base := planBase(&cfg, &proxy.Node{})
		for _, sd := range base.sets {
			name := objName(sd.obj)
			_, ok := codecFor(sd.obj)
			interval := name == setFirewallAllow || name == setNodePortIPs
			if ok == interval {
				t.Errorf("%v %s: codec %v, want %v", family, name, ok, !interval)
			}
		}
	}
	if _, ok := codecFor(&knftables.Set{Name: "a", Type: "ipv4_addr", Flags: []knftables.SetFlag{knftables.DynamicFlag, knftables.TimeoutFlag}}); ok {
		t.Error("an affinity (dynamic, timeout) set must have no codec")
	}
	if _, ok := codecFor(&knftables.Map{Name: "m", Type: "ifname : verdict"}); ok {
		t.Error("an unknown field type must have no codec")
	}
}

func le32(v uint32) string { return hex.EncodeToString(binary.NativeEndian.AppendUint32(nil, v)) }

// The bytes of each element kind the backend writes: fields in their
// datatype's order (addresses and ports big endian, numgen's integer in
// host order), each field of a concatenation padded to 4 bytes.
func TestEncodeElements(t *testing.T) {
	for _, tc := range []struct {
		name, typ, typeOf, key, value string
		wantKey, wantValue            string // hex
		wantVerdict                   *expr.Verdict
	}{
		{name: "endpoint slot", typeOf: "ip daddr . meta l4proto . th dport . numgen random mod 1 : ip daddr . tcp dport",
			key: "10.96.0.10 . tcp . 80 . 3", value: "10.244.1.2 . 8080",
			wantKey: "0a60000a" + "06000000" + "00500000" + le32(3), wantValue: "0af40102" + "1f900000"},
		{name: "udp nodeport slot", typeOf: "meta l4proto . th dport . numgen random mod 1 : ip daddr . udp dport",
			key: "udp . 30053 . 0", value: "10.244.2.3 . 53",
			wantKey: "11000000" + "75650000" + le32(0), wantValue: "0af40203" + "00350000"},
		{name: "sctp", typeOf: "ip daddr . meta l4proto . th dport . numgen random mod 1 : ip daddr . sctp dport",
			key: "10.96.0.1 . sctp . 9 . 1", value: "10.244.1.2 . 9",
			wantKey: "0a600001" + "84000000" + "00090000" + le32(1), wantValue: "0af40102" + "00090000"},
		{name: "ipv6 slot", typeOf: "ip6 daddr . meta l4proto . th dport . numgen random mod 1 : ip6 daddr . tcp dport",
			key: "fd00:96::10 . tcp . 80 . 1", value: "fd00:244:1::2 . 8080",
			wantKey:   "fd000096000000000000000000000010" + "06000000" + "00500000" + le32(1),
			wantValue: "fd000244000100000000000000000002" + "1f900000"},
		{name: "service dispatch", typ: "ipv4_addr . inet_proto . inet_service : verdict",
			key: "10.96.0.10 . tcp . 80", value: "goto dnat-ip-tcp-cluster-2",
			wantKey: "0a60000a" + "06000000" + "00500000", wantVerdict: &expr.Verdict{Kind: expr.VerdictGoto, Chain: "dnat-ip-tcp-cluster-2"}},
		{name: "no endpoints", typ: "inet_proto . inet_service : verdict", key: "tcp . 30080", value: "drop",
			wantKey: "06000000" + "75800000", wantVerdict: &expr.Verdict{Kind: expr.VerdictDrop}},
		{name: "hairpin", typ: "ipv4_addr . ipv4_addr", key: "10.244.1.2 . 10.244.1.2", wantKey: "0af40102" + "0af40102"},
		{name: "firewall", typ: "ipv4_addr . inet_proto . inet_service", key: "192.0.2.1 . udp . 53",
			wantKey: "c0000201" + "11000000" + "00350000"},
		{name: "single field, not padded", typ: "inet_service", key: "80", wantKey: "0050"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var obj knftables.Object = &knftables.Set{Name: "s", Type: tc.typ, TypeOf: tc.typeOf}
			if strings.Contains(tc.typ+tc.typeOf, " : ") {
				obj = &knftables.Map{Name: "s", Type: tc.typ, TypeOf: tc.typeOf}
			}
			c, ok := codecFor(obj)
			if !ok {
				t.Fatal("no codec")
			}
			el, err := c.element(addOp, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if n := c.encodedSize(elemDef{key: tc.key, value: tc.value}, addOp); n < len(el.Key)+len(el.Val)+20 {
				t.Errorf("size bound %d below the key and value bytes", n)
			}
			if got := hex.EncodeToString(el.Key); got != tc.wantKey {
				t.Errorf("key %s, want %s", got, tc.wantKey)
			}
			if got := hex.EncodeToString(el.Val); got != tc.wantValue {
				t.Errorf("value %s, want %s", got, tc.wantValue)
			}
			if (el.VerdictData == nil) != (tc.wantVerdict == nil) || (el.VerdictData != nil && *el.VerdictData != *tc.wantVerdict) {
				t.Errorf("verdict %+v, want %+v", el.VerdictData, tc.wantVerdict)
			}
			d, err := c.element(deleteOp, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(d.Key, el.Key) || d.Val != nil || d.VerdictData != nil {
				t.Errorf("a deletion carries the key only: %+v", d)
			}
		})
	}
}

func TestEncodeRejectsBadElements(t *testing.T) {
	endpoints := &setState{obj: &knftables.Map{Name: "m",
		TypeOf: "ip daddr . meta l4proto . th dport . numgen random mod 1 : ip daddr . tcp dport"}, isMap: true}
	for _, e := range []elemDef{
		{key: "fd00::1 . tcp . 80 . 0", value: "10.0.0.1 . 80"},     // IPv6 address in an IPv4 map
		{key: "10.0.0.1 . tcp . 80", value: "10.0.0.1 . 80"},        // a field missing
		{key: "10.0.0.1 . tcp . 70000 . 0", value: "10.0.0.1 . 80"}, // port out of range
		{key: "10.0.0.1 . icmpx . 80 . 0", value: "10.0.0.1 . 80"},  // unknown protocol
		{key: "10.0.0.1 . tcp . 80 . 0", value: "10.0.0.1"},         // value field missing
	} {
		if b, err := newBatch(addOp, endpoints, []elemDef{e}); err != nil || b.check() == nil {
			t.Errorf("%s : %s: no error", e.key, e.value)
		}
	}
	vmap := &setState{obj: &knftables.Map{Name: "v", Type: "inet_proto . inet_service : verdict"}, isMap: true}
	if b, err := newBatch(addOp, vmap, []elemDef{{key: "tcp . 80", value: "continue-ish"}}); err != nil || b.check() == nil {
		t.Error("an unknown verdict must be an error")
	}
}
