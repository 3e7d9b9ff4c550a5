package pod

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/svcplane/svcplane/internal/kubeletclient"
)

// KubeletConnection finds how to reach a node's kubelet
// (kubeletclient.Getter).
type KubeletConnection interface {
	GetConnectionInfo(ctx context.Context, node string) (*kubeletclient.ConnectionInfo, error)
}

func getPod(ctx context.Context, pods rest.Getter, name string) (*corev1.Pod, error) {
	obj, err := pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("unexpected object type: %T", obj)
	}
	return p, nil
}

// containerNames lists pod's containers as upstream's VisitContainers
// does: init, regular, ephemeral.
func containerNames(pod *corev1.Pod) []string {
	var out []string
	for _, c := range pod.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		out = append(out, c.Name)
	}
	return out
}

// validateContainer returns the container a request is for: the one it
// names, which must exist, or the pod's only container (upstream's
// messages).
func validateContainer(container string, pod *corev1.Pod) (string, error) {
	if container == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		default:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, containerNames(pod)))
		}
	}
	for _, n := range containerNames(pod) {
		if n == container {
			return container, nil
		}
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
}

// LogLocation is the kubelet URL of a container's log (nil: the pod has
// no node yet) and the transport to it.
func LogLocation(ctx context.Context, pods rest.Getter, conn KubeletConnection, name string, opts *corev1.PodLogOptions) (*url.URL, *kubeletclient.ConnectionInfo, error) {
	pod, err := getPod(ctx, pods, name)
	if err != nil {
		return nil, nil, err
	}
	c, err := validateContainer(opts.Container, pod)
	if err != nil {
		return nil, nil, err
	}
	if pod.Spec.NodeName == "" {
		return nil, nil, nil
	}
	info, err := conn.GetConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, nil, err
	}
	params := url.Values{}
	for _, b := range []struct {
		name string
		on   bool
	}{{"follow", opts.Follow}, {"previous", opts.Previous}, {"timestamps", opts.Timestamps}} {
		if b.on {
			params.Add(b.name, "true")
		}
	}
	if opts.SinceSeconds != nil {
		params.Add("sinceSeconds", strconv.FormatInt(*opts.SinceSeconds, 10))
	}
	if opts.SinceTime != nil {
		params.Add("sinceTime", opts.SinceTime.Format(time.RFC3339))
	}
	if opts.TailLines != nil {
		params.Add("tailLines", strconv.FormatInt(*opts.TailLines, 10))
	}
	if opts.LimitBytes != nil {
		params.Add("limitBytes", strconv.FormatInt(*opts.LimitBytes, 10))
	}
	return &url.URL{Scheme: info.Scheme, Host: net.JoinHostPort(info.Hostname, info.Port),
		Path: fmt.Sprintf("/containerLogs/%s/%s/%s", pod.Namespace, pod.Name, c), RawQuery: params.Encode()}, info, nil
}

// streamParams are the kubelet's query parameters of an exec, attach or
// port-forward (input, output, error, tty, command, port).
func streamParams(opts any) url.Values {
	params := url.Values{}
	flags := func(stdin, stdout, stderr, tty bool) {
		for _, f := range []struct {
			name string
			on   bool
		}{{corev1.ExecStdinParam, stdin}, {corev1.ExecStdoutParam, stdout}, {corev1.ExecStderrParam, stderr}, {corev1.ExecTTYParam, tty}} {
			if f.on {
				params.Add(f.name, "1")
			}
		}
	}
	switch o := opts.(type) {
	case *corev1.PodExecOptions:
		flags(o.Stdin, o.Stdout, o.Stderr, o.TTY)
		for _, c := range o.Command {
			params.Add("command", c)
		}
	case *corev1.PodAttachOptions:
		flags(o.Stdin, o.Stdout, o.Stderr, o.TTY)
	case *corev1.PodPortForwardOptions:
		if len(o.Ports) > 0 {
			ports := make([]string, len(o.Ports))
			for i, p := range o.Ports {
				ports[i] = strconv.FormatInt(int64(p), 10)
			}
			params.Add(corev1.PortHeader, strings.Join(ports, ","))
		}
	}
	return params
}

// streamLocation is the kubelet URL of an exec or attach (path) to a
// container of the pod; container "" is the pod's only one.
func streamLocation(ctx context.Context, pods rest.Getter, conn KubeletConnection, name string, opts any, container, path string) (*url.URL, *kubeletclient.ConnectionInfo, error) {
	pod, err := getPod(ctx, pods, name)
	if err != nil {
		return nil, nil, err
	}
	var segs string
	if path != "portForward" {
		if container, err = validateContainer(container, pod); err != nil {
			return nil, nil, err
		}
		segs = "/" + container
	}
	if pod.Spec.NodeName == "" {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	info, err := conn.GetConnectionInfo(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, nil, err
	}
	return &url.URL{Scheme: info.Scheme, Host: net.JoinHostPort(info.Hostname, info.Port),
		Path:     fmt.Sprintf("/%s/%s/%s%s", path, pod.Namespace, pod.Name, segs),
		RawQuery: streamParams(opts).Encode()}, info, nil
}

// ExecLocation is the kubelet URL of an exec in a container of the pod
// (container "" is its only one), as upstream's ExecLocation.
func ExecLocation(ctx context.Context, pods rest.Getter, conn KubeletConnection, name string, opts *corev1.PodExecOptions) (*url.URL, *kubeletclient.ConnectionInfo, error) {
	return streamLocation(ctx, pods, conn, name, opts, opts.Container, "exec")
}

// AttachLocation is the kubelet URL of an attach, as upstream's.
func AttachLocation(ctx context.Context, pods rest.Getter, conn KubeletConnection, name string, opts *corev1.PodAttachOptions) (*url.URL, *kubeletclient.ConnectionInfo, error) {
	return streamLocation(ctx, pods, conn, name, opts, opts.Container, "attach")
}

// PortForwardLocation is the kubelet URL of a port-forward, as upstream's.
func PortForwardLocation(ctx context.Context, pods rest.Getter, conn KubeletConnection, name string, opts *corev1.PodPortForwardOptions) (*url.URL, *kubeletclient.ConnectionInfo, error) {
	return streamLocation(ctx, pods, conn, name, opts, "", "portForward")
}
