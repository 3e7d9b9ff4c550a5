package bench

import "testing"

const terminationsText = `# HELP apiserver_request_terminations_total [ALPHA] Number of requests which apiserver terminated in self-defense.
# TYPE apiserver_request_terminations_total counter
apiserver_request_terminations_total{code="429",component="apiserver",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 30
apiserver_request_terminations_total{code="429",component="apiserver",group="",resource="pods",scope="resource",subresource="status",verb="PUT",version="v1"} 7
apiserver_request_terminations_total{code="429",component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 7
apiserver_request_terminations_total{code="504",component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="LIST",version="v1"} 2
`

func TestRefusals(t *testing.T) {
	r, err := parseRefusals([]byte(terminationsText))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), "44 (PUT leases 30, POST pods 7, PUT pods/status 7)"; got != want {
		t.Errorf("refusals %q, want %q", got, want)
	}
	d := r.since(refusals{"PUT leases": 25, "POST pods": 7})
	if got, want := d.String(), "12 (PUT pods/status 7, PUT leases 5)"; got != want {
		t.Errorf("since: %q, want %q", got, want)
	}
	if got := (refusals{}).String(); got != "0" {
		t.Errorf("none: %q, want 0", got)
	}
}
