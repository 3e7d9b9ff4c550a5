package synthetic

import "testing"

func TestSnapshot(t *testing.T) {
	s := Snapshot(3, 4, 2)
	if len(s.Services) != 3 || len(s.Endpoints[Name("svc-2")]) != 4 {
		t.Fatalf("got %d services, %d endpoints of svc-2", len(s.Services), len(s.Endpoints[Name("svc-2")]))
	}
	local := 0
	for _, eps := range s.Endpoints {
		for _, ep := range eps {
			if ep.IsLocal != (ep.NodeName == Node) || ep.NodeName == "" {
				t.Errorf("endpoint %v on %q local=%v", ep.IP, ep.NodeName, ep.IsLocal)
			}
			if ep.IsLocal {
				local++
			}
		}
	}
	if local != 6 {
		t.Errorf("%d local endpoints, want half of 12", local)
	}
	svc0 := Name("svc-0")
	moved := MoveFirstEndpoint(s, svc0)
	if moved.Endpoints[svc0][0].IP == s.Endpoints[svc0][0].IP || len(moved.Changes.Ports) != 1 {
		t.Errorf("endpoint not moved, or the original changed: %v %v", moved.Endpoints[svc0][0].IP, s.Endpoints[svc0][0].IP)
	}
	added := AddService(moved)
	if len(added.Services) != 4 || len(moved.Services) != 3 {
		t.Errorf("new service: %d services (before: %d)", len(added.Services), len(moved.Services))
	}
	if eps := Snapshot(1, 2, 0).Endpoints[svc0]; eps[0].NodeName != "" {
		t.Errorf("nodes 0 should name no node: %+v", eps[0])
	}
}
