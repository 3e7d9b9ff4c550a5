// Package queryparams decodes the core/v1 option kinds that travel as URL
// query parameters (PodLogOptions, PodExecOptions, PodAttachOptions,
// PodPortForwardOptions, PodProxyOptions, NodeProxyOptions) as
// kube-apiserver's generated url.Values conversions do (the kubelet
// decodes PodLogOptions the same way). k8s.io/api has no such
// conversions; AddConversions registers these in a scheme so the generic
// server's ParameterCodec can decode the pods and nodes subresources'
// options.
package queryparams
