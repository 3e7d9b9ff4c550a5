package serviceaccount

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

func sa(name string, mutate ...func(*corev1.ServiceAccount)) *corev1.ServiceAccount {
	s := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// newPlugin has cached in its informer and live only behind its client;
// gets counts the live look-ups.
func newPlugin(t *testing.T, cached []*corev1.ServiceAccount, live ...runtime.Object) (*Plugin, *atomic.Int32) {
	client := fake.NewClientset(live...)
	gets := &atomic.Int32{}
	client.PrependReactor("get", "serviceaccounts", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets.Add(1)
		return false, nil, nil
	})
	f := informers.NewSharedInformerFactory(client, 0)
	p := New()
	p.SetExternalKubeClientSet(client)
	p.SetExternalKubeInformerFactory(f)
	if err := p.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	for _, s := range cached {
		_ = f.Core().V1().ServiceAccounts().Informer().GetStore().Add(s)
	}
	p.generateName = func(base string) string { return base + "abcde" }
	return p, gets
}

func attrs(op admission.Operation, sub string, pod *corev1.Pod) admission.Attributes {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	var old runtime.Object
	if op == admission.Update {
		old = pod.DeepCopy()
	}
	return admission.NewAttributesRecord(pod, old, schema.GroupVersionKind{}, "ns", pod.Name, gvr, sub, op, nil, false, &user.DefaultInfo{Name: "alice"})
}

// admit runs Admit then Validate, as the chain does.
func admit(p *Plugin, a admission.Attributes) error {
	if err := p.Admit(context.Background(), a, nil); err != nil {
		return err
	}
	return p.Validate(context.Background(), a, nil)
}

func basePod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
}

var tokenMount = corev1.VolumeMount{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: DefaultAPITokenMountPath}

func TestAdmitMountsTheToken(t *testing.T) {
	p, _ := newPlugin(t, []*corev1.ServiceAccount{sa("default", func(s *corev1.ServiceAccount) {
		s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	})})
	pod := basePod()
	pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "i"}}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "own", Image: "i",
		VolumeMounts: []corev1.VolumeMount{{Name: "mine", MountPath: DefaultAPITokenMountPath}}})
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e"}}}
	if err := admit(p, attrs(admission.Create, "", pod)); err != nil {
		t.Fatal(err)
	}
	want := basePod().Spec
	want.ServiceAccountName = "default"
	want.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	want.InitContainers = []corev1.Container{{Name: "init", Image: "i", VolumeMounts: []corev1.VolumeMount{tokenMount}}}
	want.Containers[0].VolumeMounts = []corev1.VolumeMount{tokenMount}
	want.Containers = append(want.Containers, pod.Spec.Containers[1])
	want.EphemeralContainers = pod.Spec.EphemeralContainers
	want.Volumes = []corev1.Volume{{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](0o644),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}}}
	if !apiequality.Semantic.DeepEqual(pod.Spec, want) {
		t.Errorf("spec:\n got %+v\nwant %+v", pod.Spec, want)
	}
}

func TestAdmitKeepsAnExistingTokenVolume(t *testing.T) {
	p, _ := newPlugin(t, []*corev1.ServiceAccount{sa("default")})
	pod := basePod()
	pod.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access-mine", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if err := admit(p, attrs(admission.Create, "", pod)); err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Volumes) != 1 || pod.Spec.Containers[0].VolumeMounts[0].Name != "kube-api-access-mine" {
		t.Errorf("volumes %+v, mounts %+v", pod.Spec.Volumes, pod.Spec.Containers[0].VolumeMounts)
	}
}

