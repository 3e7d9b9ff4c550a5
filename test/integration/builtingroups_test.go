package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// builtinGroupsDiscovery are the group versions, resources and short names
// the discovery conformance specs and kubectl expect of the groups served
// for them (scheduling, node, storage, policy, networking, certificates).
var builtinGroupsDiscovery = []struct{ gv, resource, shortName string }{
	{"scheduling.k8s.io/v1", "priorityclasses", "pc"},
	{"node.k8s.io/v1", "runtimeclasses", ""},
	{"storage.k8s.io/v1", "csinodes", ""},
	{"storage.k8s.io/v1", "storageclasses", "sc"},
	{"policy/v1", "poddisruptionbudgets", "pdb"},
	{"networking.k8s.io/v1", "ingresses", "ing"},
	{"networking.k8s.io/v1", "ingressclasses", ""},
	{"certificates.k8s.io/v1", "certificatesigningrequests", "csr"},
	{"batch/v1", "jobs", ""},
	{"batch/v1", "cronjobs", "cj"},
	{"autoscaling/v2", "horizontalpodautoscalers", "hpa"},
	{"autoscaling/v1", "horizontalpodautoscalers", "hpa"},
}

// TestBuiltinGroupsDiscovery: aggregated and unaggregated discovery list
// each resource with its short names, and kube-apiserver's system priority
// classes exist once the server is ready.
func TestBuiltinGroupsDiscovery(t *testing.T) {
	skipShort(t)
	c := server.Client
	raw, err := c.Discovery().RESTClient().Get().AbsPath("/apis").
		SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").DoRaw(ctx)
	noErr(t, err)
	var list apidiscoveryv2.APIGroupDiscoveryList
	noErr(t, json.Unmarshal(raw, &list))
	aggregated := map[string][]string{}
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				gv := v.Version
				if g.Name != "" {
					gv = g.Name + "/" + v.Version
				}
				aggregated[gv+" "+r.Resource] = r.ShortNames
			}
		}
	}
	for _, want := range builtinGroupsDiscovery {
		short, ok := aggregated[want.gv+" "+want.resource]
		if !ok {
			t.Errorf("aggregated discovery lacks %s %s", want.gv, want.resource)
		} else if want.shortName != "" && (len(short) != 1 || short[0] != want.shortName) {
			t.Errorf("%s short names %v, want [%s]", want.resource, short, want.shortName)
		}
		res, err := c.Discovery().ServerResourcesForGroupVersion(want.gv)
		noErr(t, err)
		found := false
		for _, r := range res.APIResources {
			found = found || r.Name == want.resource
		}
		if !found {
			t.Errorf("/apis/%s lacks %s", want.gv, want.resource)
		}
	}
	for _, name := range []string{"system-node-critical", "system-cluster-critical"} {
		pc, err := c.SchedulingV1().PriorityClasses().Get(ctx, name, metav1.GetOptions{})
		noErr(t, err)
		if pc.Value < 2000000000 {
			t.Errorf("%s value %d", name, pc.Value)
		}
	}
}

// TestBuiltinGroupsKubectl: kubectl applies (server-side, so with the
// served OpenAPI) one object of each kind, prints kube-apiserver's columns
// and deletes them; an invalid object is refused with the field path.
func TestBuiltinGroupsKubectl(t *testing.T) {
	skipShort(t)
	k := kubectlBinary(t, "kubectl")
	ns := newNamespace(t, server.Client)
	manifest := `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: ` + ns + `-high}
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: ` + ns + `-gvisor}
handler: runsc
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: ` + ns + `-nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: ` + ns + `}
spec:
  ingressClassName: ` + ns + `-nginx
  rules:
  - host: web.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: ` + ns + `}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: ` + ns + `}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: perl}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: hello, namespace: ` + ns + `}
spec:
  schedule: "*/5 * * * *"
  timeZone: Etc/UTC
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: hello, image: busybox}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: ` + ns + `-node}
spec: {drivers: [{name: csi.example.com, nodeID: n1}]}
`
	file := filepath.Join(t.TempDir(), "objects.yaml")
	noErr(t, os.WriteFile(file, []byte(manifest), 0o600))
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := kubectl(t, k, server.Kubeconfig, nil, "", args...)
		if code != 0 {
			t.Fatalf("kubectl %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	run("apply", "--server-side", "-f", file)
	for _, tc := range []struct{ args, want string }{
		{"get pc " + ns + "-high", "PREEMPTIONPOLICY"},
		{"get runtimeclass " + ns + "-gvisor", "runsc"},
		{"get ingressclass " + ns + "-nginx", "k8s.io/ingress-nginx"},
		{"get ing web -n " + ns, "web.example.com"},
		{"get pdb web -n " + ns, "ALLOWED DISRUPTIONS"},
		{"get csinode " + ns + "-node", "DRIVERS"},
		{"get job pi -n " + ns, "0/1"},
		{"get cj hello -n " + ns, "Etc/UTC"},
	} {
		if out := run(strings.Fields(tc.args)...); !strings.Contains(out, tc.want) {
			t.Errorf("kubectl %s: no %q in\n%s", tc.args, tc.want, out)
		}
	}
	if out := run("explain", "priorityclass.preemptionPolicy"); !strings.Contains(out, "PreemptLowerPriority") {
		t.Errorf("kubectl explain: %s", out)
	}
	job := get(server.Client.BatchV1().Jobs(ns).Get(ctx, "pi", metav1.GetOptions{}))(t)
	uid := string(job.UID)
	if job.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"] != uid || job.Spec.Template.Labels["job-name"] != "pi" {
		t.Errorf("job selector/labels not generated: %v %v", job.Spec.Selector, job.Spec.Template.Labels)
	}
	if n := len(get(server.Client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{FieldSelector: "status.successful=0"}))(t).Items); n != 1 {
		t.Errorf("status.successful=0 selects %d jobs", n)
	}
	run("delete", "-f", file)

	reserved := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-mine"}, Value: 1}
	_, err := server.Client.SchedulingV1().PriorityClasses().Create(ctx, reserved, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved") {
		t.Errorf("reserved name: %v", err)
	}
}

