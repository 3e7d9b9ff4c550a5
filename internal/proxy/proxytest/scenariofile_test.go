package proxytest

import (
	"strings"
	"testing"
)

// TestScenarioFiles: every shared scenario parses, has objects and checks,
// and each check line reads back as written.
func TestScenarioFiles(t *testing.T) {
	scs := Scenarios(t)
	names := map[string]bool{}
	for _, sc := range scs {
		if names[sc.Name] {
			t.Errorf("%s: name %q used twice", sc.File, sc.Name)
		}
		names[sc.Name] = true
		if len(sc.Objects) < 2 {
			t.Errorf("%s: %d objects", sc.File, len(sc.Objects))
		}
		for _, c := range sc.Checks {
			back, err := ParseCheck(FormatCheck(c))
			if err != nil || FormatCheck(back) != FormatCheck(c) {
				t.Errorf("%s: %q reads back as %q (%v)", sc.File, FormatCheck(c), FormatCheck(back), err)
			}
		}
	}
}

func TestParseScenarioRejects(t *testing.T) {
	const node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-a\nstatus:\n  addresses:\n  - address: 192.168.0.2\n    type: InternalIP\n"
	const svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: ns\nspec:\n  clusterIP: 10.96.0.10\n"
	const fates = "in 10.244.1.99 → 10.96.0.10:80/tcp => endpoint 10.244.1.2:8080 +masq\n"
	archive := func(config, objects, fates string) []byte {
		return []byte("a scenario\n-- config.yaml --\n" + config + "-- objects.yaml --\n" + objects + "-- fates --\n" + fates)
	}
	if sc, err := ParseScenario("ok", archive("clusterCIDR: 10.244.0.0/16\n", node+"---\n"+svc, fates)); err != nil ||
		sc.Name != "a scenario" || sc.Config.ClusterCIDR != "10.244.0.0/16" || len(sc.Objects) != 2 || len(sc.Checks) != 1 ||
		!sc.Checks[0].Want.Masquerade || sc.Checks[0].Port != 80 {
		t.Fatalf("a good archive: %+v %v", sc, err)
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"unknown config field": {archive("masquerade: true\n", svc, fates), "unknown field"},
		"unknown object field": {archive("", strings.Replace(svc, "clusterIP:", "clusterIp:", 1), fates), "unknown field"},
		"another node":         {archive("", strings.Replace(node, "node-a", "node-z", 1), fates), "must be node-a"},
		"a pod":                {archive("", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n", fates), "not a Node"},
		"no arrow":             {archive("", svc, "in 10.0.0.1 10.96.0.10:80/tcp => accept\n"), "want in|node"},
		"bad verdict":          {archive("", svc, "in 10.0.0.1 → 10.96.0.10:80/tcp => allow\n"), "verdict"},
		"masq on drop":         {archive("", svc, "in 10.0.0.1 → 10.96.0.10:80/tcp => drop +masq\n"), "+masq"},
		"no checks":            {archive("", svc, "# nothing\n"), "no check"},
		"missing objects file": {[]byte("x\n-- config.yaml --\n-- fates --\n" + fates), "no objects.yaml"},
		"unnamed":              {[]byte("-- config.yaml --\n"), "no name"},
	} {
		if _, err := ParseScenario(name, c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
}
