package resource

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AsInternal returns v as a value of a look-alike type without JSON tags,
// so that an error's value renders as upstream's (whose internal types
// have none: {"Key":"k","Effect":"NoSchedule"}). Types with their own
// JSON form (quantities, times, int-or-strings) and meta/v1's types stay
// as they are.
func AsInternal(v interface{}) interface{} {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	return convertValue(rv, untagged(rv.Type())).Interface()
}

var (
	marshaler     = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	untaggedTypes sync.Map // reflect.Type -> reflect.Type
)

// metaPkg is meta/v1's package path: upstream's internal types use its
// types (LabelSelector, ObjectMeta, …) as they are, tags and all.
var metaPkg = reflect.TypeOf(metav1.LabelSelector{}).PkgPath()

func keepsOwnForm(t reflect.Type) bool {
	return t.PkgPath() == metaPkg || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// untagged builds the tagless look-alike of t.
func untagged(t reflect.Type) reflect.Type {
	if u, ok := untaggedTypes.Load(t); ok {
		return u.(reflect.Type)
	}
	var u reflect.Type
	switch {
	case keepsOwnForm(t):
		u = t
	case t.Kind() == reflect.Pointer:
		u = reflect.PointerTo(untagged(t.Elem()))
	case t.Kind() == reflect.Slice:
		u = reflect.SliceOf(untagged(t.Elem()))
	case t.Kind() == reflect.Map:
		u = reflect.MapOf(t.Key(), untagged(t.Elem()))
	case t.Kind() == reflect.Struct:
		fields := make([]reflect.StructField, 0, t.NumField())
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fields = append(fields, reflect.StructField{Name: f.Name, Type: untagged(f.Type), Anonymous: f.Anonymous})
		}
		u = reflect.StructOf(fields)
	default:
		u = t
	}
	untaggedTypes.Store(t, u)
	return u
}

// convertValue copies v into a value of type u (its untagged look-alike).
func convertValue(v reflect.Value, u reflect.Type) reflect.Value {
	if v.Type() == u {
		return v
	}
	out := reflect.New(u).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(u.Elem())
			p.Elem().Set(convertValue(v.Elem(), u.Elem()))
			out.Set(p)
		}
	case reflect.Slice:
		if !v.IsNil() {
			s := reflect.MakeSlice(u, v.Len(), v.Len())
			for i := 0; i < v.Len(); i++ {
				s.Index(i).Set(convertValue(v.Index(i), u.Elem()))
			}
			out.Set(s)
		}
	case reflect.Map:
		if !v.IsNil() {
			m := reflect.MakeMapWithSize(u, v.Len())
			for _, k := range v.MapKeys() {
				m.SetMapIndex(k, convertValue(v.MapIndex(k), u.Elem()))
			}
			out.Set(m)
		}
	case reflect.Struct:
		j := 0
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			out.Field(j).Set(convertValue(v.Field(i), u.Field(j).Type))
			j++
		}
	default:
		out.Set(v.Convert(u))
	}
	return out
}
