package integration

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/test/integration/framework"
)

func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
			},
		},
	}
}

func TestDeploymentDefaultsGenerationStatusAndScale(t *testing.T) {
	skipShort(t)
	// A server without the workload controllers: this test writes status
	// itself and checks exactly what the API server does with it.
	s, err := framework.StartWith("", func(o *framework.Options) {
		o.Controllers = []string{"*", "-deployment", "-replicaset"}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := s.Client
	ns := newNamespace(t, c)
	ds := c.AppsV1().Deployments(ns)
	d := get(ds.Create(ctx, deployment("web"), metav1.CreateOptions{}))(t)
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType ||
		d.Spec.Strategy.RollingUpdate.MaxSurge.StrVal != "25%" || *d.Spec.RevisionHistoryLimit != 10 ||
		*d.Spec.ProgressDeadlineSeconds != 600 || d.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways ||
		d.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Fatalf("defaults missing: %+v", d.Spec)
	}
	if d.Generation != 1 {
		t.Fatalf("generation on create = %d", d.Generation)
	}
	// Metadata-only change: generation stays.
	d.Labels = map[string]string{"x": "y"}
	d = get(ds.Update(ctx, d, metav1.UpdateOptions{}))(t)
	if d.Generation != 1 {
		t.Fatalf("generation after label change = %d", d.Generation)
	}
	// Status through the main resource is ignored.
	d.Status.Replicas = 7
	d = get(ds.Update(ctx, d, metav1.UpdateOptions{}))(t)
	if d.Status.Replicas != 0 {
		t.Fatal("main resource update changed status")
	}
	// /status changes status only.
	d.Status.Replicas = 3
	d.Spec.Paused = true
	d = get(ds.UpdateStatus(ctx, d, metav1.UpdateOptions{}))(t)
	if d.Status.Replicas != 3 || d.Spec.Paused {
		t.Fatalf("status update: replicas=%d paused=%v", d.Status.Replicas, d.Spec.Paused)
	}
	// /scale changes spec.replicas and bumps generation.
	sc := get(ds.GetScale(ctx, "web", metav1.GetOptions{}))(t)
	if sc.Spec.Replicas != 1 || sc.Status.Replicas != 3 || sc.Status.Selector != "app=web" {
		t.Fatalf("scale: %+v", sc)
	}
	sc.Spec.Replicas = 5
	get(ds.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{}))(t)
	d = get(ds.Get(ctx, "web", metav1.GetOptions{}))(t)
	if *d.Spec.Replicas != 5 || d.Generation != 2 {
		t.Fatalf("after scale: replicas=%d generation=%d", *d.Spec.Replicas, d.Generation)
	}
	sc.Spec.Replicas = -1
	if _, err := ds.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) && !apierrors.IsConflict(err) {
		t.Fatalf("negative scale: %v", err)
	}
	bad := deployment("bad")
	bad.Spec.Template.Labels = map[string]string{"app": "other"}
	_, err = ds.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`") {
		t.Fatalf("selector mismatch: %v", err)
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	skipShort(t)
	c := server.Client
	_, err := c.CoreV1().ConfigMaps("does-not-exist").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `namespaces "does-not-exist" not found`) {
		t.Fatalf("create in missing namespace: %v", err)
	}
	ns := newNamespace(t, c)
	got := get(c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))(t)
	if got.Status.Phase != corev1.NamespaceActive || got.Labels[corev1.LabelMetadataName] != ns ||
		len(got.Spec.Finalizers) != 1 || got.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
		t.Fatalf("new namespace: %+v", got)
	}
	// Content, one object held by a finalizer so the namespace stays
	// Terminating until the test lets it go.
	get(c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held",
		Finalizers: []string{"svcplane.io/hold"}}}, metav1.CreateOptions{}))(t)
	svc := get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}))(t)
	noErr(t, c.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
	got = get(c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))(t)
	if got.Status.Phase != corev1.NamespaceTerminating || got.DeletionTimestamp == nil {
		t.Fatalf("deleted namespace: phase=%s deletionTimestamp=%v", got.Status.Phase, got.DeletionTimestamp)
	}
	_, err = c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "because it is being terminated") {
		t.Fatalf("create in terminating namespace: %v", err)
	}
	// A status write to the Terminating namespace keeps it (spec.finalizers
	// still hold "kubernetes"), as upstream.
	got.Status.Conditions = append(got.Status.Conditions, corev1.NamespaceCondition{Type: "Example", Status: corev1.ConditionTrue})
	_, err = c.CoreV1().Namespaces().UpdateStatus(ctx, got, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsConflict(err) {
		t.Fatalf("status update of a terminating namespace: %v", err)
	}
	get(c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))(t)
	// The namespace controller deletes the content (the Service gives its
	// IP back), waits for the held object and says so in the conditions.
	eventually(t, "the namespace content to be deleted", func() bool {
		_, errS := c.CoreV1().Services(ns).Get(ctx, "s", metav1.GetOptions{})
		_, errP := c.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{})
		held, errH := c.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{})
		return apierrors.IsNotFound(errS) && apierrors.IsNotFound(errP) && errH == nil && held.DeletionTimestamp != nil
	})
	// The IP is released after the Service's delete has committed (the
	// store's AfterDelete), so a reader may see the Service gone first.
	eventually(t, "the IP of the Service deleted with its namespace to be released", func() bool {
		_, err := c.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	eventually(t, "the ContentRemaining and FinalizersRemaining conditions", func() bool {
		got := get(c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}))(t)
		var remaining, fins string
		for _, cond := range got.Status.Conditions {
			switch cond.Type {
			case corev1.NamespaceContentRemaining:
				remaining = cond.Message
			case corev1.NamespaceFinalizersRemaining:
				fins = cond.Message
			}
		}
		return remaining == "Some resources are remaining: configmaps. has 1 resource instances" &&
			fins == "Some finalizers are remaining: svcplane.io/hold in 1 resource instances"
	})
	held := get(c.CoreV1().ConfigMaps(ns).Get(ctx, "held", metav1.GetOptions{}))(t)
	held.Finalizers = nil
	get(c.CoreV1().ConfigMaps(ns).Update(ctx, held, metav1.UpdateOptions{}))(t)
	eventually(t, "the empty namespace to be finalized and removed", func() bool {
		_, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	for _, sys := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		get(c.CoreV1().Namespaces().Get(ctx, sys, metav1.GetOptions{}))(t)
	}
}

func TestPodBinding(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}))(t)
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}
	noErr(t, c.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{}))
	p := get(c.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{}))(t)
	if p.Spec.NodeName != "n1" || len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Type != corev1.PodScheduled {
		t.Fatalf("bound pod: node=%q conditions=%+v", p.Spec.NodeName, p.Status.Conditions)
	}
	err := c.CoreV1().Pods(ns).Bind(ctx, b, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `pod p is already assigned to node "n1"`) {
		t.Fatalf("second bind: %v", err)
	}
}
