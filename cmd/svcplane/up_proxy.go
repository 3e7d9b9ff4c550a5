package main

import (
	"fmt"

	"github.com/spf13/pflag"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/proxy/app"
)

// addUpProxyFlags registers up's proxy flag.
func addUpProxyFlags(fs *pflag.FlagSet, mode *string) {
	fs.StringVar(mode, "proxy-mode", *mode, "Service proxy of the local node run in this process: nftables, iptables, ipvs, userspace, or none. It needs root; without it up runs on and says why.")
}

// addLocalProxy runs the service proxy of the single local node in this
// process once the server serves, with the admin credentials (it is the
// same process). A proxy that cannot program the kernel (not root, no
// nftables) is logged and leaves the rest of up running.
func addLocalProxy(s *apiserver.Server, nodes int, mode string) error {
	switch mode {
	case "none":
		return nil
	case "nftables", "iptables", "ipvs", "userspace":
	default:
		return fmt.Errorf("--proxy-mode %q: want nftables, iptables, ipvs, userspace or none", mode)
	}
	if nodes != 1 {
		klog.InfoS("Not starting the service proxy: it serves one local node", "nodes", nodes)
		return nil
	}
	pc := app.Defaults()
	pc.Mode, pc.HostnameOverride, pc.ClusterCIDR = mode, s.Options.NodeName, s.Options.ClusterCIDR
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return err
	}
	return s.AddPostStartHook("start-service-proxy", func(hc genericapiserver.PostStartHookContext) error {
		go func() {
			if err := app.RunForConfig(hc, pc, cfg); err != nil {
				klog.ErrorS(err, "Service proxy stopped; the rest of svcplane up runs on (the proxy needs root and nftables)")
			}
		}()
		return nil
	})
}
