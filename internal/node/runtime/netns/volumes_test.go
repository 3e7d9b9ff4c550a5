package netns

import (
	"context"
	"errors"
	"io/fs"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func TestReadVolumeFile(t *testing.T) {
	client := fake.NewClientset(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "certs"},
			Data: map[string][]byte{"tls.crt": []byte("CERT"), "tls.key": []byte("KEY")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "conf"},
			Data: map[string]string{"a": "A"}, BinaryData: map[string][]byte{"b": []byte("B")}},
	)
	spec := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "certs"}}},
		{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "conf"}, Items: []corev1.KeyToPath{{Key: "a", Path: "dir/a.txt"}}}}},
		{Name: "missing-key", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "certs",
			Items: []corev1.KeyToPath{{Key: "nope", Path: "x"}}}}},
		{Name: "optional", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "absent", Optional: ptr.To(true)}}},
		{Name: "projected", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "conf"}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "certs"},
				Items: []corev1.KeyToPath{{Key: "tls.crt", Path: "ca.crt"}}}},
		}}}},
		{Name: "empty", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}}}
	c := &corev1.Container{VolumeMounts: []corev1.VolumeMount{
		{Name: "certs", MountPath: "/etc/certs/"},
		{Name: "conf", MountPath: "/etc/conf"},
		{Name: "missing-key", MountPath: "/etc/missing"},
		{Name: "optional", MountPath: "/etc/optional"},
		{Name: "projected", MountPath: "/etc/certs/projected"},
		{Name: "empty", MountPath: "/scratch"},
	}}
	p := &pod{r: &Runtime{cfg: Config{Client: client}}, spec: spec}
	for _, tc := range []struct {
		path, want, err string
		notExist        bool
	}{
		{path: "/etc/certs/tls.crt", want: "CERT"},
		{path: "/etc/certs//tls.key", want: "KEY"},
		{path: "/etc/conf/dir/a.txt", want: "A"},
		{path: "/etc/conf/b", notExist: true},       // only the items
		{path: "/etc/certs/projected/a", want: "A"}, // the longest mount path wins
		{path: "/etc/certs/projected/ca.crt", want: "CERT"},
		{path: "/etc/certs/projected/b", want: "B"},
		{path: "/etc/missing/x", err: "references non-existent secret key: nope"},
		{path: "/etc/optional/x", notExist: true},
		{path: "/etc/passwd", notExist: true}, // no volume there
		{path: "/scratch/f", err: "the netns runtime reads only secret, configMap and projected volumes"},
	} {
		got, err := p.readVolumeFile(context.Background(), c, tc.path)
		switch {
		case tc.notExist:
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %q, %v; want not found", tc.path, got, err)
			}
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.path, err, tc.err)
			}
		case err != nil || string(got) != tc.want:
			t.Errorf("%s: %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}
