package nftables

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"sigs.k8s.io/knftables"
)

type elemOp string

const (
	addOp    elemOp = "add"
	deleteOp elemOp = "delete"
)

// writer collects one transaction. Objects go through knftables; elements
// come in batches per set so a writer may send them compactly.
type writer interface {
	add(obj knftables.Object)
	flush(obj knftables.Object)
	del(obj knftables.Object)
	elements(op elemOp, set *setState, elems []elemDef)
	// allElements adds every element of the set.
	allElements(set *setState)
	// ops counts objects and elements written.
	ops() int
}

// txWriter writes into a knftables.Transaction, one operation per
// element: what any knftables.Interface (knftables.Fake included) runs.
type txWriter struct {
	tx *knftables.Transaction
	n  int
}

func (w *txWriter) add(obj knftables.Object)   { w.tx.Add(obj); w.n++ }
func (w *txWriter) flush(obj knftables.Object) { w.tx.Flush(obj); w.n++ }
func (w *txWriter) del(obj knftables.Object)   { w.tx.Delete(obj); w.n++ }
func (w *txWriter) ops() int                   { return w.n }

func (w *txWriter) elements(op elemOp, set *setState, elems []elemDef) {
	// Sorted, so a fake's dump (elements in insertion order) is stable.
	for _, e := range sortElems(slices.Clone(elems)) {
		el := &knftables.Element{Key: splitParts(e.key)}
		if set.isMap {
			el.Map = objName(set.obj)
		} else {
			el.Set = objName(set.obj)
		}
		if op == addOp {
			if e.value != "" {
				el.Value = splitParts(e.value)
			}
			w.tx.Add(el)
		} else {
			w.tx.Delete(el)
		}
		w.n++
	}
}

func (w *txWriter) allElements(set *setState) { w.elements(addOp, set, setElements(set)) }

// setElements lists a set's elements.
func setElements(set *setState) []elemDef {
	out := make([]elemDef, 0, len(set.elems))
	for k, e := range set.elems {
		out = append(out, elemDef{set: objName(set.obj), key: k, value: e.value})
	}
	return out
}

func splitParts(s string) []string { return strings.Split(s, " . ") }

// elementsPerStatement bounds one "add element … { … }" statement.
const elementsPerStatement = 4096

// scriptWriter renders an nft script: objects as knftables writes them,
// elements as one "add element <set> { a, b, … }" statement per set (and
// per elementsPerStatement), which nft parses and commits several times
// faster than one statement per element.
type scriptWriter struct {
	nft   knftables.Interface
	table string // "<family> <name>"
	tx    *knftables.Transaction
	buf   bytes.Buffer
	n     int
	err   error
}

func newScriptWriter(nft knftables.Interface, family knftables.Family) *scriptWriter {
	return &scriptWriter{nft: nft, table: string(family) + " " + TableName, tx: nft.NewTransaction()}
}

func (w *scriptWriter) add(obj knftables.Object)   { w.tx.Add(obj); w.n++ }
func (w *scriptWriter) flush(obj knftables.Object) { w.tx.Flush(obj); w.n++ }
func (w *scriptWriter) del(obj knftables.Object)   { w.tx.Delete(obj); w.n++ }
func (w *scriptWriter) ops() int                   { return w.n }

// flushTx moves the pending object operations into the script in order.
func (w *scriptWriter) flushTx() {
	if w.tx.NumOperations() == 0 {
		return
	}
	s := w.tx.String()
	if i := strings.Index(s, "# ERROR: "); i >= 0 && w.err == nil {
		w.err = fmt.Errorf("invalid nftables operation: %s", s[i+len("# ERROR: "):])
	}
	w.buf.WriteString(s)
	w.tx = w.nft.NewTransaction()
}

func (w *scriptWriter) elements(op elemOp, set *setState, elems []elemDef) {
	if len(elems) == 0 {
		return
	}
	w.flushTx()
	w.buf.Grow(len(elems) * (len(elems[0].key) + len(elems[0].value) + 5))
	for start := 0; start < len(elems); start += elementsPerStatement {
		end := min(start+elementsPerStatement, len(elems))
		fmt.Fprintf(&w.buf, "%s element %s %s { ", op, w.table, objName(set.obj))
		for i, e := range elems[start:end] {
			if i > 0 {
				w.buf.WriteString(", ")
			}
			w.buf.WriteString(e.key)
			if op == addOp && e.value != "" {
				w.buf.WriteString(" : ")
				w.buf.WriteString(e.value)
			}
		}
		w.buf.WriteString(" }\n")
	}
	w.n += len(elems)
}

// allElements writes the set's elements straight from the table, without
// an intermediate list (a full sync's largest transient allocation).
func (w *scriptWriter) allElements(set *setState) {
	if len(set.elems) == 0 {
		return
	}
	w.flushTx()
	i := 0
	for k, e := range set.elems {
		if i%elementsPerStatement == 0 {
			if i > 0 {
				w.buf.WriteString(" }\n")
			}
			fmt.Fprintf(&w.buf, "add element %s %s { ", w.table, objName(set.obj))
		} else {
			w.buf.WriteString(", ")
		}
		w.buf.WriteString(k)
		if e.value != "" {
			w.buf.WriteString(" : ")
			w.buf.WriteString(e.value)
		}
		i++
	}
	w.buf.WriteString(" }\n")
	w.n += len(set.elems)
}

