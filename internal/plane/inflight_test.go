package plane

import (
	"net/http"
	"sync"
	"testing"
)

// blocking is a transport whose requests wait for release; it counts how
// many were in it at once.
type blocking struct {
	mu        sync.Mutex
	now, most int
	entered   chan struct{}
	release   chan struct{}
}

func (b *blocking) RoundTrip(*http.Request) (*http.Response, error) {
	b.mu.Lock()
	b.now++
	b.most = max(b.most, b.now)
	b.mu.Unlock()
	b.entered <- struct{}{}
	<-b.release
	b.mu.Lock()
	b.now--
	b.mu.Unlock()
	return &http.Response{StatusCode: 200}, nil
}

func TestInFlightLimitBoundsMutatingRequestsOnly(t *testing.T) {
	b := &blocking{entered: make(chan struct{}, 100), release: make(chan struct{})}
	rt := newInFlightLimit(2).wrap(b)
	var wg sync.WaitGroup
	send := func(method string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(method, "https://127.0.0.1/api/v1/pods", nil)
			_, _ = rt.RoundTrip(req)
		}()
	}
	for range 5 {
		send(http.MethodPost)
	}
	send(http.MethodGet)
	send(http.MethodGet)
	// Two POSTs and both GETs get through; three POSTs wait.
	for range 4 {
		<-b.entered
	}
	select {
	case <-b.entered:
		t.Fatal("a third mutating request got through")
	default:
	}
	close(b.release)
	wg.Wait()
	if b.most != 4 {
		t.Errorf("at most %d requests at once, want 4 (2 mutating + 2 reads)", b.most)
	}
}
