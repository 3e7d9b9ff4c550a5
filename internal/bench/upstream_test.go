package bench

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func TestSides(t *testing.T) {
	for against, want := range map[string][]string{
		"":         {SideSvcplane},
		"svcplane": {SideSvcplane},
		"upstream": {SideUpstream},
		"both":     {SideSvcplane, SideUpstream},
	} {
		got, err := sides(against)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("sides(%q) = %v, %v; want %v", against, got, err, want)
		}
	}
	if _, err := sides("kube"); err == nil || err.Error() != `--against "kube": want svcplane, upstream or both` {
		t.Errorf("sides(kube): %v", err)
	}
}

func TestDefaultUpstreamDir(t *testing.T) {
	t.Setenv("UPSTREAM_BIN", "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if got := DefaultUpstreamDir(); got != "/cache/svcplane-upstream/"+UpstreamVersion {
		t.Errorf("with XDG_CACHE_HOME: %s", got)
	}
	t.Setenv("UPSTREAM_BIN", "/bins")
	if got := DefaultUpstreamDir(); got != "/bins" {
		t.Errorf("with UPSTREAM_BIN: %s", got)
	}
}

// TestUpstreamResolve: binaries are found in the directory or where given;
// a missing kube-apiserver or etcd says how to build it; a missing
// kube-controller-manager or kube-scheduler means none unless it was
// given.
func TestUpstreamResolve(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := (UpstreamConfig{Dir: dir}).resolve(); err == nil ||
		!strings.Contains(err.Error(), "no kube-apiserver at "+filepath.Join(dir, "kube-apiserver")) || !strings.Contains(err.Error(), "build-upstream.sh kube-apiserver") {
		t.Errorf("no kube-apiserver: %v", err)
	}
	api := exe("kube-apiserver")
	if _, err := (UpstreamConfig{Dir: dir}).resolve(); err == nil || !strings.Contains(err.Error(), "no etcd at") || !strings.Contains(err.Error(), "hack/build-etcd.sh") {
		t.Errorf("no etcd: %v", err)
	}
	etcd := exe("etcd")
	b, err := UpstreamConfig{Dir: dir}.resolve()
	if err != nil || b.apiserver != api || b.etcd != etcd || b.controllerManager != "" || !strings.Contains(b.note, "no kube-controller-manager at") {
		t.Errorf("without kube-controller-manager: %+v, %v", b, err)
	}
	if _, err := (UpstreamConfig{Dir: dir, ControllerManager: filepath.Join(dir, "kcm")}).resolve(); err == nil || !strings.HasPrefix(err.Error(), "--kube-controller-manager "+filepath.Join(dir, "kcm")+":") {
		t.Errorf("a given kube-controller-manager that is missing: %v", err)
	}
	kcm := exe("kube-controller-manager")
	if b, err := (UpstreamConfig{Dir: dir}).resolve(); err != nil || b.controllerManager != kcm {
		t.Errorf("with kube-controller-manager: %+v, %v", b, err)
	}
	if b, err := (UpstreamConfig{Dir: dir, ControllerManager: "none"}).resolve(); err != nil || b.controllerManager != "" || b.note == "" {
		t.Errorf("--kube-controller-manager none: %+v, %v", b, err)
	}
	if b.scheduler != "" || !strings.Contains(b.schedulerNote, "no kube-scheduler at") || !strings.Contains(b.schedulerNote, "build-upstream.sh kube-scheduler") {
		t.Errorf("without kube-scheduler: %+v", b)
	}
	sched := exe("kube-scheduler")
	if b, err := (UpstreamConfig{Dir: dir}).resolve(); err != nil || b.scheduler != sched || b.controllerManager != kcm {
		t.Errorf("with kube-scheduler: %+v, %v", b, err)
	}
	if b, err := (UpstreamConfig{Dir: dir, Scheduler: "none"}).resolve(); err != nil || b.scheduler != "" || b.schedulerNote != "--kube-scheduler none" {
		t.Errorf("--kube-scheduler none: %+v, %v", b, err)
	}
	if _, err := (UpstreamConfig{Dir: dir, Scheduler: filepath.Join(dir, "ks")}).resolve(); err == nil || !strings.HasPrefix(err.Error(), "--kube-scheduler "+filepath.Join(dir, "ks")+":") {
		t.Errorf("a given kube-scheduler that is missing: %v", err)
	}
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (UpstreamConfig{Dir: dir, Etcd: data}).resolve(); err == nil || err.Error() != "--etcd "+data+": not executable" {
		t.Errorf("a given etcd that is not executable: %v", err)
	}
	if b, err := (UpstreamConfig{Dir: t.TempDir(), APIServer: api, Etcd: etcd}).resolve(); err != nil || b.apiserver != api || b.etcd != etcd {
		t.Errorf("given paths: %+v, %v", b, err)
	}
}

