package plane

import (
	"fmt"
	"os"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/auth/node"
	"github.com/svcplane/svcplane/internal/kubeconfig"
	"github.com/svcplane/svcplane/internal/pki"
)

// WriteKubeconfig mints a client certificate for user in groups, signed
// by the cluster CA in dataDir (which a server made there before), and
// writes a kubeconfig with it to path; server "" is the URL of
// <data-dir>/kubeconfig. It is `svcplane kubeconfig`.
func WriteKubeconfig(dataDir, path, user string, groups []string, server string) error {
	if user == "" {
		return fmt.Errorf("--user is required")
	}
	o := apiserver.NewOptions()
	o.DataDir = dataDir
	if _, err := os.Stat(o.PKIDir()); err != nil {
		return fmt.Errorf("no cluster CA in %s (start `svcplane server` or `svcplane up` with this --data-dir first): %w", o.PKIDir(), err)
	}
	ca, err := pki.LoadOrCreateCA(o.PKIDir(), "svcplane-ca")
	if err != nil {
		return err
	}
	certFile, keyFile, err := ca.EnsureClient(o.PKIDir(), "client-"+safeName(user), user, groups)
	if err != nil {
		return err
	}
	if server == "" {
		if server, err = kubeconfig.ServerOf(o.KubeconfigPath()); err != nil {
			return err
		}
	}
	return kubeconfig.Write(path, kubeconfig.Config{Server: server, CAFile: ca.CertFile, User: user, CertFile: certFile, KeyFile: keyFile})
}

// writeNodeKubeconfigs mints the node agent's credentials: a client
// certificate for user system:node:<NodeName> in group system:nodes, as a
// kubelet's, in <data-dir>/node-kubeconfig (one node, under the Node
// authorizer and NodeRestriction), and the node simulator's, user
// svcplane:node-simulator in group svcplane:node-simulators (the
// system:node role's rights for any number of nodes), in
// <data-dir>/node-simulator-kubeconfig.
func (p *Plane) writeNodeKubeconfigs() error {
	if err := p.writeClientKubeconfig(p.NodeKubeconfig, "node", node.UserName(p.Options.NodeName), apiserver.GroupNodes); err != nil {
		return err
	}
	return p.writeClientKubeconfig(p.NodeSimulatorKubeconfig, "node-simulator", apiserver.UserNodeSimulator, apiserver.GroupNodeSimulators)
}

func (p *Plane) writeClientKubeconfig(path, certName, user, group string) error {
	s := p.Server
	cert, key, err := s.CA().EnsureClient(p.Options.PKIDir(), certName, user, []string{group})
	if err != nil {
		return err
	}
	return kubeconfig.Write(path, kubeconfig.Config{
		Server: s.URL, CAFile: s.CA().CertFile, User: user, CertFile: cert, KeyFile: key,
	})
}

// safeName turns a user name into a file name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}
