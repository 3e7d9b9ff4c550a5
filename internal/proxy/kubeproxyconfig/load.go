package kubeproxyconfig

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/klog/v2"
	v1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
)

// Load decodes a KubeProxyConfiguration file as kube-proxy does: strictly (unknown and duplicate fields are errors)
// and, when only strictness failed, leniently with a warning; then it
// applies the defaults.
func Load(path string) (*v1alpha1.KubeProxyConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	obj, gvk, err := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		if !runtime.IsStrictDecodingError(err) {
			return nil, fmt.Errorf("failed to decode: %w", err)
		}
		var lenientErr error
		obj, gvk, lenientErr = serializer.NewCodecFactory(scheme, serializer.DisableStrict).UniversalDeserializer().Decode(data, nil, nil)
		if lenientErr != nil {
			return nil, fmt.Errorf("failed lenient decoding: %w", err)
		}
		klog.InfoS("Using lenient decoding as strict decoding failed", "err", err)
	}
	c, ok := obj.(*v1alpha1.KubeProxyConfiguration)
	if !ok {
		return nil, fmt.Errorf("got unexpected config type: %v", gvk)
	}
	SetDefaults(c)
	return c, nil
}
