package apiserver

import (
	"strings"
	"testing"

	"google.golang.org/grpc/grpclog"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/testutil"
)

// TestGRPCWarnings: grpc's warnings about its own cancelled dials go to
// verbosity 2; other warnings (a refused handshake) stay warnings.
func TestGRPCWarnings(t *testing.T) {
	buf := testutil.CaptureKlog(t)
	quietGRPCLogs()
	core := grpclog.Component("core")
	core.Warningf("grpc: addrConn.createTransport failed: error reading server preface: read unix @->/x/etcd.sock: use of closed network connection")
	core.Warningf("grpc: addrConn.createTransport failed: remote error: tls: bad certificate")
	klog.Flush()
	out := buf.String()
	if strings.Contains(out, "use of closed network connection") {
		t.Errorf("a self-inflicted dial warning was printed at default verbosity:\n%s", out)
	}
	if !strings.Contains(out, "bad certificate") || !strings.HasPrefix(strings.TrimSpace(out), "W") {
		t.Errorf("a refused handshake was not printed as a warning:\n%s", out)
	}
}
