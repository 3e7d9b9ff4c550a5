package dns

import (
	"reflect"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A copy is reflect.DeepEqual to the slice, with no memory in common.
func TestSliceDeepCopyObject(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "web-abcde", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}
	for name, es := range map[string]*discoveryv1.EndpointSlice{
		"no endpoints": {ObjectMeta: meta, AddressType: discoveryv1.AddressTypeIPv4},
		"two":          {ObjectMeta: meta, AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}, {Addresses: []string{"10.0.0.2"}}}},
		"fqdn":         {ObjectMeta: meta, AddressType: discoveryv1.AddressTypeFQDN},
	} {
		t.Run(name, func(t *testing.T) {
			s := compactSlice(es)
			c := s.DeepCopyObject().(*slice)
			if !reflect.DeepEqual(c, s) {
				t.Errorf("copy %+v differs from %+v", c, s)
			}
			if len(s.rows) > 0 && &c.rows[0] == &s.rows[0] {
				t.Error("the copy shares its rows")
			}
		})
	}
}
