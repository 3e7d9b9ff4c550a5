package drift

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	api "k8s.io/kubernetes/pkg/apis/core"
	upstreamsa "k8s.io/kubernetes/plugin/pkg/admission/serviceaccount"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/admission/serviceaccount"
)

const tokenPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// saaNames are the ServiceAccounts pods name: "" (defaulted), default,
// one in the informer, one only behind the client (the live look-up) and
// a missing one.
var saaNames = []string{"", "default", "cached", "live", "missing"}

func saaSecretNames(r *rand.Rand, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, naPick(r, []string{"s1", "s2", "s3"}))
	}
	return out
}

// saaServiceAccount is a random ServiceAccount: automount unset, true or
// false, sometimes enforcing mountable secrets, some secrets and pull
// secrets.
func saaServiceAccount(r *rand.Rand, ns, name string) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	sa.AutomountServiceAccountToken = []*bool{nil, ptr.To(true), ptr.To(false)}[r.Intn(3)]
	if r.Intn(3) == 0 {
		sa.Annotations = map[string]string{upstreamsa.EnforceMountableSecretsAnnotation: naPick(r, []string{"true", "false", "yes"})}
	}
	for _, s := range saaSecretNames(r, r.Intn(3)) {
		sa.Secrets = append(sa.Secrets, corev1.ObjectReference{Name: s})
	}
	for _, s := range saaSecretNames(r, r.Intn(2)) {
		sa.ImagePullSecrets = append(sa.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
	}
	return sa
}

// saaContainer is a random container: sometimes its own mount at the
// token path, secrets in env and envFrom.
func saaContainer(r *rand.Rand, name string) corev1.Container {
	c := corev1.Container{Name: name, Image: "i"}
	if r.Intn(4) == 0 {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
	}
	if r.Intn(5) == 0 {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: naPick(r, []string{"data", "kube-api-access-mine"}), MountPath: tokenPath})
	}
	if r.Intn(4) == 0 {
		c.Env = []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: saaSecretNames(r, 1)[0]}, Key: "k"}}}}
	}
	if r.Intn(5) == 0 {
		c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: saaSecretNames(r, 1)[0]}}}}
	}
	return c
}

// saaPod is a random pod: ServiceAccount name, automount flag, init,
// regular and ephemeral containers, volumes (some named kube-api-access-,
// secrets, a projected token), pull secrets, sometimes a mirror pod.
func saaPod(r *rand.Rand, ns string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"}}
	p.Spec.ServiceAccountName = naPick(r, saaNames)
	p.Spec.AutomountServiceAccountToken = []*bool{nil, nil, ptr.To(true), ptr.To(false)}[r.Intn(4)]
	if r.Intn(5) == 0 {
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	}
	for i := r.Intn(3); i > 0; i-- {
		p.Spec.InitContainers = append(p.Spec.InitContainers, saaContainer(r, fmt.Sprint("init", i)))
	}
	for i := 1 + r.Intn(3); i > 0; i-- {
		p.Spec.Containers = append(p.Spec.Containers, saaContainer(r, fmt.Sprint("c", i)))
	}
	if r.Intn(5) == 0 {
		c := saaContainer(r, "debug")
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(c)}}
	}
	p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if r.Intn(6) == 0 {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "kube-api-access-mine", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	if r.Intn(4) == 0 {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: saaSecretNames(r, 1)[0]}}})
	}
	if r.Intn(8) == 0 {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "projected", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}})
	}
	if r.Intn(4) == 0 {
		for _, s := range saaSecretNames(r, 1+r.Intn(2)) {
			p.Spec.ImagePullSecrets = append(p.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
		}
	}
	return p
}

// saaNormalise renames the generated kube-api-access-<5 random> volume
// (a name in neither pod's input) to kube-api-access-XXXXX in volumes and
// mounts.
func saaNormalise(p *api.Pod, input sets.Set[string]) {
	rename := func(name *string) {
		if strings.HasPrefix(*name, "kube-api-access-") && len(*name) == len("kube-api-access-")+5 && !input.Has(*name) {
			*name = "kube-api-access-XXXXX"
		}
	}
	for i := range p.Spec.Volumes {
		rename(&p.Spec.Volumes[i].Name)
	}
	for _, cs := range [][]api.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			for j := range cs[i].VolumeMounts {
				rename(&cs[i].VolumeMounts[j].Name)
			}
		}
	}
}

func saaInputNames(p *corev1.Pod) sets.Set[string] {
	s := sets.New[string]()
	for _, v := range p.Spec.Volumes {
		s.Insert(v.Name)
	}
	for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			s.Insert(m.Name)
		}
	}
	return s
}

type saaPlugin interface {
	admission.MutationInterface
	admission.ValidationInterface
}

