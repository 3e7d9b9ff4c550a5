package apiserver

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"google.golang.org/grpc/grpclog"
	"k8s.io/klog/v2"
)

// TestGRPCWarnings: grpc's warnings about its own cancelled dials go to
// verbosity 2; other warnings (a refused handshake) stay warnings.
func TestGRPCWarnings(t *testing.T) {
	var buf bytes.Buffer
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	klog.SetOutput(&buf)
	defer klog.SetOutput(nil)
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
