package nftables

import (
	"fmt"

	"sigs.k8s.io/knftables"
)

// Element is one element of a set or map, its key and value written as
// nft writes them ("10.96.0.10 . tcp . 80", "34567"; no value in a set).
type Element struct {
	Key, Value string
}

// ElementSender changes the elements of sets and maps of one table (any
// table name and family) over a lasting netlink socket: the messages
// `nft -f` would send, without starting nft or waiting out the release of
// its socket. This backend's partial syncs use it (CLI.SendElements), and
// so do other users of nftables for their element-only changes (the
// userspace mode's portal map). Not safe for concurrent use.
type ElementSender struct {
	family knftables.Family
	table  string
	// nl is opened at the first Send and closed after a failed one (its
	// acknowledgements may be out of step); the next Send opens another.
	nl *elementConn
}

// NewElementSender returns a sender for the table of that family and name.
func NewElementSender(family knftables.Family, table string) *ElementSender {
	return &ElementSender{family: family, table: table}
}

// Send deletes dels (by key) and adds adds in obj (a *knftables.Set or
// *knftables.Map of the table, as declared), in one transaction that
// fails whole. A set or map whose type has no netlink encoding here, or an
// element that does not encode, is an error before anything is sent.
func (s *ElementSender) Send(obj knftables.Object, dels, adds []Element) error {
	switch obj.(type) {
	case *knftables.Set, *knftables.Map:
	default:
		return fmt.Errorf("%T is not a set or map", obj)
	}
	name := objName(obj)
	codec, ok := codecFor(obj)
	if !ok {
		return fmt.Errorf("set %s: no netlink codec for its type", name)
	}
	var batches []elemBatch
	for _, part := range []struct {
		op    elemOp
		elems []Element
	}{{deleteOp, dels}, {addOp, adds}} {
		if len(part.elems) == 0 {
			continue
		}
		b := elemBatch{op: part.op, set: name, codec: codec, elems: make([]elemDef, len(part.elems))}
		for i, e := range part.elems {
			b.elems[i] = elemDef{set: name, key: e.Key, value: e.Value}
		}
		if err := b.check(); err != nil {
			return err
		}
		batches = append(batches, b)
	}
	return s.sendBatches(batches)
}

// sendBatches runs batches as one transaction, opening the socket if
// need be and closing it after a failure (its acknowledgements may be out
// of step).
func (s *ElementSender) sendBatches(batches []elemBatch) error {
	if len(batches) == 0 {
		return nil
	}
	if s.nl == nil {
		nl, err := dialElements()
		if err != nil {
			return err
		}
		s.nl = nl
	}
	if err := s.nl.send(s.family, s.table, batches); err != nil {
		s.Close()
		return err
	}
	return nil
}

// Close releases the socket, if open.
func (s *ElementSender) Close() {
	if s.nl != nil {
		s.nl.close()
		s.nl = nil
	}
}
