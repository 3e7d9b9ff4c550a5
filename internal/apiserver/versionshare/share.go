package versionshare

import (
	"reflect"
)

var byteSliceType = reflect.TypeOf([]byte(nil))

// Share makes cur use prev's memory wherever the two hold equal values: a
// pointer, slice or map whose contents are equal is replaced by prev's; an
// unequal one is descended into, field by field and (at equal lengths)
// element by element. Equal strings share prev's bytes. cur and prev must
// be pointers to the same type; cur's values are unchanged (only where its
// memory lies), prev is not written. Maps are shared whole or not at all,
// and only exported fields are visited (a struct with unexported fields,
// such as resource.Quantity, is shared through the map, slice or pointer
// that holds it).
func Share(cur, prev any) {
	c, p := reflect.ValueOf(cur), reflect.ValueOf(prev)
	if c.Kind() != reflect.Pointer || c.Type() != p.Type() || c.IsNil() || p.IsNil() || c.Pointer() == p.Pointer() {
		return
	}
	share(c.Elem(), p.Elem())
}

func share(cur, prev reflect.Value) {
	switch cur.Kind() {
	case reflect.Pointer:
		if cur.IsNil() || prev.IsNil() || cur.Pointer() == prev.Pointer() {
			return
		}
		if reflect.DeepEqual(cur.Interface(), prev.Interface()) {
			cur.Set(prev)
			return
		}
		share(cur.Elem(), prev.Elem())
	case reflect.Struct:
		t := cur.Type()
		for i := range cur.NumField() {
			if t.Field(i).IsExported() {
				share(cur.Field(i), prev.Field(i))
			}
		}
	case reflect.Slice:
		shareSlice(cur, prev)
	case reflect.Map:
		if cur.Len() > 0 && cur.Len() == prev.Len() && cur.Pointer() != prev.Pointer() &&
			reflect.DeepEqual(cur.Interface(), prev.Interface()) {
			cur.Set(prev)
		}
	case reflect.String:
		if cur.Len() > 0 && cur.String() == prev.String() {
			cur.Set(prev)
		}
	}
}

// shareSlice shares an equal slice whole, and an unequal one of the same
// length element by element.
func shareSlice(cur, prev reflect.Value) {
	n := cur.Len()
	if n == 0 || prev.Len() == 0 || (cur.Pointer() == prev.Pointer() && n == prev.Len()) {
		return
	}
	if cur.Type() == byteSliceType {
		if string(cur.Bytes()) == string(prev.Bytes()) {
			cur.Set(prev.Slice3(0, n, n))
		}
		return
	}
	if n != prev.Len() {
		return
	}
	if reflect.DeepEqual(cur.Interface(), prev.Interface()) {
		// Capped, so that an append to cur can never write into prev.
		cur.Set(prev.Slice3(0, n, n))
		return
	}
	for i := range n {
		share(cur.Index(i), prev.Index(i))
	}
}
