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
	cases := map[string]string{
		"*":                "namespace,serviceaccount,root-ca-cert-publisher,service-cidr,nodeipam,nodelifecycle,scheduler,replicaset,replicationcontroller,deployment,garbagecollector,endpoints,endpointslice-mirroring,endpointslice",
		"*,-endpointslice": "namespace,serviceaccount,root-ca-cert-publisher,service-cidr,nodeipam,nodelifecycle,scheduler,replicaset,replicationcontroller,deployment,garbagecollector,endpoints,endpointslice-mirroring",
		"namespace":        "namespace",
		"-namespace":       "",
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