// script returns the whole transaction as nft input.
func (w *scriptWriter) script() ([]byte, error) {
	w.flushTx()
	return w.buf.Bytes(), w.err
}

// elementWriter renders a partial sync as a script and, while the sync
// touches only elements of sets it can encode (no chain, rule or set
// changes), also as netlink element batches: the common endpoint change
// then costs one netlink round trip instead of an nft process that
// lists the table's chains and sets before applying its script.
type elementWriter struct {
	*scriptWriter
	batches []elemBatch
	// why the batches cannot be used ("" when they can).
	scriptOnly string
}

func newElementWriter(nft knftables.Interface, family knftables.Family) *elementWriter {
	return &elementWriter{scriptWriter: newScriptWriter(nft, family)}
}

func (w *elementWriter) add(obj knftables.Object) {
	w.scriptOnly = "objects"
	w.scriptWriter.add(obj)
}

func (w *elementWriter) flush(obj knftables.Object) {
	w.scriptOnly = "objects"
	w.scriptWriter.flush(obj)
}

func (w *elementWriter) del(obj knftables.Object) {
	w.scriptOnly = "objects"
	w.scriptWriter.del(obj)
}

func (w *elementWriter) allElements(set *setState) {
	w.scriptOnly = "objects"
	w.scriptWriter.allElements(set)
}

func (w *elementWriter) elements(op elemOp, set *setState, elems []elemDef) {
	w.scriptWriter.elements(op, set, elems)
	if w.scriptOnly != "" || len(elems) == 0 {
		return
	}
	b, err := newBatch(op, set, elems)
	if err == nil {
		err = b.check()
	}
	if err != nil {
		w.scriptOnly = err.Error()
		return
	}
	w.batches = append(w.batches, b)
}

// useNetlink: the transaction is element changes only, all encoded.
func (w *elementWriter) useNetlink() bool { return w.scriptOnly == "" && len(w.batches) > 0 }

// fillWriter writes a full sync into a table that does not exist yet as
// two transactions: first the objects (and the elements of sets without
// a codec) as an nft script, then every other element over netlink, which
// the kernel takes several times faster than nft parses them. Until the
// second commits, the new table's dispatch and filter maps are empty and
// match no packet, as if the table did not exist, so no packet sees a
// half-written state. Over an existing table a full sync stays one
// transaction.
type fillWriter struct {
	*scriptWriter
	batches []elemBatch
	err     error // an element could not be encoded
}

func newFillWriter(nft knftables.Interface, family knftables.Family) *fillWriter {
	return &fillWriter{scriptWriter: newScriptWriter(nft, family)}
}

func (w *fillWriter) elements(op elemOp, set *setState, elems []elemDef) {
	if _, ok := codecFor(set.obj); !ok {
		w.scriptWriter.elements(op, set, elems)
		return
	}
	b, err := newBatch(op, set, elems)
	if err == nil {
		err = b.check()
	}
	if err != nil {
		w.err = err
		return
	}
	w.batches = append(w.batches, b)
	w.n += len(elems)
}

// allElements lists the set's elements for the netlink transaction; they
// are encoded as they are sent (an element that cannot be encoded fails
// that transaction, and the next sync is a full one through nft).
func (w *fillWriter) allElements(set *setState) {
	if _, ok := codecFor(set.obj); !ok {
		w.scriptWriter.allElements(set)
		return
	}
	if len(set.elems) == 0 {
		return
	}
	b, err := newBatch(addOp, set, setElements(set))
	if err != nil {
		w.err = err
		return
	}
	w.batches = append(w.batches, b)
	w.n += len(set.elems)
}

// ScriptRunner is implemented by the real nftables interface NewInterface
// returns: it runs a whole nft script as one atomic transaction. The
// Proxier uses it, when present, to send elements in compact batches.
type ScriptRunner interface {
	Family() knftables.Family
	RunScript(ctx context.Context, script []byte) error
}

// elementSender is a ScriptRunner that can also send element-only
// transactions over netlink (the real CLI).
type elementSender interface {
	ScriptRunner
	SendElements(batches []elemBatch) error
}

// CLI is the real nftables.Interface of one family's table: knftables for
// objects and listing, RunScript for compact transactions, and
// SendElements for element-only ones over netlink.
type CLI struct {
	knftables.Interface
	family knftables.Family
	path   string
	// scripts and netlinkTxs count the transactions sent each way.
	scripts, netlinkTxs int
	// elems sends element transactions over netlink (made at the first).
	elems *ElementSender
}

// SendElements runs element batches as one transaction over netlink.
func (c *CLI) SendElements(batches []elemBatch) error {
	c.netlinkTxs++
	if c.elems == nil {
		c.elems = NewElementSender(c.family, TableName)
	}
	return c.elems.sendBatches(batches)
}

// Family is the table's family.
func (c *CLI) Family() knftables.Family { return c.family }

// RunScript runs "nft -f -" with script as input (one atomic transaction).
func (c *CLI) RunScript(ctx context.Context, script []byte) error {
	c.scripts++
	cmd := exec.CommandContext(ctx, c.path, "-f", "-")
	cmd.Stdin = bytes.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("nft -f -: %w: %s", err, firstLines(stderr.String(), 10))
	}
	return nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
