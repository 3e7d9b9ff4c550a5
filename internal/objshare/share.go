package objshare

import (
	"reflect"
)

var byteSliceType = reflect.TypeOf([]byte(nil))

// Share makes cur use prev's memory wherever the two hold equal values: a
// pointer, slice or map whose contents are equal is replaced by prev's; an
// unequal one is descended into, field by field and element by element
// (over the elements both slices have). Equal strings share prev's bytes.
// An unequal slice with spare capacity is given an array of its own length.
// cur and prev must be pointers to the same type, and cur must be held by
// no one else during the call (a freshly decoded object); cur's values are
// unchanged (only where its memory lies), prev is not written. Maps are shared whole or not at all,
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

// shareSlice shares an equal slice whole, and an unequal one element by
// element over the length both have. An unequal slice with spare capacity
// (decoding grows slices by append) first gets an array of its own length.
func shareSlice(cur, prev reflect.Value) {
	n := cur.Len()
	if n == 0 || prev.Len() == 0 || cur.Pointer() == prev.Pointer() {
		return
	}
	if cur.Type() == byteSliceType {
		if string(cur.Bytes()) == string(prev.Bytes()) {
			cur.Set(prev.Slice3(0, n, n))
		}
		return
	}
	if n == prev.Len() && reflect.DeepEqual(cur.Interface(), prev.Interface()) {
		// Capped, so that an append to cur can never write into prev.
		cur.Set(prev.Slice3(0, n, n))
		return
	}
	if cur.Cap() > n {
		exact := reflect.MakeSlice(cur.Type(), n, n)
		reflect.Copy(exact, cur)
		cur.Set(exact)
	}
	for i := range min(n, prev.Len()) {
		share(cur.Index(i), prev.Index(i))
	}
}
