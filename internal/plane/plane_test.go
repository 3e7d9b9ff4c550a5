package plane

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// TestNewValidatesBeforeItStartsAnything: a bad controller flag is refused
// before the data dir, etcd or the listener exist.
func TestNewValidatesBeforeItStartsAnything(t *testing.T) {
	o := NewServerOptions()
	o.DataDir = filepath.Join(t.TempDir(), "data")
	o.Controllers = []string{"bogus"}
	if _, err := New(context.Background(), o); err == nil {
		t.Fatal("--controllers bogus accepted")
	}
	if _, err := os.Stat(o.DataDir); !os.IsNotExist(err) {
		t.Fatalf("data dir made before validation: %v", err)
	}
}

// TestNewMintsNodeCredentialsAndCloseReleases: New writes the node
// kubeconfig beside the admin one, and Close releases the data dir for the
// next server.
func TestNewMintsNodeCredentialsAndCloseReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded etcd")
	}
	o := NewServerOptions()
	o.DataDir, o.SecurePort, o.BindAddress, o.NodeName = t.TempDir(), 0, "127.0.0.1", "n1"
	p, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(p.NodeKubeconfig)
	if err != nil {
		p.Server.Close()
		t.Fatal(err)
	}
	if _, ok := cfg.AuthInfos["system:node:n1"]; !ok || p.NodeKubeconfig != filepath.Join(o.DataDir, "node-kubeconfig") {
		t.Errorf("node kubeconfig %s holds %v", p.NodeKubeconfig, cfg.AuthInfos)
	}
	if cfg, err = clientcmd.LoadFromFile(p.NodeSimulatorKubeconfig); err != nil {
		t.Error(err)
	} else if _, ok := cfg.AuthInfos["svcplane:node-simulator"]; !ok || p.NodeSimulatorKubeconfig != filepath.Join(o.DataDir, "node-simulator-kubeconfig") {
		t.Errorf("node simulator kubeconfig %s holds %v", p.NodeSimulatorKubeconfig, cfg.AuthInfos)
	}
	p.Server.Close()
	p.Server.Close() // a second Close does nothing
	p2, err := New(context.Background(), o)
	if err != nil {
		t.Fatalf("data dir still held after Close: %v", err)
	}
	p2.Server.Close()
}
