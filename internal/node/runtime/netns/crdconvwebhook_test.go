package netns

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	certutil "k8s.io/client-go/util/cert"

	"github.com/svcplane/svcplane/internal/testutil"
)

// agnhost crd-conversion-webhook in a pod: its certificate comes from a
// Secret volume, and it converts over HTTPS from the host.
func TestCRDConversionWebhookServesFromASecretVolume(t *testing.T) {
	l := newLab(t)
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("webhook", []net.IP{net.ParseIP("10.244.0.2")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.r.cfg.Client.CoreV1().Secrets("default").Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "certs"}, Data: map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "conv", UID: "uid-conv"},
		Spec: corev1.PodSpec{NodeName: "n0", Volumes: []corev1.Volume{{Name: "certs",
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "certs"}}}},
			Containers: []corev1.Container{{Name: "webhook", Image: agnhostImage,
				Args:         []string{"crd-conversion-webhook", "--tls-cert-file=/webhook.local.config/certificates/tls.crt", "--tls-private-key-file=/webhook.local.config/certificates/tls.key", "--port=9443"},
				VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: "/webhook.local.config/certificates", ReadOnly: true}},
				// The kubelet probes HTTPS without verifying the certificate.
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
					Scheme: corev1.URISchemeHTTPS, Port: intstr.FromInt32(9443), Path: "/readyz"}}, PeriodSeconds: 1}}}}}
	rec, err := l.r.RunPod(p)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := httpClient(l.host, 3*time.Second)
	client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool}
	body := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"stable.example.com/v2",` +
		`"objects":[{"apiVersion":"stable.example.com/v1","kind":"E2e","metadata":{"name":"o"},"hostPort":"localhost:8080"}]}}`
	testutil.Eventually(t, 10*time.Second, "ready by its HTTPS readiness probe", func() bool { return l.state(t, p).Ready() })
	testutil.EventuallyErr(t, 10*time.Second, "the webhook converts", func() error {
		resp, err := client.Post("https://"+rec.IPs[0]+":9443/crdconvert", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"host":"localhost"`) || !strings.Contains(string(b), `"port":"8080"`) {
			t.Fatalf("answer %d %s", resp.StatusCode, b)
		}
		return nil
	})
}
