package apiserver

import (
	"fmt"

	"google.golang.org/grpc/grpclog"
	"k8s.io/klog/v2"
)

// quietGRPCLogs routes grpc-go's log (the etcd client's) to klog with its
// warnings at verbosity 2. k8s.io/apiserver prints them as warnings, and
// grpc warns at every start about connections its balancer closes while
// dialing ("error reading server preface: … use of closed network
// connection"), which reads as a broken server. An unreachable etcd still
// shows: /readyz fails and requests fail with the cause. grpc's errors
// stay errors.
func quietGRPCLogs() { grpclog.SetLoggerV2(grpcLogger{}) }

type grpcLogger struct{}

const grpcDepth = 4

func (grpcLogger) Info(args ...any)   { klog.V(5).InfoSDepth(grpcDepth, fmt.Sprint(args...)) }
func (grpcLogger) Infoln(args ...any) { klog.V(5).InfoSDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Infof(format string, args ...any) {
	klog.V(5).InfoSDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) Warning(args ...any)   { klog.V(2).InfoSDepth(grpcDepth, fmt.Sprint(args...)) }
func (grpcLogger) Warningln(args ...any) { klog.V(2).InfoSDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Warningf(format string, args ...any) {
	klog.V(2).InfoSDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) Error(args ...any)   { klog.ErrorDepth(grpcDepth, args...) }
func (grpcLogger) Errorln(args ...any) { klog.ErrorDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Errorf(format string, args ...any) {
	klog.ErrorDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) Fatal(args ...any)   { klog.FatalDepth(grpcDepth, args...) }
func (grpcLogger) Fatalln(args ...any) { klog.FatalDepth(grpcDepth, fmt.Sprintln(args...)) }
func (grpcLogger) Fatalf(format string, args ...any) {
	klog.FatalDepth(grpcDepth, fmt.Sprintf(format, args...))
}
func (grpcLogger) V(l int) bool { return klog.V(klog.Level(l)).Enabled() }
