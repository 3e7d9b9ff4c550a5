package plane

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/svcplane/svcplane/internal/node/kubelet"
	"github.com/svcplane/svcplane/internal/pki"
)

// kubeletAPIConfig is the kubelet API of an agent on cfg (the node
// credentials): client certificates of clientCA's bundle and tokens are
// checked, and every request authorized, by the API server; ca (nil:
// self-signed certificates) signs each node's serving certificate.
func kubeletAPIConfig(cfg *rest.Config, clientCA []byte, ca *pki.CA, bind, advertise string) (*kubelet.Config, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	authn, authz, err := kubelet.DelegatingAuth(client, clientCA)
	if err != nil {
		return nil, err
	}
	kc := &kubelet.Config{Authenticator: authn, Authorizer: authz, BindAddress: bind, AdvertiseAddress: advertise}
	if ca != nil {
		kc.Certificate = func(node string, hosts []string) (*tls.Certificate, error) {
			certPEM, keyPEM, err := ca.ServingPEM(node, hosts, 365*24*time.Hour)
			if err != nil {
				return nil, err
			}
			c, err := tls.X509KeyPair(certPEM, keyPEM)
			return &c, err
		}
	}
	return kc, nil
}

// kubeletBindAddress is where up's local kubelet APIs listen: the
// advertise address when it is this host's, else every address (an
// advertise address behind NAT).
func kubeletBindAddress(advertise net.IP) string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(advertise) {
				return advertise.String()
			}
		}
	}
	return "0.0.0.0"
}

// clientCABundle is the CA bundle of the kubelet's --client-ca-file: the
// file, else the CA of the kubeconfig (svcplane's cluster CA signs both
// the API server's and the clients' certificates).
func clientCABundle(file string, cfg *rest.Config) ([]byte, error) {
	switch {
	case file != "":
		return os.ReadFile(file)
	case len(cfg.CAData) > 0:
		return cfg.CAData, nil
	case cfg.CAFile != "":
		return os.ReadFile(cfg.CAFile)
	}
	return nil, fmt.Errorf("the kubelet API needs --client-ca-file (the kubeconfig names no CA)")
}
