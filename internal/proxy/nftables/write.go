package nftables

import (
	"slices"

	"sigs.k8s.io/knftables"
)

// writeFull writes everything needed to make the table equal desired,
// whatever is in it now (ex): declare all, flush all chains and all but
// dynamic sets, re-add all rules and elements, delete what is not desired.
func writeFull(w writer, desired *ruleset, ex existing, comment string) {
	w.add(&knftables.Table{Comment: knftables.PtrTo(comment)})
	chains, sets := sortedKeys(desired.chains), sortedKeys(desired.sets)
	for _, name := range chains {
		w.add(desired.chains[name].obj)
	}
	for _, name := range sets {
		w.add(desired.sets[name].obj)
	}
	for _, name := range ex.chains {
		w.flush(&knftables.Chain{Name: name})
	}
	for _, name := range chains {
		if !slices.Contains(ex.chains, name) {
			w.flush(&knftables.Chain{Name: name})
		}
	}
	for _, name := range sets {
		if s := desired.sets[name]; !s.dynamic {
			w.flush(s.setObject())
		}
	}
	for _, name := range chains {
		for _, rule := range desired.chains[name].rules {
			w.add(&knftables.Rule{Chain: name, Rule: rule})
		}
	}
	for _, name := range sets {
		w.allElements(desired.sets[name])
	}
	for _, name := range ex.chains {
		if desired.chains[name] == nil {
			w.del(&knftables.Chain{Name: name})
		}
	}
	for _, name := range ex.sets {
		if desired.sets[name] == nil {
			w.del(&knftables.Set{Name: name})
		}
	}
	for _, name := range ex.maps {
		if desired.sets[name] == nil {
			w.del(&knftables.Map{Name: name})
		}
	}
}

// writeDelta writes only what the recorded delta changed in r: new sets
// and chains, changed chains (flush and re-add), element deletes and adds,
// then stale chains (flushed first, so chains may reference each other)
// and stale sets.
func writeDelta(w writer, r *ruleset, d *delta) {
	chains, sets := sortedKeys(d.chains), sortedKeys(d.sets)
	for _, name := range sets {
		if s := r.sets[name]; s != nil && !d.sets[name] {
			w.add(s.obj)
		}
	}
	for _, name := range chains {
		if ch := r.chains[name]; ch != nil && !d.chains[name].existed {
			w.add(ch.obj)
		}
	}
	for _, name := range chains {
		ch, before := r.chains[name], d.chains[name]
		if ch == nil || (before.existed && slices.Equal(before.rules, ch.rules)) {
			continue
		}
		if before.existed {
			w.flush(ch.obj)
		}
		for _, rule := range ch.rules {
			w.add(&knftables.Rule{Chain: name, Rule: rule})
		}
	}
	writeElementDelta(w, r, d)
	for _, name := range chains {
		if r.chains[name] == nil && d.chains[name].existed {
			w.flush(&knftables.Chain{Name: name})
		}
	}
	for _, name := range chains {
		if r.chains[name] == nil && d.chains[name].existed {
			w.del(&knftables.Chain{Name: name})
		}
	}
	for _, name := range sets {
		if r.sets[name] == nil && d.sets[name] {
			w.del(&knftables.Set{Name: name})
		}
	}
}

func writeElementDelta(w writer, r *ruleset, d *delta) {
	dels, adds := map[string][]elemDef{}, map[string][]elemDef{}
	for id, before := range d.elems {
		s := r.sets[id.set]
		if s == nil {
			continue // the set goes, and its elements with it
		}
		now, exists := s.elems[id.key]
		// An element of a set created in this sync cannot be there yet.
		setExisted, touched := d.sets[id.set]
		setExisted = setExisted || !touched
		if before.existed && setExisted && (!exists || now.value != before.value) {
			dels[id.set] = append(dels[id.set], elemDef{set: id.set, key: id.key, value: before.value})
		}
		if exists && (!before.existed || !setExisted || now.value != before.value) {
			adds[id.set] = append(adds[id.set], elemDef{set: id.set, key: id.key, value: now.value})
		}
	}
	for id, c := range d.port {
		if r.sets[id.set] == nil {
			continue
		}
		if c.hadBefore && (!c.hasAfter || c.before != c.after) {
			dels[id.set] = append(dels[id.set], elemDef{set: id.set, key: id.key, value: c.before})
		}
		if c.hasAfter && (!c.hadBefore || c.before != c.after) {
			adds[id.set] = append(adds[id.set], elemDef{set: id.set, key: id.key, value: c.after})
		}
	}
	for _, name := range sortedKeys(dels) {
		w.elements(deleteOp, r.sets[name], sortElems(dels[name]))
	}
	for _, name := range sortedKeys(adds) {
		w.elements(addOp, r.sets[name], sortElems(adds[name]))
	}
}

func sortElems(es []elemDef) []elemDef {
	slices.SortFunc(es, func(a, b elemDef) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	return es
}
