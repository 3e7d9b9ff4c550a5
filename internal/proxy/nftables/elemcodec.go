package nftables

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/google/nftables/expr"
	"sigs.k8s.io/knftables"
)

// An elemCodec turns a set's or map's elements, written as nft reads
// them ("10.96.0.10 . tcp . 80 . 3 : 10.244.1.2 . 8080"), into the bytes
// nft itself would send for them: each field in its datatype's byte
// order, each field of a concatenation padded to 4 bytes. Only the field
// types this backend's sets use are known; a set with any other (or with
// intervals or timeouts) has no codec and its changes go through nft.
type elemCodec struct {
	key   []fieldKind
	value []fieldKind // empty for a set; one verdictField for a vmap
	// keyLen and valueLen: the encoded sizes (valueLen 0 for verdicts).
	keyLen, valueLen int
}

// fieldBytes is a field's encoded size before padding.
var fieldBytes = map[fieldKind]int{addr4Field: 4, addr6Field: 16, protoField: 1, portField: 2, numgenField: 4}

// dataLen is the encoded size of a key or value of these fields.
func dataLen(fields []fieldKind) int {
	if len(fields) == 1 {
		return fieldBytes[fields[0]]
	}
	n := 0
	for _, f := range fields {
		n += (fieldBytes[f] + 3) &^ 3
	}
	return n
}

type fieldKind int

const (
	addr4Field   fieldKind = iota // ipv4_addr, ip daddr: 4 bytes, network order
	addr6Field                    // ipv6_addr, ip6 daddr: 16 bytes
	protoField                    // inet_proto, meta l4proto: 1 byte
	portField                     // inet_service, th/tcp/udp/sctp dport: 2 bytes, big endian
	numgenField                   // numgen random mod N: 32-bit integer, host order
	verdictField                  // verdict: goto/jump <chain>, drop, accept
)

// fieldOf maps a datatype name ("ipv4_addr") or a typeof expression
// ("ip daddr") to its field kind.
func fieldOf(word string) (fieldKind, bool) {
	switch word {
	case "ipv4_addr", "ip daddr", "ip saddr":
		return addr4Field, true
	case "ipv6_addr", "ip6 daddr", "ip6 saddr":
		return addr6Field, true
	case "inet_proto", "meta l4proto":
		return protoField, true
	case "inet_service", "th dport", "tcp dport", "udp dport", "sctp dport":
		return portField, true
	case "verdict":
		return verdictField, true
	}
	if strings.HasPrefix(word, "numgen random mod ") {
		return numgenField, true
	}
	return 0, false
}

// codecFor returns the codec of a set or map object, or false when its
// elements cannot be sent as raw netlink elements by this backend.
func codecFor(obj knftables.Object) (*elemCodec, bool) {
	var typ string
	switch o := obj.(type) {
	case *knftables.Set:
		if len(o.Flags) > 0 || o.Timeout != nil {
			return nil, false // intervals, timeouts, dynamic sets
		}
		typ = o.Type + o.TypeOf
	case *knftables.Map:
		if len(o.Flags) > 0 || o.Timeout != nil {
			return nil, false
		}
		typ = o.Type + o.TypeOf
	default:
		return nil, false
	}
	keyPart, valuePart, isMap := strings.Cut(typ, " : ")
	c := &elemCodec{}
	var ok bool
	if c.key, ok = fieldsOf(keyPart); !ok {
		return nil, false
	}
	if isMap {
		if c.value, ok = fieldsOf(valuePart); !ok {
			return nil, false
		}
	}
	for _, f := range c.key {
		if f == verdictField {
			return nil, false
		}
	}
	for _, f := range c.value {
		if f == verdictField && len(c.value) > 1 {
			return nil, false
		}
	}
	c.keyLen, c.valueLen = dataLen(c.key), dataLen(c.value)
	return c, true
}

func fieldsOf(s string) ([]fieldKind, bool) {
	var out []fieldKind
	for _, w := range strings.Split(s, " . ") {
		f, ok := fieldOf(strings.TrimSpace(w))
		if !ok {
			return nil, false
		}
		out = append(out, f)
	}
	return out, len(out) > 0
}

// isVerdictMap: the map's values are verdicts.
func (c *elemCodec) isVerdictMap() bool {
	return len(c.value) == 1 && c.value[0] == verdictField
}

// encode returns one field's bytes.
func encodeField(f fieldKind, s string) ([]byte, error) {
	switch f {
	case addr4Field, addr6Field:
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, err
		}
		if f == addr4Field && a.Is4() {
			b := a.As4()
			return b[:], nil
		}
		if f == addr6Field && a.Is6() && !a.Is4In6() {
			b := a.As16()
			return b[:], nil
		}
		return nil, fmt.Errorf("%q is not an address of the set's family", s)
	case protoField:
		switch s {
		case "tcp":
			return []byte{6}, nil
		case "udp":
			return []byte{17}, nil
		case "sctp":
			return []byte{132}, nil
		}
		n, err := strconv.ParseUint(s, 10, 8)
		if err != nil {
			return nil, fmt.Errorf("protocol %q: %w", s, err)
		}
		return []byte{byte(n)}, nil
	case portField:
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("port %q: %w", s, err)
		}
		return binary.BigEndian.AppendUint16(nil, uint16(n)), nil
	case numgenField:
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", s, err)
		}
		return binary.NativeEndian.AppendUint32(nil, uint32(n)), nil
	}
	return nil, fmt.Errorf("field kind %d has no bytes", f)
}

// encodeData encodes a key or a non-verdict value: its fields in order,
// each padded to 4 bytes when there is more than one (a concatenation).
func encodeData(fields []fieldKind, s string) ([]byte, error) {
	out := make([]byte, 0, 4*len(fields)+12)
	rest := s
	for i, f := range fields {
		part, tail, more := strings.Cut(rest, " . ")
		if more != (i < len(fields)-1) {
			return nil, fmt.Errorf("%q: want %d fields", s, len(fields))
		}
		b, err := encodeField(f, part)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
		if len(fields) > 1 {
			for len(out)%4 != 0 {
				out = append(out, 0)
			}
		}
		rest = tail
	}
	return out, nil
}

// encodeVerdict parses "goto <chain>", "jump <chain>", "drop", "accept"
// or "return".
func encodeVerdict(s string) (*expr.Verdict, error) {
	word, chain, _ := strings.Cut(s, " ")
	switch word {
	case "goto":
		return &expr.Verdict{Kind: expr.VerdictGoto, Chain: chain}, nil
	case "jump":
		return &expr.Verdict{Kind: expr.VerdictJump, Chain: chain}, nil
	case "drop":
		return &expr.Verdict{Kind: expr.VerdictDrop}, nil
	case "accept":
		return &expr.Verdict{Kind: expr.VerdictAccept}, nil
	case "return":
		return &expr.Verdict{Kind: expr.VerdictReturn}, nil
	}
	return nil, fmt.Errorf("verdict %q", s)
}
