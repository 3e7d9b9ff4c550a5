package apiserver

import (
	"fmt"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc/grpclog"
	"k8s.io/klog/v2"
)

// quietGRPCLogs routes grpc-go's log (the etcd client's) to klog as
// k8s.io/apiserver does, except the warnings about connections grpc closed
// itself while dialing ("error reading server preface: … use of closed
// network connection", "operation was canceled"), which it prints at every
// start and which read as a broken server: those go to verbosity 2. Real
// trouble (a refused TLS handshake, a connection refused) stays a warning.
func quietGRPCLogs() { grpclog.SetLoggerV2(grpcLogger{}) }

// selfInflicted are grpc dial warnings about its own closed attempts.
var selfInflicted = []string{"use of closed network connection", "operation was canceled", "context canceled"}

// grpcStopping is set when this process closes its embedded etcd: from
// then on the clients' failed reconnects are its own doing too.
var grpcStopping atomic.Bool

func grpcWarn(msg string) {
	if grpcStopping.Load() {
		klog.V(2).InfoSDepth(grpcDepth+1, msg)
		return
	}
	for _, s := range selfInflicted {
		if strings.Contains(msg, s) {
			klog.V(2).InfoSDepth(grpcDepth+1, msg)
			return
		}
	}
	klog.WarningDepth(grpcDepth+1, msg)
}

type grpcLogger struct{}

const grpcDepth = 4

func (grpcLogger) Info(args ...any)   { klog.V(5).InfoSDepth(grpcDepth, fmt.Sprint(args...)) }
func (grpcLogger) Infoln(args ...any) { klog.V(5).InfoSDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Infof(format string, args ...any) {
	klog.V(5).InfoSDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) Warning(args ...any)                 { grpcWarn(fmt.Sprint(args...)) }
func (grpcLogger) Warningln(args ...any)               { grpcWarn(fmt.Sprintln(args...)) }
func (grpcLogger) Warningf(format string, args ...any) { grpcWarn(fmt.Sprintf(format, args...)) }
func (grpcLogger) Error(args ...any)                   { klog.ErrorDepth(grpcDepth, args...) }
func (grpcLogger) Errorln(args ...any)                 { klog.ErrorDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Errorf(format string, args ...any) {
	klog.ErrorDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) Fatal(args ...any)   { klog.FatalDepth(grpcDepth, args...) }
func (grpcLogger) Fatalln(args ...any) { klog.FatalDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Fatalf(format string, args ...any) {
	klog.FatalDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) V(l int) bool { return klog.V(klog.Level(l)).Enabled() }
