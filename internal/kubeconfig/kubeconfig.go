package kubeconfig

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Config is what a kubeconfig for one identity holds.
type Config struct {
	Server string
	CAFile string
	User   string
	// Either a client certificate and key, or a bearer token.
	CertFile, KeyFile string
	Token             string
}

// Write writes c to path (mode 0600), with the CA and the client
// credentials embedded.
func Write(path string, c Config) error {
	ca, err := os.ReadFile(c.CAFile)
	if err != nil {
		return err
	}
	auth := &clientcmdapi.AuthInfo{Token: c.Token}
	if c.CertFile != "" {
		if auth.ClientCertificateData, err = os.ReadFile(c.CertFile); err != nil {
			return err
		}
		if auth.ClientKeyData, err = os.ReadFile(c.KeyFile); err != nil {
			return err
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["svcplane"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: ca}
	cfg.AuthInfos[c.User] = auth
	cfg.Contexts["svcplane"] = &clientcmdapi.Context{Cluster: "svcplane", AuthInfo: c.User, Namespace: "default"}
	cfg.CurrentContext = "svcplane"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

// ServerOf returns the server URL of the current context of the kubeconfig
// at path.
func ServerOf(path string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return "", err
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return "", fmt.Errorf("%s: no current context", path)
	}
	cluster, ok := cfg.Clusters[ctx.Cluster]
	if !ok {
		return "", fmt.Errorf("%s: no cluster %q", path, ctx.Cluster)
	}
	return cluster.Server, nil
}
