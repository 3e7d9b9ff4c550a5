package healthcheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.String()
}

func TestProxyHealth(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	h := NewProxyHealth(clk, 60*time.Second)
	srv := h.Handler()
	if code, body := get(t, srv, "/healthz"); code != 200 || !strings.Contains(body, `"nodeEligible":true`) {
		t.Fatalf("fresh: %d %s", code, body)
	}
	h.QueuedUpdate()
	clk.Step(59 * time.Second)
	if code, _ := get(t, srv, "/livez"); code != 200 {
		t.Errorf("queued 59s ago should still be healthy, got %d", code)
	}
	clk.Step(2 * time.Second)
	if code, _ := get(t, srv, "/healthz"); code != 503 {
		t.Errorf("queued 61s ago without sync should be 503, got %d", code)
	}
	h.Updated()
	if code, _ := get(t, srv, "/healthz"); code != 200 {
		t.Errorf("after sync: %d", code)
	}
	h.SetNodeDeleting(true)
	if code, body := get(t, srv, "/healthz"); code != 503 || !strings.Contains(body, `"nodeEligible":false`) {
		t.Errorf("deleting node /healthz: %d %s", code, body)
	}
	if code, _ := get(t, srv, "/livez"); code != 200 {
		t.Errorf("deleting node /livez should stay 200, got %d", code)
	}
}
