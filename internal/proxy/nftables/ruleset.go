package nftables

import (
	"slices"
	"strings"

	"sigs.k8s.io/knftables"
)

// A contribution is what one owner (the fixed base, or one service port)
// puts into the table: chains with their rules, sets and maps, and
// elements. The planner builds contributions without I/O; the same
// inputs always give the same contribution, so the Proxier can rebuild
// the one it installed for a port from the snapshot it installed.
type contribution struct {
	chains []*chainDef
	sets   []setDef
	elems  []elemDef
}

type chainDef struct {
	obj   *knftables.Chain
	rules []string
}

type setDef struct {
	obj knftables.Object // *knftables.Set or *knftables.Map
	// dynamic sets are filled by the data path (affinity): never flushed.
	dynamic bool
	// perPort: every element belongs to exactly one service port (its key
	// names the port's destination), so the table need not remember them:
	// a partial sync learns the old ones from the port's old contribution.
	perPort bool
}

// elemDef is one element; key and value are their parts joined by " . ",
// exactly as nft writes them.
type elemDef struct {
	set, key, value string
}

func joinParts(parts ...string) string { return strings.Join(parts, " . ") }

// chain declares a chain in the contribution and returns it for rules.
func (c *contribution) chain(name string) *chainDef {
	d := &chainDef{obj: &knftables.Chain{Name: name}}
	c.chains = append(c.chains, d)
	return d
}

func (d *chainDef) add(rule ...string) { d.rules = append(d.rules, strings.Join(rule, " ")) }

func (c *contribution) addSet(s *knftables.Set, dynamic bool) {
	c.sets = append(c.sets, setDef{obj: s, dynamic: dynamic})
}

func (c *contribution) addMap(m *knftables.Map) { c.sets = append(c.sets, setDef{obj: m}) }

// addPortMap declares a map whose elements each belong to one port.
func (c *contribution) addPortMap(m *knftables.Map) {
	c.sets = append(c.sets, setDef{obj: m, perPort: true})
}

// addPortSet declares a set whose elements each belong to one port.
func (c *contribution) addPortSet(st *knftables.Set) {
	c.sets = append(c.sets, setDef{obj: st, perPort: true})
}

// elem adds an element (value empty for sets).
func (c *contribution) elem(set, key, value string) {
	c.elems = append(c.elems, elemDef{set: set, key: key, value: value})
}

// ruleset is the table as the sum of contributions. Objects and elements
// are reference-counted: a dispatch chain or a hairpin address shared by
// many service ports stays until the last of them goes. When delta is
// set, the state of every object before its first change is recorded so
// an incremental sync sends only what changed.
type ruleset struct {
	chains map[string]*chainState
	sets   map[string]*setState
	delta  *delta
}

type chainState struct {
	obj   *knftables.Chain
	rules []string
	refs  int32
}

type setState struct {
	obj     knftables.Object
	dynamic bool
	isMap   bool
	// perPort: elems is filled only while a full sync plans and writes;
	// afterwards (forget) and in partial syncs their changes go to the
	// delta alone.
	perPort bool
	refs    int32
	elems   map[string]elemState
}

type elemState struct {
	value string
	refs  int32
}

func newRuleset() *ruleset {
	return &ruleset{chains: map[string]*chainState{}, sets: map[string]*setState{}}
}

func objName(o knftables.Object) string {
	if m, ok := o.(*knftables.Map); ok {
		return m.Name
	}
	return o.(*knftables.Set).Name
}

// add applies a contribution.
func (r *ruleset) add(c *contribution) {
	for _, sd := range c.sets {
		name := objName(sd.obj)
		r.delta.touchSet(r, name)
		if s := r.sets[name]; s != nil {
			s.refs++
			continue
		}
		_, isMap := sd.obj.(*knftables.Map)
		r.sets[name] = &setState{obj: sd.obj, dynamic: sd.dynamic, isMap: isMap, perPort: sd.perPort, refs: 1,
			elems: map[string]elemState{}}
	}
	for _, cd := range c.chains {
		r.delta.touchChain(r, cd.obj.Name)
		if ch := r.chains[cd.obj.Name]; ch != nil {
			ch.refs++
			ch.rules = cd.rules
			continue
		}
		r.chains[cd.obj.Name] = &chainState{obj: cd.obj, rules: cd.rules, refs: 1}
	}
	for _, e := range c.elems {
		s := r.sets[e.set]
		if s.perPort && r.delta != nil {
			r.delta.portElem(e, true)
			continue
		}
		r.delta.touchElem(s, e.set, e.key)
		es := s.elems[e.key]
		s.elems[e.key] = elemState{value: e.value, refs: es.refs + 1}
	}
}

