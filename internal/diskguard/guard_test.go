package diskguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/endpoints/request"
	testingclock "k8s.io/utils/clock/testing"
)

// TestFilterRefusesWritesWhileLow: below the minimum, writes get 503 with
// the figures and reads pass; a sample after space returns lets writes in.
func TestFilterRefusesWritesWhileLow(t *testing.T) {
	var free atomic.Uint64
	free.Store(100 << 20)
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	g := New("/data", 256<<20, func(string) (uint64, error) { return free.Load(), nil }, clk)
	h := g.Filter(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	do := func(verb string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/configmaps", nil)
		r = r.WithContext(request.WithRequestInfo(r.Context(), &request.RequestInfo{
			IsResourceRequest: true, Verb: verb, APIVersion: "v1", Resource: "configmaps", Namespace: "default"}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	code, body := do("create")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "has 100 MiB free, below the 256 MiB") || !strings.Contains(body, "/data") {
		t.Fatalf("create while low: %d %s", code, body)
	}
	for _, verb := range []string{"get", "list", "watch"} {
		if code, _ := do(verb); code != http.StatusOK {
			t.Fatalf("%s while low: %d", verb, code)
		}
	}
	free.Store(1 << 30)
	go g.Run(t.Context())
	for !clk.HasWaiters() { // Run registers its timer on its own
		time.Sleep(time.Millisecond)
	}
	clk.Step(SampleInterval)
	for g.Low() != "" {
		time.Sleep(time.Millisecond)
	}
	if code, _ := do("patch"); code != http.StatusOK {
		t.Fatalf("patch after space returned: %d", code)
	}
}
