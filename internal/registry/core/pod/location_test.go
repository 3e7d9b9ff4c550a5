package pod

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/kubeletclient"
)

type podGetter map[string]*corev1.Pod

func (g podGetter) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if p, ok := g[name]; ok {
		return p, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

type kubelets map[string]string

func (k kubelets) GetConnectionInfo(_ context.Context, node string) (*kubeletclient.ConnectionInfo, error) {
	host, ok := k[node]
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Resource("nodes"), node)
	}
	return &kubeletclient.ConnectionInfo{Scheme: "https", Hostname: host, Port: "10250"}, nil
}

func testPods() podGetter {
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "ns", Name: name} }
	return podGetter{
		"one":     {ObjectMeta: meta("one"), Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "app"}}}},
		"two":     {ObjectMeta: meta("two"), Spec: corev1.PodSpec{NodeName: "n1", InitContainers: []corev1.Container{{Name: "init"}}, Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}},
		"none":    {ObjectMeta: meta("none"), Spec: corev1.PodSpec{NodeName: "n1"}},
		"pending": {ObjectMeta: meta("pending"), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}},
	}
}

func TestStreamLocation(t *testing.T) {
	pods, conn := testPods(), kubelets{"n1": "10.0.0.1"}
	for _, tc := range []struct {
		name, pod, container, path string
		opts                       any
		want, err                  string
	}{
		{"exec default container", "one", "", "exec", &corev1.PodExecOptions{Stdout: true, Stderr: true, Command: []string{"sh", "-c", "echo hi"}},
			"https://10.0.0.1:10250/exec/ns/one/app?command=sh&command=-c&command=echo+hi&error=1&output=1", ""},
		{"attach stdin tty", "two", "b", "attach", &corev1.PodAttachOptions{Stdin: true, TTY: true},
			"https://10.0.0.1:10250/attach/ns/two/b?input=1&tty=1", ""},
		{"init container", "two", "init", "exec", &corev1.PodExecOptions{}, "https://10.0.0.1:10250/exec/ns/two/init", ""},
		{"port-forward", "two", "", "portForward", &corev1.PodPortForwardOptions{Ports: []int32{80, 443}},
			"https://10.0.0.1:10250/portForward/ns/two?port=80%2C443", ""},
		{"choose one", "two", "", "exec", &corev1.PodExecOptions{}, "", "a container name must be specified for pod two, choose one of: [init a b]"},
		{"no containers", "none", "", "exec", &corev1.PodExecOptions{}, "", "a container name must be specified for pod none"},
		{"bad container", "one", "nope", "exec", &corev1.PodExecOptions{}, "", "container nope is not valid for pod one"},
		{"no host", "pending", "", "exec", &corev1.PodExecOptions{}, "", "pod pending does not have a host assigned"},
		{"no pod", "gone", "", "exec", &corev1.PodExecOptions{}, "", `pods "gone" not found`},
	} {
		u, _, err := streamLocation(context.Background(), pods, conn, tc.pod, tc.opts, tc.container, tc.path)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
		case err != nil || u.String() != tc.want:
			t.Errorf("%s: %v, %v; want %s", tc.name, u, err, tc.want)
		}
	}
}

func TestLogLocation(t *testing.T) {
	pods, conn := testPods(), kubelets{"n1": "10.0.0.1"}
	since := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	u, _, err := LogLocation(context.Background(), pods, conn, "two", &corev1.PodLogOptions{Container: "b", Follow: true, Timestamps: true,
		TailLines: ptr.To[int64](5), LimitBytes: ptr.To[int64](100), SinceTime: &since})
	want := "https://10.0.0.1:10250/containerLogs/ns/two/b?follow=true&limitBytes=100&sinceTime=2026-01-02T03%3A04%3A05Z&tailLines=5&timestamps=true"
	if err != nil || u.String() != want {
		t.Errorf("LogLocation = %v, %v; want %s", u, err, want)
	}
	// A pod without a node has no log yet: an empty stream, no error.
	if u, info, err := LogLocation(context.Background(), pods, conn, "pending", &corev1.PodLogOptions{}); u != nil || info != nil || err != nil {
		t.Errorf("LogLocation of a pending pod = %v, %v, %v", u, info, err)
	}
}

func TestLogRESTValidates(t *testing.T) {
	r := &LogREST{Pods: testPods(), Kubelet: kubelets{"n1": "10.0.0.1"}}
	_, err := r.Get(context.Background(), "one", &corev1.PodLogOptions{TailLines: ptr.To[int64](-2)})
	if !apierrors.IsInvalid(err) || err.Error() != `PodLogOptions "one" is invalid: tailLines: Invalid value: -2: must be greater than or equal to 0` {
		t.Errorf("Get with tailLines -2: %v", err)
	}
}