// remove takes back a contribution added before.
func (r *ruleset) remove(c *contribution) {
	for _, e := range c.elems {
		s := r.sets[e.set]
		if s == nil {
			continue
		}
		if s.perPort && r.delta != nil {
			r.delta.portElem(e, false)
			continue
		}
		r.delta.touchElem(s, e.set, e.key)
		if es, ok := s.elems[e.key]; ok && es.refs > 1 {
			s.elems[e.key] = elemState{value: es.value, refs: es.refs - 1}
		} else {
			delete(s.elems, e.key)
		}
	}
	for _, cd := range c.chains {
		r.delta.touchChain(r, cd.obj.Name)
		if ch := r.chains[cd.obj.Name]; ch != nil {
			if ch.refs--; ch.refs <= 0 {
				delete(r.chains, cd.obj.Name)
			}
		}
	}
	for _, sd := range c.sets {
		name := objName(sd.obj)
		r.delta.touchSet(r, name)
		if s := r.sets[name]; s != nil {
			if s.refs--; s.refs <= 0 {
				delete(r.sets, name)
			}
		}
	}
}

// forget drops the elements of per-port sets once a full sync has
// written them: only partial syncs' deltas carry them from then on.
func (r *ruleset) forget() {
	for _, s := range r.sets {
		if s.perPort {
			s.elems = nil
		}
	}
}

// delta is the pre-change state of every object a sync touched, and the
// before/after of every per-port element it touched.
type delta struct {
	chains map[string]chainBefore
	sets   map[string]bool // existed
	elems  map[elemID]elemBefore
	port   map[elemID]*portElemChange
}

// portElemChange: a per-port element's value before the sync (taken back
// with the old contribution) and after it (added with the new one).
type portElemChange struct {
	before, after       string
	hadBefore, hasAfter bool
}

func (d *delta) portElem(e elemDef, added bool) {
	id := elemID{e.set, e.key}
	c := d.port[id]
	if c == nil {
		c = &portElemChange{}
		d.port[id] = c
	}
	// Removals always take back installed contributions and additions put
	// in new ones, in any order across ports (an element may move from
	// one port to another in one sync).
	if added {
		c.after, c.hasAfter = e.value, true
	} else if !c.hadBefore {
		c.before, c.hadBefore = e.value, true
	}
}

type chainBefore struct {
	existed bool
	rules   []string
}

type elemID struct{ set, key string }

type elemBefore struct {
	existed bool
	value   string
}

func newDelta() *delta {
	return &delta{chains: map[string]chainBefore{}, sets: map[string]bool{}, elems: map[elemID]elemBefore{},
		port: map[elemID]*portElemChange{}}
}

func (d *delta) touchChain(r *ruleset, name string) {
	if d == nil {
		return
	}
	if _, seen := d.chains[name]; !seen {
		b := chainBefore{}
		if ch := r.chains[name]; ch != nil {
			b = chainBefore{existed: true, rules: ch.rules}
		}
		d.chains[name] = b
	}
}

func (d *delta) touchSet(r *ruleset, name string) {
	if d == nil {
		return
	}
	if _, seen := d.sets[name]; !seen {
		d.sets[name] = r.sets[name] != nil
	}
}

func (d *delta) touchElem(s *setState, set, key string) {
	if d == nil {
		return
	}
	id := elemID{set, key}
	if _, seen := d.elems[id]; !seen {
		es, ok := s.elems[key]
		d.elems[id] = elemBefore{existed: ok, value: es.value}
	}
}

// existing names the objects believed to be in the table.
type existing struct {
	chains, sets, maps []string
}

// names returns the objects of the ruleset as an existing list.
func (r *ruleset) names() existing {
	ex := existing{chains: sortedKeys(r.chains)}
	for _, name := range sortedKeys(r.sets) {
		if r.sets[name].isMap {
			ex.maps = append(ex.maps, name)
		} else {
			ex.sets = append(ex.sets, name)
		}
	}
	return ex
}

// setObject returns a name-only object for flush/delete.
func (s *setState) setObject() knftables.Object {
	if s.isMap {
		return &knftables.Map{Name: objName(s.obj)}
	}
	return &knftables.Set{Name: objName(s.obj)}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
