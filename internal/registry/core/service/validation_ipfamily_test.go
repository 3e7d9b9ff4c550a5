package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func ips(clusterIP string, all ...string) func(*corev1.Service) {
	return func(s *corev1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = clusterIP, all }
}

func families(policy corev1.IPFamilyPolicy, fams ...corev1.IPFamily) func(*corev1.Service) {
	return func(s *corev1.Service) {
		s.Spec.IPFamilies = fams
		s.Spec.IPFamilyPolicy = nil
		if policy != "" {
			s.Spec.IPFamilyPolicy = &policy
		}
	}
}

const (
	v4 = corev1.IPv4Protocol
	v6 = corev1.IPv6Protocol
)

func TestValidateClusterIPs(t *testing.T) {
	c := func(muts ...func(*corev1.Service)) *corev1.Service {
		return newSvc(corev1.ServiceTypeClusterIP, muts...)
	}
	runValidateCases(t, []validateCase{
		{"clusterIPs missing", c(ips("10.0.0.1")), []string{"spec.clusterIPs: Required value"}},
		{"clusterIPs[0] differs", c(ips("10.0.0.1", "10.0.0.2")),
			[]string{`spec.clusterIPs: Invalid value: ["10.0.0.2"]: first value must match ` + "`clusterIP`"}},
		{"clusterIPs without clusterIP", c(ips("", "10.0.0.2")),
			[]string{`spec.clusterIPs: Invalid value: ["10.0.0.2"]: must be empty when ` + "`clusterIP`" + ` is not specified`}},
		{"bad IP", c(ips("10.0.0.300", "10.0.0.300")),
			[]string{`spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"None not alone", c(ips("None", "None", "fd00::1"), families(corev1.IPFamilyPolicyRequireDualStack, v4, v6)),
			[]string{`spec.clusterIPs: Invalid value: ["None","fd00::1"]: 'None' must be the first and only value`}},
		{"None second", c(ips("10.0.0.1", "10.0.0.1", "None"), families(corev1.IPFamilyPolicyRequireDualStack, v4, v6)),
			[]string{`spec.clusterIPs[1]: Invalid value: "None": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"three IPs", c(ips("10.0.0.1", "10.0.0.1", "fd00::1", "10.0.0.2"), families(corev1.IPFamilyPolicyRequireDualStack, v4, v6)),
			// Both families are present, so the per-family check passes.
			[]string{`spec.clusterIPs: Invalid value: ["10.0.0.1","fd00::1","10.0.0.2"]: may only hold up to 2 values`}},
		{"two of one family", c(ips("10.0.0.1", "10.0.0.1", "10.0.0.2"), families(corev1.IPFamilyPolicyRequireDualStack, v4, v6)), []string{
			`spec.clusterIPs: Invalid value: ["10.0.0.1","10.0.0.2"]: may specify no more than one IP for each IP family`,
			"spec.clusterIPs[1]: Invalid value: \"10.0.0.2\": expected an IPv6 value as indicated by `ipFamilies[1]`",
		}},
		{"IP does not match family", c(families(corev1.IPFamilyPolicySingleStack, v6)),
			[]string{"spec.clusterIPs[0]: Invalid value: \"10.0.0.10\": expected an IPv6 value as indicated by `ipFamilies[0]`"}},
		{"v6 IP as v4", c(ips("fd00::1", "fd00::1")),
			[]string{"spec.clusterIPs[0]: Invalid value: \"fd00::1\": expected an IPv4 value as indicated by `ipFamilies[0]`"}},
		{"bad families", c(families(corev1.IPFamilyPolicySingleStack, v4, v4, "IPv5")), []string{
			`spec.ipFamilies[1]: Duplicate value: "IPv4"`,
			`spec.ipFamilies[2]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"`,
		}},
		{"bad policy", c(families("DualStack", v4)),
			[]string{`spec.ipFamilyPolicy: Unsupported value: "DualStack": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"`}},
	})
}

type updateCase struct {
	name     string
	old, svc *corev1.Service
	want     []string
}

func runUpdateCases(t *testing.T, cases []updateCase) {
	t.Helper()
	for _, c := range cases {
		expectErrors(t, c.name, ValidateUpdate(c.svc, c.old), c.want)
	}
}

func TestValidateUpdateClusterIPs(t *testing.T) {
	single := newSvc(corev1.ServiceTypeClusterIP)
	dual := newSvc(corev1.ServiceTypeClusterIP, ips("10.0.0.10", "10.0.0.10", "fd00::10"),
		families(corev1.IPFamilyPolicyPreferDualStack, v4, v6))
	headless := newSvc(corev1.ServiceTypeClusterIP, ips("None", "None"))
	extName := newSvc(corev1.ServiceTypeExternalName)
	c := func(muts ...func(*corev1.Service)) *corev1.Service {
		return newSvc(corev1.ServiceTypeClusterIP, muts...)
	}
	runUpdateCases(t, []updateCase{
		{"unchanged", single, c(), nil},
		{"change clusterIP", single, c(ips("10.0.0.11", "10.0.0.11")), []string{
			`spec.clusterIPs[0]: Invalid value: ["10.0.0.11"]: may not change once set`,
		}},
		{"upgrade to dual-stack", single, c(ips("10.0.0.10", "10.0.0.10", "fd00::10"), families(corev1.IPFamilyPolicyPreferDualStack, v4, v6)), nil},
		{"upgrade changing primary", single, c(ips("10.0.0.11", "10.0.0.11", "fd00::10"), families(corev1.IPFamilyPolicyPreferDualStack, v4, v6)),
			[]string{`spec.clusterIPs[0]: Invalid value: ["10.0.0.11","fd00::10"]: may not change once set`}},
		{"downgrade", dual, c(), nil},
		{"downgrade without SingleStack", dual, c(families(corev1.IPFamilyPolicyPreferDualStack, v4)), []string{
			`spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to 'SingleStack' when releasing the secondary clusterIP`,
			`spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to 'SingleStack' when releasing the secondary ipFamily`,
		}},
		{"downgrade with nil policy", dual, c(families("", v4)), []string{
			`spec.ipFamilyPolicy: Invalid value: null: must be set to 'SingleStack' when releasing the secondary clusterIP`,
			`spec.ipFamilyPolicy: Invalid value: null: must be set to 'SingleStack' when releasing the secondary ipFamily`,
		}},
		{"unset primary", single, c(ips(""), families(corev1.IPFamilyPolicySingleStack)), []string{
			`spec.clusterIPs[0]: Invalid value: null: primary clusterIP can not be unset`,
			`spec.ipFamilies[0]: Invalid value: null: primary ipFamily can not be unset`,
		}},
		{"swap families", dual, c(ips("10.0.0.10", "10.0.0.10", "fd00::10"), families(corev1.IPFamilyPolicyPreferDualStack, v6, v4)), []string{
			`spec.ipFamilies[0]: Invalid value: ["IPv6","IPv4"]: may not change once set`,
			`spec.ipFamilies[0]: Invalid value: ["IPv6","IPv4"]: may not change once set`,
			"spec.clusterIPs[0]: Invalid value: \"10.0.0.10\": expected an IPv6 value as indicated by `ipFamilies[0]`",
			"spec.clusterIPs[1]: Invalid value: \"fd00::10\": expected an IPv4 value as indicated by `ipFamilies[1]`",
		}},
		{"headless to headless changes families", headless, c(ips("None", "None"), families(corev1.IPFamilyPolicyRequireDualStack, v6, v4)), nil},
		{"to ExternalName", single, newSvc(corev1.ServiceTypeExternalName), nil},
		{"from ExternalName", extName, c(ips("10.0.0.99", "10.0.0.99")), nil},
		{"ClusterIP to headless", single, c(ips("None", "None")),
			[]string{`spec.clusterIPs[0]: Invalid value: ["None"]: may not change once set`}},
	})
}
