package nftables

import (
	"slices"
	"strings"

	"sigs.k8s.io/knftables"
)

// ruleset is a planned table: chains with their rules, sets and maps with
// their elements. It is a value the planner builds and the Proxier diffs;
// building it does no I/O.
type ruleset struct {
	chains map[string]*chainSpec
	sets   map[string]*setSpec
}

type chainSpec struct {
	obj   *knftables.Chain
	rules []string
}

type setSpec struct {
	obj knftables.Object // *knftables.Set or *knftables.Map
	// dynamic sets are filled by the data path (affinity): never flushed.
	dynamic bool
	isMap   bool
	elems   map[string]element
}

type element struct {
	key, value []string
}

func newRuleset() *ruleset {
	return &ruleset{chains: map[string]*chainSpec{}, sets: map[string]*setSpec{}}
}

// chain declares a chain (idempotent) and returns it.
func (r *ruleset) chain(name string) *chainSpec {
	c := r.chains[name]
	if c == nil {
		c = &chainSpec{obj: &knftables.Chain{Name: name}}
		r.chains[name] = c
	}
	return c
}

func (c *chainSpec) add(rule ...string) { c.rules = append(c.rules, strings.Join(rule, " ")) }

func (r *ruleset) addSet(s *knftables.Set, dynamic bool) {
	r.sets[s.Name] = &setSpec{obj: s, dynamic: dynamic, elems: map[string]element{}}
}

func (r *ruleset) addMap(m *knftables.Map) {
	r.sets[m.Name] = &setSpec{obj: m, isMap: true, elems: map[string]element{}}
}

// elem adds an element to a declared set or map.
func (r *ruleset) elem(set string, key []string, value ...string) {
	r.sets[set].elems[strings.Join(key, " . ")] = element{key: key, value: value}
}

func (s *setSpec) knftElement(e element) *knftables.Element {
	el := &knftables.Element{Key: e.key, Value: e.value}
	if s.isMap {
		el.Map = s.obj.(*knftables.Map).Name
	} else {
		el.Set = s.obj.(*knftables.Set).Name
	}
	return el
}

// setObject returns a name-only object for flush/delete.
func (s *setSpec) setObject() knftables.Object {
	if s.isMap {
		return &knftables.Map{Name: s.obj.(*knftables.Map).Name}
	}
	return &knftables.Set{Name: s.obj.(*knftables.Set).Name}
}

// existing names the objects believed to be in the table.
type existing struct {
	chains, sets, maps []string
}

// writeFull adds to tx everything needed to make the table equal desired,
// whatever is in it now (ex): declare all, flush all but dynamic sets,
// re-add all rules and elements, delete what is not desired.
func writeFull(tx *knftables.Transaction, desired *ruleset, ex existing, comment string) {
	tx.Add(&knftables.Table{Comment: knftables.PtrTo(comment)})
	for _, name := range sortedKeys(desired.chains) {
		tx.Add(desired.chains[name].obj)
	}
	for _, name := range sortedKeys(desired.sets) {
		tx.Add(desired.sets[name].obj)
	}
	for _, name := range ex.chains {
		tx.Flush(&knftables.Chain{Name: name})
	}
	for _, name := range sortedKeys(desired.chains) {
		if !slices.Contains(ex.chains, name) {
			tx.Flush(&knftables.Chain{Name: name})
		}
	}
	for _, name := range sortedKeys(desired.sets) {
		if s := desired.sets[name]; !s.dynamic {
			tx.Flush(s.setObject())
		}
	}
	for _, name := range sortedKeys(desired.chains) {
		c := desired.chains[name]
		for _, rule := range c.rules {
			tx.Add(&knftables.Rule{Chain: name, Rule: rule})
		}
	}
	for _, name := range sortedKeys(desired.sets) {
		s := desired.sets[name]
		for _, k := range sortedKeys(s.elems) {
			tx.Add(s.knftElement(s.elems[k]))
		}
	}
	for _, name := range ex.chains {
		if desired.chains[name] == nil {
			tx.Delete(&knftables.Chain{Name: name})
		}
	}
	for _, name := range ex.sets {
		if desired.sets[name] == nil {
			tx.Delete(&knftables.Set{Name: name})
		}
	}
	for _, name := range ex.maps {
		if desired.sets[name] == nil {
			tx.Delete(&knftables.Map{Name: name})
		}
	}
}

// writeDiff adds to tx only what turns prev into desired. It returns the
// number of changed objects and elements.
func writeDiff(tx *knftables.Transaction, prev, desired *ruleset) int {
	n := 0
	for _, name := range sortedKeys(desired.sets) {
		if prev.sets[name] == nil {
			tx.Add(desired.sets[name].obj)
			n++
		}
	}
	for _, name := range sortedKeys(desired.chains) {
		if prev.chains[name] == nil {
			tx.Add(desired.chains[name].obj)
			n++
		}
	}
	for _, name := range sortedKeys(desired.chains) {
		c, old := desired.chains[name], prev.chains[name]
		if old != nil && slices.Equal(old.rules, c.rules) {
			continue
		}
		if old != nil {
			tx.Flush(c.obj)
		}
		for _, rule := range c.rules {
			tx.Add(&knftables.Rule{Chain: name, Rule: rule})
		}
		n++
	}
	n += writeElementDiff(tx, prev, desired)
	for _, name := range sortedKeys(prev.chains) {
		if desired.chains[name] == nil {
			tx.Flush(&knftables.Chain{Name: name})
		}
	}
	for _, name := range sortedKeys(prev.chains) {
		if desired.chains[name] == nil {
			tx.Delete(&knftables.Chain{Name: name})
			n++
		}
	}
	for _, name := range sortedKeys(prev.sets) {
		if desired.sets[name] == nil {
			tx.Delete(prev.sets[name].setObject())
			n++
		}
	}
	return n
}

func writeElementDiff(tx *knftables.Transaction, prev, desired *ruleset) int {
	n := 0
	for _, name := range sortedKeys(desired.sets) {
		s, old := desired.sets[name], prev.sets[name]
		if s.dynamic || old == nil {
			for _, k := range sortedKeys(s.elems) {
				tx.Add(s.knftElement(s.elems[k]))
				n++
			}
			continue
		}
		for _, k := range sortedKeys(old.elems) {
			if e, ok := s.elems[k]; !ok || !slices.Equal(e.value, old.elems[k].value) {
				tx.Delete(s.knftElement(old.elems[k]))
				n++
			}
		}
		for _, k := range sortedKeys(s.elems) {
			if e, ok := old.elems[k]; !ok || !slices.Equal(e.value, s.elems[k].value) {
				tx.Add(s.knftElement(s.elems[k]))
				n++
			}
		}
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
