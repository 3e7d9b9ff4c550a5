package healthcheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.String()
}

func TestProxyHealth(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0).UTC())
	h := NewProxyHealth(clk, 60*time.Second)
	srv := h.Handler()
	now := clk.Now().String()
	if code, body := get(t, srv, "/healthz"); code != 200 ||
		body != `{"lastUpdated": "`+now+`","currentTime": "`+now+`", "nodeEligible": true}` {
		t.Fatalf("fresh: %d %s", code, body)
	}
	// A family that never synced does not count (starting up).
	h.QueuedUpdate(proxy.IPv4)
	clk.Step(61 * time.Second)
	if code, _ := get(t, srv, "/healthz"); code != 200 {
		t.Errorf("never synced should be healthy, got %d", code)
	}
	h.Updated(proxy.IPv4)
	synced := clk.Now().String()
	h.Updated(proxy.IPv6)
	h.QueuedUpdate(proxy.IPv4)
	clk.Step(59 * time.Second)
	if code, _ := get(t, srv, "/livez"); code != 200 {
		t.Errorf("queued 59s ago should still be healthy, got %d", code)
	}
	clk.Step(2 * time.Second)
	code, body := get(t, srv, "/healthz")
	if code != 503 || !strings.Contains(body, `"lastUpdated": "`+synced+`"`) {
		t.Errorf("queued 61s ago without sync: %d %s", code, body)
	}
	if code, body := get(t, srv, "/livez"); code != 503 || strings.Contains(body, "nodeEligible") {
		t.Errorf("livez: %d %s", code, body)
	}
	h.Updated(proxy.IPv4)
	if code, _ := get(t, srv, "/healthz"); code != 200 {
		t.Errorf("after sync: %d", code)
	}
	for _, n := range []proxy.Node{{Deleting: true}, {ToBeDeleted: true}} {
		h.SyncNode(n)
		if code, body := get(t, srv, "/healthz"); code != 503 || !strings.Contains(body, `"nodeEligible": false`) {
			t.Errorf("ineligible node %+v /healthz: %d %s", n, code, body)
		}
		if code, _ := get(t, srv, "/livez"); code != 200 {
			t.Errorf("ineligible node /livez should stay 200, got %d", code)
		}
	}
	h.SyncNode(proxy.Node{})
	if code, _ := get(t, srv, "/healthz"); code != 200 {
		t.Errorf("eligible again: %d", code)
	}
}
