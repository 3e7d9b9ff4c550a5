package apiserver

import (
	"fmt"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"

	"github.com/svcplane/svcplane/internal/pki"
)

// kubeadm's front-proxy names: the CA that vouches for the proxy, the
// proxy's client certificate (its CN is the one allowed name) and the
// headers it sets.
const (
	frontProxyCA     = "front-proxy-ca"
	frontProxyClient = "front-proxy-client"
)

// applyFrontProxy settles the request-header authentication and the
// aggregator's client certificate. Given none of kube-apiserver's flags
// for them, svcplane does as kubeadm: <pki>/front-proxy-ca.{crt,key}
// signs <pki>/front-proxy-client.{crt,key} (CN front-proxy-client), and
// X-Remote-User, X-Remote-Group, X-Remote-Extra- are trusted from that
// client only. It returns nil when request headers are not trusted.
func (s *Server) applyFrontProxy(o *Options) (*authenticatorfactory.RequestHeaderConfig, error) {
	rh := o.RequestHeader
	s.proxyClientCert, s.proxyClientKey = o.ProxyClientCertFile, o.ProxyClientKeyFile
	if rh.ClientCAFile == "" && s.proxyClientCert == "" {
		ca, err := pki.LoadOrCreateNamedCA(o.PKIDir(), frontProxyCA, frontProxyCA)
		if err != nil {
			return nil, fmt.Errorf("front-proxy CA: %w", err)
		}
		if s.proxyClientCert, s.proxyClientKey, err = ca.EnsureClient(o.PKIDir(), frontProxyClient, frontProxyClient, nil); err != nil {
			return nil, fmt.Errorf("front-proxy client certificate: %w", err)
		}
		rh.ClientCAFile = ca.CertFile
		rh.AllowedNames = []string{frontProxyClient}
		rh.UsernameHeaders = []string{"X-Remote-User"}
		rh.GroupHeaders = []string{"X-Remote-Group"}
		rh.ExtraHeaderPrefixes = []string{"X-Remote-Extra-"}
	}
	return rh.ToAuthenticationRequestHeaderConfig()
}

// requestHeaderAuthenticator trusts the user a front proxy names in
// headers, once its client certificate verifies (kube-apiserver's).
func requestHeaderAuthenticator(c *authenticatorfactory.RequestHeaderConfig) authenticator.Request {
	return headerrequest.NewDynamicVerifyOptionsSecure(c.CAContentProvider.VerifyOptions, c.AllowedClientNames,
		c.UsernameHeaders, c.UIDHeaders, c.GroupHeaders, c.ExtraHeaderPrefixes)
}
