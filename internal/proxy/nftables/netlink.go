package nftables

import (
	"fmt"
	"time"

	gnft "github.com/google/nftables"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
	"sigs.k8s.io/knftables"
)

// elemBatch is one set's element additions or deletions, as the
// strings the planner wrote: they are encoded message by message as they
// are sent, so a full sync's elements are never all held encoded.
type elemBatch struct {
	op    elemOp
	set   string
	codec *elemCodec
	elems []elemDef
}

// newBatch returns the batch, or an error when the set has no codec.
func newBatch(op elemOp, set *setState, elems []elemDef) (elemBatch, error) {
	name := objName(set.obj)
	c, ok := codecFor(set.obj)
	if !ok {
		return elemBatch{}, fmt.Errorf("set %s: no netlink codec for its type", name)
	}
	return elemBatch{op: op, set: name, codec: c, elems: elems}, nil
}

// check encodes every element once, so that a partial sync whose
// elements cannot be encoded goes through nft instead.
func (b *elemBatch) check() error {
	for _, e := range b.elems {
		if _, err := b.codec.element(b.op, e.key, e.value); err != nil {
			return fmt.Errorf("set %s: %w", b.set, err)
		}
	}
	return nil
}

// element encodes one element. Deletions are by key: nft sends no value
// with them either.
func (c *elemCodec) element(op elemOp, key, value string) (gnft.SetElement, error) {
	k, err := encodeData(c.key, key)
	if err != nil {
		return gnft.SetElement{}, fmt.Errorf("key %q: %w", key, err)
	}
	el := gnft.SetElement{Key: k}
	if op == addOp && len(c.value) > 0 {
		if c.isVerdictMap() {
			if el.VerdictData, err = encodeVerdict(value); err != nil {
				return gnft.SetElement{}, fmt.Errorf("key %q: %w", key, err)
			}
		} else if el.Val, err = encodeData(c.value, value); err != nil {
			return gnft.SetElement{}, fmt.Errorf("key %q value %q: %w", key, value, err)
		}
	}
	return el, nil
}

// messageBytes bounds the encoded elements of one NEWSETELEM/DELSETELEM
// message: its element list is one netlink attribute, whose length is 16
// bits.
const messageBytes = 56 << 10

// encodedSize bounds an element's size inside a message: its key and
// value bytes and the attribute headers around them.
func (c *elemCodec) encodedSize(e elemDef, op elemOp) int {
	n := c.keyLen + 32
	if op == addOp {
		n += c.valueLen
		if c.isVerdictMap() {
			n += len(e.value) + 24
		}
	}
	return n
}

// replyTimeout bounds the wait for the kernel's answers to a batch.
const replyTimeout = 30 * time.Second

// elementConn is a lasting netlink socket for element transactions.
// Lasting matters: releasing a NETLINK_NETFILTER socket makes nf_tables
// wait for its pending transaction cleanup, which frees the replaced
// elements after an RCU grace period (10-20 ms on a busy machine; most
// of what one `nft -f` of a single element costs, in its close()).
type elementConn struct {
	conn *gnft.Conn
	sock *netlink.Conn // the socket under conn, for its options
	// sndbuf and rcvbuf: the sizes forced so far (0: the defaults).
	sndbuf, rcvbuf int
}

func dialElements() (*elementConn, error) {
	e := &elementConn{}
	conn, err := gnft.New(gnft.AsLasting(), gnft.WithSockOptions(func(c *netlink.Conn) error {
		e.sock = c
		return nil
	}))
	if err != nil {
		return nil, err
	}
	e.conn = conn
	return e, nil
}

func (e *elementConn) close() { _ = e.conn.CloseLasting() }

// send runs batches as one nftables transaction: the same NEWSETELEM and
// DELSETELEM messages `nft -f` would send for them, without starting nft
// or letting it list the table first. Like any transaction it fails
// whole, e.g. when an element to delete is not there (another writer
// changed the table): the Proxier then falls back to a full sync.
func (e *elementConn) send(family knftables.Family, tableName string, batches []elemBatch) error {
	// Split each batch into messages of at most messageBytes.
	type message struct {
		b        *elemBatch
		from, to int
	}
	var msgs []message
	size := 0
	for bi := range batches {
		b := &batches[bi]
		start, used := 0, 0
		for i, e := range b.elems {
			n := b.codec.encodedSize(e, b.op)
			if used+n > messageBytes && i > start {
				msgs = append(msgs, message{b, start, i})
				start, used = i, 0
			}
			used += n
			size += n
		}
		if start < len(b.elems) {
			msgs = append(msgs, message{b, start, len(b.elems)})
		}
	}
	size += 64 * len(msgs)
	// The whole transaction is one sendmsg: like nft, make the send
	// buffer as large as the batch, and the receive buffer large enough
	// for one acknowledgement per message (the *FORCE options pass
	// wmem_max and rmem_max).
	if want := 2 * size; want > 128<<10 && want > e.sndbuf {
		if err := forceBuffer(e.sock, unix.SO_SNDBUFFORCE, want); err != nil {
			return err
		}
		e.sndbuf = want
	}
	if want := 2048 * len(msgs); want > 128<<10 && want > e.rcvbuf {
		if err := forceBuffer(e.sock, unix.SO_RCVBUFFORCE, want); err != nil {
			return err
		}
		e.rcvbuf = want
	}
	if err := e.sock.SetReadDeadline(time.Now().Add(replyTimeout)); err != nil {
		return err
	}
	table := &gnft.Table{Name: tableName, Family: gnft.TableFamilyIPv4}
	if family == knftables.IPv6Family {
		table.Family = gnft.TableFamilyIPv6
	}
	// One message's elements at a time: the library marshals them into
	// the message at once, so the slice is reused.
	var buf []gnft.SetElement
	for _, m := range msgs {
		buf = buf[:0]
		for _, d := range m.b.elems[m.from:m.to] {
			el, err := m.b.codec.element(m.b.op, d.key, d.value)
			if err != nil {
				return fmt.Errorf("set %s: %w", m.b.set, err)
			}
			buf = append(buf, el)
		}
		set := &gnft.Set{Table: table, Name: m.b.set}
		var err error
		if m.b.op == addOp {
			err = e.conn.SetAddElements(set, buf)
		} else {
			err = e.conn.SetDeleteElements(set, buf)
		}
		if err != nil {
			return err
		}
	}
	if err := e.conn.Flush(); err != nil {
		return fmt.Errorf("netlink set-element transaction: %w", err)
	}
	return nil
}

// forceBuffer sets a netlink socket's buffer size option.
func forceBuffer(c *netlink.Conn, opt, bytes int) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, opt, bytes)
	}); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("setsockopt %d (%d bytes): %w", opt, bytes, serr)
	}
	return nil
}
