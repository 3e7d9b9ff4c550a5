package apiserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/svcplane/svcplane/internal/kubeletclient"
	"github.com/svcplane/svcplane/internal/registry/core/node"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// installKubeletSubresources adds the subresources kube-apiserver proxies
// to kubelets: pods/log, pods/exec, pods/attach, pods/portforward and
// nodes/proxy, reaching each node's kubelet API as cfg says.
func installKubeletSubresources(core *genericapiserver.APIGroupInfo, byResource map[string]map[string]rest.Storage, cfg kubeletclient.Config, authz authorizer.Authorizer) error {
	nodes, ok := byResource["nodes"]["nodes"].(rest.Getter)
	pods, ok2 := byResource["pods"]["pods"].(rest.Getter)
	if !ok || !ok2 {
		return fmt.Errorf("kubelet subresources: no pods or nodes storage")
	}
	conn, err := kubeletclient.New(cfg, func(ctx context.Context, name string) (*corev1.Node, error) {
		obj, err := nodes.Get(genericapirequest.WithNamespace(ctx, ""), name, &metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		n, ok := obj.(*corev1.Node)
		if !ok {
			return nil, fmt.Errorf("unexpected object type: %T", obj)
		}
		return n, nil
	})
	if err != nil {
		return err
	}
	m := core.VersionedResourcesStorageMap["v1"]
	m["pods/log"] = &pod.LogREST{Pods: pods, Kubelet: conn}
	for _, kind := range []string{"exec", "attach", "portforward"} {
		m["pods/"+kind] = &pod.StreamREST{Pods: pods, Kubelet: conn, Authorizer: authz, Kind: kind}
	}
	// Other ports of a node than the kubelet's: kube-apiserver's proxy
	// transport (TLS unverified).
	proxyTransport := utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}) //nolint:gosec // as upstream
	m["nodes/proxy"] = &node.ProxyREST{Kubelet: conn, ProxyTransport: proxyTransport}
	m["pods/proxy"] = &pod.ProxyREST{Pods: pods, Transport: proxyTransport}
	return nil
}
