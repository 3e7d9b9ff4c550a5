package plane

import (
	"context"
	"errors"
	"strings"
	"testing"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/testutil"
)

// TestLoopsStopAndQuietCancel: stop ends every loop; inside a loop an
// error that is only the loop's cancellation is not logged as an error,
// others are.
func TestLoopsStopAndQuietCancel(t *testing.T) {
	buf := testutil.CaptureKlog(t)
	l := newLoops()
	var waited bool
	l.ready = func(context.Context, *rest.Config) error { waited = true; return nil }
	ended := make(chan struct{})
	l.start(genericapiserver.PostStartHookContext{Context: context.Background(), LoopbackClientConfig: &rest.Config{}}, func(ctx context.Context) {
		if !waited {
			t.Error("the loop ran before the server was ready")
		}
		<-ctx.Done()
		logger := klog.FromContext(ctx)
		logger.Error(ctx.Err(), "Unexpected error when reading response body")
		logger.Error(errors.New("boom"), "Real trouble")
		close(ended)
	})
	if err := l.stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	default:
		t.Fatal("stop returned before the loop ended")
	}
	klog.Flush()
	out := buf.String()
	if strings.Contains(out, "Unexpected error when reading response body") || !strings.Contains(out, "Real trouble") {
		t.Fatalf("log:\n%s", out)
	}
}
