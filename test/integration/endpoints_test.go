package integration

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func TestMetricsAndHealthEndpoints(t *testing.T) {
	skipShort(t)
	rc := server.Client.Discovery().RESTClient()
	metrics := string(get(rc.Get().AbsPath("/metrics").DoRaw(ctx))(t))
	if !strings.Contains(metrics, "apiserver_request_total") {
		t.Fatal("/metrics lacks apiserver_request_total")
	}
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if body := string(get(rc.Get().AbsPath(p).DoRaw(ctx))(t)); body != "ok" {
			t.Fatalf("%s: %q", p, body)
		}
	}
	v := get(server.Client.Discovery().ServerVersion())(t)
	if v.Major != "1" || !strings.HasPrefix(v.GitVersion, "v1.") {
		t.Fatalf("/version: %+v", v)
	}
}

// TestWatchListSendsInitialEvents checks the streaming list (WatchList):
// the existing objects arrive as ADDED events, then a bookmark marks the end
// of the initial state.
func TestWatchListSendsInitialEvents(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	for _, n := range []string{"a", "b"} {
		get(c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"watchlist": "test"}}}, metav1.CreateOptions{}))(t)
	}
	yes := true
	// The label leaves out kube-root-ca.crt, which root-ca-cert-publisher
	// adds to the namespace at some point.
	w := get(c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{
		LabelSelector:     "watchlist=test",
		SendInitialEvents: &yes, AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	}))(t)
	defer w.Stop()
	added := 0
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev := <-w.ResultChan():
			switch ev.Type {
			case watch.Added:
				added++
			case watch.Bookmark:
				cm := ev.Object.(*corev1.ConfigMap)
				if cm.Annotations[metav1.InitialEventsAnnotationKey] == "true" {
					if added != 2 {
						t.Fatalf("initial events: %d ADDED before the end bookmark, want 2", added)
					}
					return
				}
			case watch.Error:
				t.Fatalf("watch error: %v", ev.Object)
			}
		case <-timeout:
			t.Fatalf("no initial-events-end bookmark (ADDED so far: %d)", added)
		}
	}
}
