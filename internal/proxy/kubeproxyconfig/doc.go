// Package kubeproxyconfig is kube-proxy v1.36's KubeProxyConfiguration
// (kubeproxy.config.k8s.io/v1alpha1, k8s.io/kube-proxy's type) as
// kube-proxy reads it: its defaults (SetDefaults), its file decoding
// (Load: strict, then lenient with a warning), the resolved settings it
// runs with (Settings: the mode's sync periods and masqueradeAll taken out
// of the mode's section; ApplyPlatformDefaults: mode "" is iptables) and
// its validation (Validate).
//
// Guarantees: each function is upstream's behaviour, written here because
// upstream's lives in k8s.io/kubernetes; test/drift runs the same inputs
// through both.
package kubeproxyconfig
