package drift

import (
	"reflect"
	"testing"

	networkingvalidation "k8s.io/kubernetes/pkg/apis/networking/validation"

	"github.com/svcplane/svcplane/internal/registry/networking/ipaddress"
)

// TestIPAddressNames: our IPAddress name validation answers as upstream's
// ValidateIPAddressName (upstream's conformance creates link-local and
// broadcast addresses).
func TestIPAddressNames(t *testing.T) {
	for _, name := range []string{
		"10.96.0.1", "255.255.255.255", "0.0.0.0", "127.0.0.1", "169.254.1.1", "224.0.0.1",
		"fe80::42:1dff:fe84:f9e2", "2001:db8::1", "2001:DB8::1", "2001:db8:0::1", "::1", "::",
		"::ffff:10.0.0.1", "010.0.0.1", "10.0.0.1/32", "", "x", "fe80::1%eth0",
	} {
		want := networkingvalidation.ValidateIPAddressName(name, false)
		got := ipaddress.ValidateName(name, false)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: ours %q, upstream %q", name, got, want)
		}
	}
}
