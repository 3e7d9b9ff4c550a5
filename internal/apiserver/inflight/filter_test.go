package inflight

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	clocktesting "k8s.io/utils/clock/testing"
)

var (
	nodeUser  = &user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup}}
	aliceUser = &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	leaseRI   = &apirequest.RequestInfo{IsResourceRequest: true, Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: "n1"}
	podRI     = &apirequest.RequestInfo{IsResourceRequest: true, Verb: "create", Resource: "pods", Namespace: "ns"}
	watchRI   = &apirequest.RequestInfo{IsResourceRequest: true, Verb: "watch", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease"}
)

// blocking is a fake API handler: each request announces its resource on
// entered and is answered 200 when the test sends on release[resource]
// (or closes release["*"]).
type blocking struct {
	entered chan string
	release map[string]chan struct{}
	all     chan struct{}
}

func newBlocking() *blocking {
	return &blocking{entered: make(chan string, 16), all: make(chan struct{}),
		release: map[string]chan struct{}{"pods": make(chan struct{}), "leases": make(chan struct{})}}
}

func (b *blocking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ri, _ := apirequest.RequestInfoFrom(r.Context())
	b.entered <- ri.Resource
	select {
	case <-b.release[ri.Resource]:
	case <-b.all:
	}
	w.WriteHeader(http.StatusOK)
}

// serve runs one request through h in a goroutine; its recorder arrives
// on the returned channel when h returns.
func serve(h http.Handler, u user.Info, ri *apirequest.RequestInfo) <-chan *httptest.ResponseRecorder {
	ctx := apirequest.WithUser(apirequest.WithRequestInfo(context.Background(), ri), u)
	r := httptest.NewRequest(http.MethodPut, "/x", nil).WithContext(ctx)
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		done <- w
	}()
	return done
}

func wantEntered(t *testing.T, b *blocking, resource string) {
	t.Helper()
	select {
	case got := <-b.entered:
		if got != resource {
			t.Fatalf("handler entered by %s, want %s", got, resource)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never reached the handler", resource)
	}
}

func want429(t *testing.T, done <-chan *httptest.ResponseRecorder) {
	t.Helper()
	select {
	case w := <-done:
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("got %d Retry-After %q, want 429 Retry-After 1", w.Code, w.Header().Get("Retry-After"))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("request neither served nor refused")
	}
}

func longRunning(_ *http.Request, ri *apirequest.RequestInfo) bool { return ri.Verb == "watch" }

// Other writers filling every mutating seat do not keep a node's Lease
// renewal out.
func TestHeartbeatsKeepTheirSeats(t *testing.T) {
	b := newBlocking()
	defer close(b.all)
	h := WithLimits(b, Config{Reads: 1, Mutating: 1, NodeHigh: 1, Wait: time.Second, LongRunning: longRunning, Clock: clocktesting.NewFakeClock(time.Now())})

	serve(h, aliceUser, podRI)
	wantEntered(t, b, "pods")
	want429(t, serve(h, aliceUser, podRI)) // the plain pool is full
	serve(h, nodeUser, leaseRI)
	wantEntered(t, b, "leases")
}

// Without node-high seats the same renewal is refused with the rest: the
// behaviour this package exists to change.
func TestWithoutNodeHighHeartbeatsShareThePool(t *testing.T) {
	b := newBlocking()
	defer close(b.all)
	h := WithLimits(b, Config{Reads: 1, Mutating: 1, LongRunning: longRunning})

	serve(h, aliceUser, podRI)
	wantEntered(t, b, "pods")
	want429(t, serve(h, nodeUser, leaseRI))
}

// A full node-high pool: the next heartbeat waits for a seat, gets the one
// freed, and one that waits longer than Wait is refused; other writers are
// not affected by it.
func TestHeartbeatWaitsForASeat(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	b := newBlocking()
	h := WithLimits(b, Config{Reads: 1, Mutating: 1, NodeHigh: 1, Wait: 15 * time.Second, LongRunning: longRunning, Clock: clk})

	first := serve(h, nodeUser, leaseRI)
	wantEntered(t, b, "leases")
	second := serve(h, nodeUser, leaseRI)
	waitForWaiter(t, clk)
	serve(h, aliceUser, podRI) // the plain pool is untouched
	wantEntered(t, b, "pods")

	b.release["leases"] <- struct{}{} // the first renewal ends
	wantOK(t, first)
	wantEntered(t, b, "leases") // the waiter takes its seat
	b.release["leases"] <- struct{}{}
	wantOK(t, second)

	serve(h, nodeUser, leaseRI) // takes the seat again
	wantEntered(t, b, "leases")
	third := serve(h, nodeUser, leaseRI)
	waitForWaiter(t, clk)
	clk.Step(15 * time.Second)
	want429(t, third)
	close(b.all)
}

func wantOK(t *testing.T, done <-chan *httptest.ResponseRecorder) {
	t.Helper()
	select {
	case w := <-done:
		if w.Code != http.StatusOK {
			t.Fatalf("got %d, want 200", w.Code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("request never ended")
	}
}

func waitForWaiter(t *testing.T, clk *clocktesting.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the heartbeat never waited for a seat")
		}
		runtime.Gosched()
	}
}

// Watches take no seat, in either pool.
func TestLongRunningTakesNoSeat(t *testing.T) {
	b := newBlocking()
	defer close(b.all)
	h := WithLimits(b, Config{Reads: 1, Mutating: 1, NodeHigh: 1, LongRunning: longRunning})

	serve(h, nodeUser, leaseRI)
	wantEntered(t, b, "leases")
	serve(h, nodeUser, watchRI)
	wantEntered(t, b, "leases")
}