// saaRun admits a request as the chain does (Admit, then Validate).
func saaRun(p saaPlugin, a admission.Attributes) error {
	if err := p.Admit(context.Background(), a, nil); err != nil {
		return err
	}
	return p.Validate(context.Background(), a, nil)
}

// TestServiceAccountAdmissionMatchesUpstream sends random pods (create,
// update, status and ephemeralcontainers updates) through ours and
// upstream's ServiceAccount plugin, their listers fed the same
// ServiceAccounts and their clients the same ones plus one the informer
// has not seen: same errors and, compared as internal pods after the
// generated volume name is normalised, the same mutations. Namespace ns1
// has its default ServiceAccount in the informer, ns2 only behind the
// client; a few pods go to ns3, which has none (both plugins then ask ten
// times, 1–2 s).
func TestServiceAccountAdmissionMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var cached, live []runtime.Object
	for _, ns := range []string{"ns1", "ns2", "ns3"} {
		for _, name := range []string{"default", "cached", "live"} {
			if ns == "ns3" && name == "default" {
				continue
			}
			sa := saaServiceAccount(r, ns, name)
			live = append(live, sa)
			if name == "cached" || (name == "default" && ns == "ns1") {
				cached = append(cached, sa)
			}
		}
	}
	client := fake.NewClientset(live...)
	f := informers.NewSharedInformerFactory(client, 0)
	for _, o := range cached {
		_ = f.Core().V1().ServiceAccounts().Informer().GetStore().Add(o)
	}
	ours := serviceaccount.New()
	theirs := upstreamsa.NewServiceAccount()
	ours.SetExternalKubeInformerFactory(f)
	ours.SetExternalKubeClientSet(client)
	theirs.SetExternalKubeInformerFactory(f)
	theirs.SetExternalKubeClientSet(client)
	for _, err := range []error{ours.ValidateInitialization(), theirs.ValidateInitialization()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	u := &user.DefaultInfo{Name: "alice"}
	refused, mounted, total := 0, 0, 0
	for i := 0; i < 3000; i++ {
		ns := naPick(r, []string{"ns1", "ns2"})
		if i%1000 == 999 {
			ns = "ns3"
		}
		op, sub := admission.Create, ""
		switch r.Intn(8) {
		case 0:
			op, sub = admission.Update, naPick(r, []string{"", "status", "ephemeralcontainers"})
		case 1:
			sub = "status"
		}
		pod := saaPod(r, ns)
		if ns == "ns3" {
			op, sub = admission.Create, ""
			pod.Annotations, pod.Spec.ServiceAccountName = nil, ""
		}
		var old *corev1.Pod
		var internOld runtime.Object
		if op == admission.Update {
			old = pod.DeepCopy()
			old.Spec.EphemeralContainers = nil
			o := &api.Pod{}
			toInternal(t, old.DeepCopy(), o)
			internOld = o
		}
		// Converted from a copy: the conversion shares slices, and ours
		// appends to them.
		internal := &api.Pod{}
		toInternal(t, pod.DeepCopy(), internal)
		input := saaInputNames(pod)
		var oldObj runtime.Object
		if old != nil {
			oldObj = old
		}
		e1 := saaRun(ours, admission.NewAttributesRecord(pod, oldObj, schema.GroupVersionKind{}, ns, pod.Name, gvr, sub, op, nil, false, u))
		e2 := saaRun(theirs, admission.NewAttributesRecord(internal, internOld, schema.GroupVersionKind{}, ns, pod.Name, gvr, sub, op, nil, false, u))
		total++
		if e1 != nil {
			refused++
		}
		if fmt.Sprint(e1) != fmt.Sprint(e2) {
			t.Errorf("%d: %s %s/%s (%s) sa %q:\n ours     %v\n upstream %v", i, op, ns, pod.Name, sub, pod.Spec.ServiceAccountName, e1, e2)
			continue
		}
		got := &api.Pod{}
		toInternal(t, pod.DeepCopy(), got)
		saaNormalise(got, input)
		saaNormalise(internal, input)
		if len(got.Spec.Volumes) > 0 && strings.HasPrefix(got.Spec.Volumes[len(got.Spec.Volumes)-1].Name, "kube-api-access-X") {
			mounted++
		}
		if !apiequality.Semantic.DeepEqual(got, internal) {
			t.Errorf("%d: %s %s/%s (%s) sa %q: pods differ:\n ours     %+v\n upstream %+v", i, op, ns, pod.Name, sub, pod.Spec.ServiceAccountName, got.Spec, internal.Spec)
		}
	}
	t.Logf("%d requests, %d refused, %d got a token volume", total, refused, mounted)
	if refused == 0 || mounted == 0 || refused+mounted >= total {
		t.Errorf("the random pods are too alike (%d of %d refused, %d mounted)", refused, total, mounted)
	}
}