// TestCertificateSigningRequestApproval: a CSR records its requester, is
// approved through /approval (kubectl certificate approve's path) and
// gets a certificate through /status; spec cannot change.
func TestCertificateSigningRequestApproval(t *testing.T) {
	skipShort(t)
	api := server.Client.CertificatesV1().CertificateSigningRequests()
	csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{GenerateName: "alice-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: []byte(testCSR), SignerName: "example.com/signer",
			Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, Username: "mallory"}}
	got := get(api.Create(ctx, csr, metav1.CreateOptions{}))(t)
	t.Cleanup(func() { _ = api.Delete(ctx, got.Name, metav1.DeleteOptions{}) })
	if got.Spec.Username == "mallory" || got.Spec.Username == "" {
		t.Errorf("spec.username %q, want the requester", got.Spec.Username)
	}
	got.Status.Conditions = append(got.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: "True", Reason: "Test"})
	if _, err := api.UpdateStatus(ctx, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("approval through /status: %v, want invalid", err)
	}
	approved := get(api.UpdateApproval(ctx, got.Name, got, metav1.UpdateOptions{}))(t)
	if len(approved.Status.Conditions) != 1 || approved.Status.Conditions[0].LastUpdateTime.IsZero() {
		t.Fatalf("approval: %+v", approved.Status)
	}
	approved.Status.Certificate = []byte(testCertificate)
	issued := get(api.UpdateStatus(ctx, approved, metav1.UpdateOptions{}))(t)
	if len(issued.Status.Certificate) == 0 {
		t.Fatal("certificate not stored")
	}
	list := get(api.List(ctx, metav1.ListOptions{FieldSelector: "spec.signerName=example.com/signer"}))(t)
	if len(list.Items) == 0 {
		t.Error("spec.signerName field selector found nothing")
	}
}

// testCSR is an ECDSA P-256 request for CN=alice,O=dev; testCertificate a
// self-signed certificate (both made with openssl for these tests).
const testCSR = `-----BEGIN CERTIFICATE REQUEST-----
MIHaMIGAAgEAMB4xDjAMBgNVBAMMBWFsaWNlMQwwCgYDVQQKDANkZXYwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAARsN75fr3+N+LaCm5TkQhE5IGzHgdZCf+okcwmi
g70P00Hf1U/49Fvgr9IubIyYqTQw/ubsGkVpNshf9VEZzp3UoAAwCgYIKoZIzj0E
AwIDSQAwRgIhAMO1QdpUOObTaJXzSw5hi/gH+6wRAQewIZonmm/pVfPuAiEApMhv
VQbsrHwb7UhFyzS0VmeGZ609XfqAk0fUbLCoNJQ=
-----END CERTIFICATE REQUEST-----
`

const testCertificate = `-----BEGIN CERTIFICATE-----
MIIBdTCCARugAwIBAgIUIXEyRWwDZQ8TGljUNxsmAG3D19swCgYIKoZIzj0EAwIw
EDEOMAwGA1UEAwwFYWxpY2UwHhcNMjYxMTI2MDkwMDA4WhcNMzYxMTIzMDkwMDA4
WjAQMQ4wDAYDVQQDDAVhbGljZTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABGw3
vl+vf434toKblORCETkgbMeB1kJ/6iRzCaKDvQ/TQd/VT/j0W+Cv0i5sjJipNDD+
5uwaRWk2yF/1URnOndSjUzBRMB0GA1UdDgQWBBS07Zs1RlkN2A4ue7ggGBOAawTU
ZTAfBgNVHSMEGDAWgBS07Zs1RlkN2A4ue7ggGBOAawTUZTAPBgNVHRMBAf8EBTAD
AQH/MAoGCCqGSM49BAMCA0gAMEUCIQDZ5J1QWy8E74lULd7xe5AD3VmSNW9XyPXp
KoywJ3PKHwIgNapKNwZRN1rsQ2VQ/lZtjJBo5SOQwb4amng2CBpPeZI=
-----END CERTIFICATE-----
`