func TestAutomount(t *testing.T) {
	off := func(s *corev1.ServiceAccount) { s.AutomountServiceAccountToken = ptr.To(false) }
	on := func(s *corev1.ServiceAccount) { s.AutomountServiceAccountToken = ptr.To(true) }
	cases := []struct {
		name  string
		sa    *corev1.ServiceAccount
		pod   *bool
		mount bool
	}{
		{"unset", sa("default"), nil, true},
		{"the ServiceAccount says no", sa("default", off), nil, false},
		{"the pod says no", sa("default", on), ptr.To(false), false},
		{"the pod wins", sa("default", off), ptr.To(true), true},
	}
	for _, c := range cases {
		p, _ := newPlugin(t, []*corev1.ServiceAccount{c.sa})
		pod := basePod()
		pod.Spec.AutomountServiceAccountToken = c.pod
		if err := admit(p, attrs(admission.Create, "", pod)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := len(pod.Spec.Volumes) == 1 && len(pod.Spec.Containers[0].VolumeMounts) == 1; got != c.mount {
			t.Errorf("%s: mounted %v, want %v (%+v)", c.name, got, c.mount, pod.Spec)
		}
	}
}

func TestRefusals(t *testing.T) {
	mirror := func(mutate func(*corev1.Pod)) *corev1.Pod {
		pod := basePod()
		pod.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
		mutate(pod)
		return pod
	}
	enforcing := sa("strict", func(s *corev1.ServiceAccount) {
		s.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
		s.Secrets = []corev1.ObjectReference{{Name: "ok"}}
	})
	withSA := func(name string, mutate func(*corev1.Pod)) *corev1.Pod {
		pod := basePod()
		pod.Spec.ServiceAccountName = name
		mutate(pod)
		return pod
	}
	envSecret := func(name string) []corev1.EnvVar {
		return []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: "k"}}}}
	}
	cases := []struct {
		name string
		op   admission.Operation
		sub  string
		pod  *corev1.Pod
		err  string
	}{
		{"a missing ServiceAccount", admission.Create, "", withSA("nobody", func(*corev1.Pod) {}),
			`pods "p" is forbidden: error looking up service account ns/nobody: serviceaccount "nobody" not found`},
		{"a plain mirror pod", admission.Create, "", mirror(func(*corev1.Pod) {}), ""},
		{"a mirror pod naming a ServiceAccount", admission.Create, "", mirror(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "default" }),
			"a mirror pod may not reference service accounts"},
		{"a mirror pod with a secret", admission.Create, "", mirror(func(p *corev1.Pod) { p.Spec.Containers[0].Env = envSecret("s") }),
			"a mirror pod may not reference secrets"},
		{"a mirror pod with a token", admission.Create, "", mirror(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()}}}
		}), "a mirror pod may not use ServiceAccountToken volume projections"},
		{"mountable secrets", admission.Create, "", withSA("strict", func(p *corev1.Pod) { p.Spec.Containers[0].Env = envSecret("ok") }), ""},
		{"a secret volume not lent", admission.Create, "", withSA("strict", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "other"}}}}
		}), `volume with secret.secretName="other" is not allowed because service account strict does not reference that secret`},
		{"an init container's env", admission.Create, "", withSA("strict", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Env: envSecret("other")}}
		}), `init container i with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret`},
		{"an image pull secret", admission.Create, "", withSA("strict", func(p *corev1.Pod) {
			p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
		}), `imagePullSecrets[0].name="pull" is not allowed because service account strict does not reference that imagePullSecret`},
		{"updates pass", admission.Update, "", withSA("nobody", func(*corev1.Pod) {}), ""},
		{"status passes", admission.Create, "status", withSA("nobody", func(*corev1.Pod) {}), ""},
		{"ephemeral containers of a pod without ServiceAccount", admission.Update, "ephemeralcontainers", basePod(),
			`no service account specified for pod ns/p`},
		{"ephemeral containers' secrets", admission.Update, "ephemeralcontainers", withSA("strict", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Env: envSecret("other")}}}
		}), `ephemeral container e with envVar E referencing secret.secretName="other" is not allowed`},
	}
	for _, c := range cases {
		p, _ := newPlugin(t, []*corev1.ServiceAccount{sa("default"), enforcing})
		before := c.pod.DeepCopy()
		err := admit(p, attrs(c.op, c.sub, c.pod))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
		if isMirrorPod(before) && !apiequality.Semantic.DeepEqual(before, c.pod) {
			t.Errorf("%s: a mirror pod changed", c.name)
		}
	}
}

// TestLiveLookUp: a ServiceAccount the informer has not seen yet is read
// from the API; a missing "default" is asked for ten times on the clock,
// any other once.
func TestLiveLookUp(t *testing.T) {
	p, gets := newPlugin(t, nil, sa("new"))
	pod := basePod()
	pod.Spec.ServiceAccountName = "new"
	if err := admit(p, attrs(admission.Create, "", pod)); err != nil {
		t.Fatal(err)
	}

	p, gets = newPlugin(t, nil)
	pod = basePod()
	pod.Spec.ServiceAccountName = "other"
	if err := p.Admit(context.Background(), attrs(admission.Create, "", pod), nil); !apierrors.IsForbidden(err) || gets.Load() != 1 {
		t.Errorf("missing other: %v after %d look-ups", err, gets.Load())
	}

	p, gets = newPlugin(t, nil)
	clk := testingclock.NewFakeClock(time.Now())
	p.clock = clk
	done := make(chan error, 1)
	go func() { done <- p.Admit(context.Background(), attrs(admission.Create, "", basePod()), nil) }()
	for {
		select {
		case err := <-done:
			want := `pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found`
			if err == nil || err.Error() != want || gets.Load() != defaultAttempts {
				t.Errorf("missing default: %v after %d look-ups, want %q after %d", err, gets.Load(), want, defaultAttempts)
			}
			return
		default:
			if clk.HasWaiters() {
				clk.Step(200 * time.Millisecond)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
