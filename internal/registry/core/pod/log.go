package pod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	genericrest "k8s.io/apiserver/pkg/registry/generic/rest"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/svcplane/svcplane/internal/queryparams"
)

// LogREST serves pods/log: the container's log streamed from its node's
// kubelet (/containerLogs), as kube-apiserver's LogREST.
type LogREST struct {
	Pods    rest.Getter
	Kubelet KubeletConnection
}

var _ rest.GetterWithOptions = &LogREST{}

// New implements rest.Storage.
func (r *LogREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy implements rest.Storage.
func (r *LogREST) Destroy() {}

// ProducesMIMETypes: the log is text/plain.
func (r *LogREST) ProducesMIMETypes(string) []string { return []string{"text/plain"} }

// ProducesObject: the log is a string.
func (r *LogREST) ProducesObject(string) interface{} { return "" }

// NewGetOptions implements rest.GetterWithOptions.
func (r *LogREST) NewGetOptions() (runtime.Object, bool, string) {
	return &corev1.PodLogOptions{}, false, ""
}

// OverrideMetricsVerb counts GETs of logs as CONNECT, as upstream.
func (r *LogREST) OverrideMetricsVerb(verb string) string {
	if verb == "GET" {
		return "CONNECT"
	}
	return verb
}

// Get validates the options (upstream's messages, 422 on PodLogOptions)
// and streams the log from the kubelet.
func (r *LogREST) Get(ctx context.Context, name string, opts runtime.Object) (runtime.Object, error) {
	logOpts, ok := opts.(*corev1.PodLogOptions)
	if !ok {
		return nil, fmt.Errorf("invalid options object: %#v", opts)
	}
	if errs := queryparams.ValidatePodLogOptions(logOpts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("PodLogOptions").GroupKind(), name, errs)
	}
	location, info, err := LogLocation(ctx, r.Pods, r.Kubelet, name, logOpts)
	if err != nil {
		return nil, err
	}
	s := &genericrest.LocationStreamer{
		Location:        location,
		ContentType:     "text/plain",
		Flush:           logOpts.Follow,
		ResponseChecker: genericrest.NewGenericHttpResponseChecker(corev1.Resource("pods/log"), name),
		RedirectChecker: genericrest.PreventRedirects,
	}
	if info != nil {
		s.Transport = info.Transport
		if logOpts.InsecureSkipTLSVerifyBackend {
			s.Transport = info.InsecureSkipTLSVerifyTransport
		}
	}
	return s, nil
}
