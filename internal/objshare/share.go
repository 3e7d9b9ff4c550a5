package objshare

import (
	"reflect"
	"sync"
)

var byteSliceType = reflect.TypeOf([]byte(nil))

// Share makes cur use prev's memory wherever the two hold equal values: a
// pointer, slice or map whose contents are equal is replaced by prev's; an
// unequal one is descended into, field by field and element by element
// (over the elements both slices have). Equal strings share prev's bytes.
// An unequal slice with spare capacity is given an array of its own length.
// cur and prev must be pointers to the same type, and cur must be held by
// no one else during the call (a freshly decoded object); cur's values are
// unchanged (only where its memory lies), prev is not written. Maps, and
// structs with unexported fields (resource.Quantity, metav1.Time), are
// compared whole (reflect.DeepEqual) and shared only through what holds
// them.
func Share(cur, prev any) {
	c, p := reflect.ValueOf(cur), reflect.ValueOf(prev)
	if c.Kind() != reflect.Pointer || c.Type() != p.Type() || c.IsNil() || p.IsNil() || c.Pointer() == p.Pointer() {
		return
	}
	share(c.Elem(), p.Elem())
}

// share makes cur use prev's memory where they are equal, in one walk,
// and reports whether they are equal as reflect.DeepEqual would.
func share(cur, prev reflect.Value) bool {
	switch cur.Kind() {
	case reflect.Pointer:
		if cur.IsNil() || prev.IsNil() {
			return cur.IsNil() && prev.IsNil()
		}
		if cur.Pointer() == prev.Pointer() {
			return true
		}
		if share(cur.Elem(), prev.Elem()) {
			cur.Set(prev)
			return true
		}
		return false
	case reflect.Struct:
		if hasUnexported(cur.Type()) {
			return reflect.DeepEqual(cur.Interface(), prev.Interface())
		}
		equal := true
		for i := range cur.NumField() {
			equal = share(cur.Field(i), prev.Field(i)) && equal
		}
		return equal
	case reflect.Array:
		equal := true
		for i := range cur.Len() {
			equal = share(cur.Index(i), prev.Index(i)) && equal
		}
		return equal
	case reflect.Slice:
		return shareSlice(cur, prev)
	case reflect.Map:
		if cur.IsNil() != prev.IsNil() || cur.Len() != prev.Len() {
			return false
		}
		if cur.Len() == 0 || cur.Pointer() == prev.Pointer() {
			return true
		}
		if reflect.DeepEqual(cur.Interface(), prev.Interface()) {
			cur.Set(prev)
			return true
		}
		return false
	case reflect.String:
		if cur.String() != prev.String() {
			return false
		}
		if cur.Len() > 0 {
			cur.Set(prev)
		}
		return true
	case reflect.Bool:
		return cur.Bool() == prev.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cur.Int() == prev.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cur.Uint() == prev.Uint()
	case reflect.Float32, reflect.Float64:
		return cur.Float() == prev.Float()
	default: // interfaces, complex numbers, functions, channels
		return reflect.DeepEqual(cur.Interface(), prev.Interface())
	}
}

// shareSlice shares an equal slice whole, and an unequal one element by
// element over the length both have. An unequal slice with spare capacity
// (decoding grows slices by append) gets an array of its own length.
func shareSlice(cur, prev reflect.Value) bool {
	n, m := cur.Len(), prev.Len()
	if cur.IsNil() != prev.IsNil() {
		return false
	}
	if n == 0 || m == 0 {
		return n == m
	}
	if cur.Pointer() == prev.Pointer() && n == m {
		return true
	}
	if cur.Type() == byteSliceType {
		if string(cur.Bytes()) != string(prev.Bytes()) {
			return false
		}
		cur.Set(prev.Slice3(0, n, n))
		return true
	}
	equal := n == m
	for i := range min(n, m) {
		equal = share(cur.Index(i), prev.Index(i)) && equal
	}
	if equal {
		// Capped, so that an append to cur can never write into prev.
		cur.Set(prev.Slice3(0, n, n))
		return true
	}
	if cur.Cap() > n {
		exact := reflect.MakeSlice(cur.Type(), n, n)
		reflect.Copy(exact, cur)
		cur.Set(exact)
	}
	return false
}

// unexported caches hasUnexported per type.
var unexported sync.Map // reflect.Type → bool

// hasUnexported reports whether struct type t has an unexported field,
// which share cannot read field by field.
func hasUnexported(t reflect.Type) bool {
	if v, ok := unexported.Load(t); ok {
		return v.(bool)
	}
	has := false
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			has = true
			break
		}
	}
	unexported.Store(t, has)
	return has
}
