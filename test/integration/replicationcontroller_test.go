package integration

import (
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

func rcOf(name string, replicas *int32, labels map[string]string) *corev1.ReplicationController {
	return &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ReplicationControllerSpec{Replicas: replicas,
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}}}
}

// TestReplicationController: defaults from the template (selector, labels,
// replicas), pods owned by the ReplicationController, status, /scale
// (kubectl scale rc), the status.replicas field label, the table, and the
// garbage collector deleting the pods with their owner.
func TestReplicationController(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	rcs := c.CoreV1().ReplicationControllers(ns)
	rc := get(rcs.Create(ctx, rcOf("web", int32p(3), map[string]string{"app": "web"}), metav1.CreateOptions{}))(t)
	if rc.Spec.Selector["app"] != "web" || rc.Labels["app"] != "web" || *rc.Spec.Replicas != 3 ||
		rc.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || rc.Generation != 1 {
		t.Fatalf("defaults: %+v", rc)
	}
	if d := get(rcs.Create(ctx, rcOf("one", nil, map[string]string{"app": "one"}), metav1.CreateOptions{}))(t); *d.Spec.Replicas != 1 {
		t.Fatalf("replicas default: %d", *d.Spec.Replicas)
	}
	owned := func() []corev1.Pod {
		var out []corev1.Pod
		for _, p := range get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"}))(t).Items {
			ref := metav1.GetControllerOf(&p)
			if ref != nil && ref.UID == rc.UID && ref.Kind == "ReplicationController" && ref.APIVersion == "v1" && p.DeletionTimestamp == nil {
				out = append(out, p)
			}
		}
		return out
	}
	eventually(t, "3 pods owned by the ReplicationController", func() bool { return len(owned()) == 3 })
	markPodsReady(c, ns)
	eventually(t, "status 3/3 ready", func() bool {
		got := get(rcs.Get(ctx, "web", metav1.GetOptions{}))(t)
		return got.Status.Replicas == 3 && got.Status.ReadyReplicas == 3 && got.Status.AvailableReplicas == 3 &&
			got.Status.FullyLabeledReplicas == 3 && got.Status.ObservedGeneration == got.Generation
	})
	if l := get(rcs.List(ctx, metav1.ListOptions{FieldSelector: "status.replicas=3"}))(t); len(l.Items) != 1 || l.Items[0].Name != "web" {
		t.Fatalf("status.replicas=3 selects %d items", len(l.Items))
	}

	// /scale through client-go, then kubectl.
	sc := get(rcs.GetScale(ctx, "web", metav1.GetOptions{}))(t)
	if sc.Spec.Replicas != 3 || sc.Status.Selector != "app=web" {
		t.Fatalf("scale: %+v", sc)
	}
	sc.Spec.Replicas = 1
	get(rcs.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{}))(t)
	eventually(t, "scaled down to 1 pod", func() bool { return len(owned()) == 1 })
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		run := func(args ...string) string {
			out, err := exec.Command(kubectl, append([]string{"--kubeconfig", server.Kubeconfig, "-n", ns}, args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		run("scale", "rc", "web", "--replicas=2")
		eventually(t, "kubectl scale rc to 2 pods", func() bool { return len(owned()) == 2 })
		out := run("get", "rc", "web", "-o", "wide")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR" ||
			!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "web 2 ") ||
			!strings.HasSuffix(strings.Join(strings.Fields(lines[1]), " "), " c img app=web") {
			t.Fatalf("kubectl get rc -o wide:\n%s", out)
		}
		if all := run("get", "all", "-o", "name"); !strings.Contains(all, "replicationcontroller/web") {
			t.Fatalf("rc not in category all:\n%s", all)
		}
	} else {
		t.Log("no kubectl on PATH: kubectl scale rc not checked")
	}

	// Background deletion: the garbage collector takes the pods.
	noErr(t, rcs.Delete(ctx, "web", metav1.DeleteOptions{}))
	eventually(t, "the pods collected with their ReplicationController", func() bool {
		return len(get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"}))(t).Items) == 0
	})
}

// TestReplicationControllerValidation: upstream's checks with their field
// paths, as 422s.
func TestReplicationControllerValidation(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	rcs := c.CoreV1().ReplicationControllers(ns)
	for name, tc := range map[string]struct {
		change func(*corev1.ReplicationController)
		want   string
	}{
		"negative replicas": {func(rc *corev1.ReplicationController) { rc.Spec.Replicas = int32p(-1) },
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		"selector not matching": {func(rc *corev1.ReplicationController) { rc.Spec.Selector = map[string]string{"app": "other"} },
			"spec.template.metadata.labels: Invalid value: {\"app\":\"x\"}: `selector` does not match template `labels`"},
		"no template": {func(rc *corev1.ReplicationController) {
			rc.Spec.Template = nil
			rc.Spec.Selector = map[string]string{"app": "x"}
		}, "spec.template: Required value"},
		"no selector, no labels": {func(rc *corev1.ReplicationController) { rc.Spec.Template.Labels = nil },
			"spec.selector: Required value"},
		"restart policy": {func(rc *corev1.ReplicationController) {
			rc.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		},
			`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		"active deadline": {func(rc *corev1.ReplicationController) { rc.Spec.Template.Spec.ActiveDeadlineSeconds = new(int64) },
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported"},
		"negative minReadySeconds": {func(rc *corev1.ReplicationController) { rc.Spec.MinReadySeconds = -2 },
			"spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0"},
	} {
		t.Run(name, func(t *testing.T) {
			rc := rcOf("bad", int32p(1), map[string]string{"app": "x"})
			tc.change(rc)
			_, err := rcs.Create(ctx, rc, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want 422 with %q", err, tc.want)
			}
		})
	}
	// A status write with ready > replicas is refused (re-read while the
	// controller's own status write races it).
	get(rcs.Create(ctx, rcOf("ok", int32p(0), map[string]string{"app": "ok"}), metav1.CreateOptions{}))(t)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rc := get(rcs.Get(ctx, "ok", metav1.GetOptions{}))(t)
		rc.Status.ReadyReplicas = 2
		_, err := rcs.UpdateStatus(ctx, rc, metav1.UpdateOptions{})
		return err
	})
	if !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas") {
		t.Fatalf("status: %v", err)
	}
}