// TestAPIServerArgs: svcplane's defaults, and extra flags last so that they
// win (pflag keeps the last value).
func TestAPIServerArgs(t *testing.T) {
	args := apiserverArgs("/d", "http://127.0.0.1:1", 2, []string{"--authorization-mode=AlwaysAllow"})
	for _, want := range []string{"--etcd-servers=http://127.0.0.1:1", "--secure-port=2", "--service-cluster-ip-range=10.96.0.0/12",
		"--enable-admission-plugins=NodeRestriction", "--client-ca-file=/d/pki/ca.crt"} {
		if !slices.Contains(args, want) {
			t.Errorf("%v lacks %s", args, want)
		}
	}
	if args[len(args)-1] != "--authorization-mode=AlwaysAllow" || slices.Index(args, "--authorization-mode=Node,RBAC") > len(args)-2 {
		t.Errorf("extra flags not last: %v", args)
	}
}

// TestSvcplaneControllers: kube-controller-manager runs svcplane's
// controllers by their kube-controller-manager names, not the scheduler.
func TestSvcplaneControllers(t *testing.T) {
	cs, err := svcplaneControllers()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(cs, "scheduler") || !slices.Contains(cs, "node-ipam-controller") || !slices.Contains(cs, "endpointslice-controller") {
		t.Errorf("controllers %v", cs)
	}
	args := controllerManagerArgs("/d", "10.128.0.0/14", cs)
	if !slices.Contains(args, "--controllers="+strings.Join(cs, ",")) || !slices.Contains(args, "--cluster-cidr=10.128.0.0/14") ||
		!slices.Contains(args, "--kube-api-qps="+upstreamClientQPS) {
		t.Errorf("args %v", args)
	}
}

// TestSchedulerArgs: the scheduler's own kubeconfig, no serving port, no
// client rate limit to speak of.
func TestSchedulerArgs(t *testing.T) {
	args := schedulerArgs("/d")
	for _, want := range []string{"--kubeconfig=/d/scheduler.kubeconfig", "--secure-port=0", "--kube-api-qps=" + upstreamClientQPS, "--kube-api-burst=" + upstreamClientQPS} {
		if !slices.Contains(args, want) {
			t.Errorf("%v lacks %s", args, want)
		}
	}
}

// TestWriteUpstreamCredentials: the serving certificate covers 127.0.0.1
// under the CA; the simulator's certificate carries svcplane's user and
// group and system:nodes; the ServiceAccount key parses.
func TestWriteUpstreamCredentials(t *testing.T) {
	dir := t.TempDir()
	if err := writeUpstreamCredentials(dir, "https://127.0.0.1:6443"); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	caPEM, err := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if err != nil || !roots.AppendCertsFromPEM(caPEM) {
		t.Fatalf("ca.crt: %v", err)
	}
	serving := readCert(t, filepath.Join(dir, "pki", "apiserver.crt"))
	if _, err := serving.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("serving certificate: %v", err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "node-simulator-kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	sim := parseCert(t, cfg.CertData)
	if groups := slices.Sorted(slices.Values(sim.Subject.Organization)); sim.Subject.CommonName != "svcplane:node-simulator" || !slices.Equal(groups, []string{"svcplane:node-simulators", "system:nodes"}) {
		t.Errorf("simulator certificate %s %v", sim.Subject.CommonName, sim.Subject.Organization)
	}
	if _, err := sim.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("simulator certificate: %v", err)
	}
	if cfg.Host != "https://127.0.0.1:6443" {
		t.Errorf("server %s", cfg.Host)
	}
	for f, user := range map[string]string{"kubeconfig": "bench-admin", "controller-manager.kubeconfig": "system:kube-controller-manager",
		"scheduler.kubeconfig": "system:kube-scheduler"} {
		c, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if cn := parseCert(t, c.CertData).Subject.CommonName; cn != user {
			t.Errorf("%s: user %s, want %s", f, cn, user)
		}
	}
	if _, err := keyutil.PrivateKeyFromFile(filepath.Join(dir, "pki", "sa.key")); err != nil {
		t.Errorf("sa.key: %v", err)
	}
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseCert(t, b)
}

func parseCert(t *testing.T, pemBytes []byte) *x509.Certificate {
	t.Helper()
	certs, err := certutil.ParseCertsPEM(pemBytes)
	if err != nil || len(certs) == 0 {
		t.Fatalf("parsing a certificate: %v", err)
	}
	return certs[0]
}
