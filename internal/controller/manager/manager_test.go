package manager

import (
	"strings"
	"testing"
)

func names(cs []Controller) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return strings.Join(out, ",")
}

func TestSelect(t *testing.T) {
	all := "namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller,validatingadmissionpolicy-status-controller,service-cidr-controller," +
		"node-ipam-controller,node-lifecycle-controller,scheduler,replicaset-controller,replicationcontroller-controller," +
		"deployment-controller,garbage-collector-controller,endpoints-controller,endpointslice-mirroring-controller,endpointslice-controller"
	cases := map[string]string{
		"*": all,
		// kube-controller-manager's alias, and svcplane's former name.
		"*,-endpointslice":                        strings.TrimSuffix(all, ",endpointslice-controller"),
		"*,-endpointslice-controller":             strings.TrimSuffix(all, ",endpointslice-controller"),
		"namespace":                               "namespace-controller",
		"namespace-controller":                    "namespace-controller",
		"-namespace":                              "",
		"endpoint,endpoints,endpoints-controller": "endpoints-controller",
		"service-cidr,nodeipam":                   "service-cidr-controller,node-ipam-controller",
	}
	for flag, want := range cases {
		got, err := Select(strings.Split(flag, ","))
		if err != nil || names(got) != want {
			t.Errorf("Select(%q) = %q, %v; want %q", flag, names(got), err, want)
		}
	}
	if _, err := Select([]string{"replicaset-typo"}); err == nil || !strings.Contains(err.Error(), "is not in the list of known controllers") {
		t.Errorf("unknown controller: %v", err)
	}
}
