package servicecidr

import (
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateUpdate(t *testing.T) {
	sc := func(cidrs ...string) *networkingv1.ServiceCIDR {
		return &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	}
	for _, tc := range []struct {
		name     string
		old, now *networkingv1.ServiceCIDR
		want     string
	}{
		{"unchanged", sc("10.0.0.0/16"), sc("10.0.0.0/16"), ""},
		{"second family added", sc("10.0.0.0/16"), sc("10.0.0.0/16", "fd00::/108"), ""},
		{"same family added", sc("10.0.0.0/16"), sc("10.0.0.0/16", "10.1.0.0/16"), "may specify no more than one IP for each IP family"},
		{"changed", sc("10.0.0.0/16"), sc("10.1.0.0/16"), `spec.cidrs[0]: Invalid value: "10.1.0.0/16": field is immutable`},
		{"removed", sc("10.0.0.0/16", "fd00::/108"), sc("10.0.0.0/16"), `spec.cidrs: Invalid value: ["10.0.0.0/16"]: field is immutable`},
	} {
		errs := validateUpdate(tc.now, tc.old)
		got := ""
		if len(errs) > 0 {
			got = errs.ToAggregate().Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := validate(sc("10.0.0.0/16", "fd00::/108", "10.1.0.0/16")).ToAggregate().Error(); !strings.Contains(got, `{"CIDRs":[`) {
		t.Errorf("too many CIDRs rendered %q, want upstream's internal form", got)
	}
}
