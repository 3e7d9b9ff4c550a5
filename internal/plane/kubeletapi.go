package plane

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/node/kubelet"
	"github.com/svcplane/svcplane/internal/pki"
)

// applyKubeletClientBinding binds the API server's kubelet client
// identity to system:kubelet-api-admin, as kubeadm does (server-side
// apply: an edited binding is put back at each start).
func applyKubeletClientBinding(ctx context.Context, client kubernetes.Interface) error {
	b := rbacv1ac.ClusterRoleBinding(apiserver.KubeletClientBinding).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(apiserver.RoleKubeletAPIAdmin)).
		WithSubjects(rbacv1ac.Subject().WithAPIGroup(rbacv1.GroupName).WithKind(rbacv1.UserKind).WithName(apiserver.UserKubeletClient))
	_, err := client.RbacV1().ClusterRoleBindings().Apply(ctx, b, metav1.ApplyOptions{FieldManager: "svcplane", Force: true})
	return err
}

// addKubeletClientBinding applies the binding once the server serves,
// retrying for a while; it does not hold up /readyz.
func (p *Plane) addKubeletClientBinding() error {
	return p.Server.AddPostStartHook("svcplane-apiserver-kubelet-client-binding", func(hc genericapiserver.PostStartHookContext) error {
		client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return err
		}
		p.loops.start(hc, func(ctx context.Context) {
			var last error
			if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				last = applyKubeletClientBinding(ctx, client)
				return last == nil, nil
			}); err != nil && ctx.Err() == nil {
				klog.ErrorS(last, "Unable to bind the API server's kubelet client to system:kubelet-api-admin", "clusterrolebinding", apiserver.KubeletClientBinding)
			}
		})
		return nil
	})
}

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
