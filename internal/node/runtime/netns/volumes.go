package netns

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readVolumeFile reads the file at name (an absolute path in container c)
// from the pod's volume mounted there, as the kubelet would have written
// it: Secret and ConfigMap volumes (also as projected sources), with their
// items. The runtime's built-in programs read their files (certificates,
// configuration) this way; host programs see the host's filesystem.
func (p *pod) readVolumeFile(ctx context.Context, c *corev1.Container, name string) ([]byte, error) {
	name = path.Clean(name)
	var mount *corev1.VolumeMount
	for i := range c.VolumeMounts {
		m := &c.VolumeMounts[i]
		mp := path.Clean(m.MountPath)
		if strings.HasPrefix(name, mp+"/") && (mount == nil || len(mp) > len(path.Clean(mount.MountPath))) {
			mount = m
		}
	}
	if mount == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	rel := strings.TrimPrefix(name, path.Clean(mount.MountPath)+"/")
	if mount.SubPath != "" {
		rel = path.Join(mount.SubPath, rel)
	}
	var vol *corev1.Volume
	for i := range p.spec.Spec.Volumes {
		if p.spec.Spec.Volumes[i].Name == mount.Name {
			vol = &p.spec.Spec.Volumes[i]
		}
	}
	if vol == nil {
		return nil, fmt.Errorf("volume %q of mount %s not found", mount.Name, mount.MountPath)
	}
	files, err := p.volumeFiles(ctx, vol.VolumeSource)
	if err != nil {
		return nil, err
	}
	b, ok := files[rel]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return b, nil
}

// volumeFiles are a volume's files by path, read from the API now.
func (p *pod) volumeFiles(ctx context.Context, src corev1.VolumeSource) (map[string][]byte, error) {
	switch {
	case src.Secret != nil:
		return p.secretFiles(ctx, src.Secret.SecretName, src.Secret.Items, src.Secret.Optional)
	case src.ConfigMap != nil:
		return p.configMapFiles(ctx, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional)
	case src.Projected != nil:
		out := map[string][]byte{}
		for _, s := range src.Projected.Sources {
			var files map[string][]byte
			var err error
			switch {
			case s.Secret != nil:
				files, err = p.secretFiles(ctx, s.Secret.Name, s.Secret.Items, s.Secret.Optional)
			case s.ConfigMap != nil:
				files, err = p.configMapFiles(ctx, s.ConfigMap.Name, s.ConfigMap.Items, s.ConfigMap.Optional)
			default:
				continue
			}
			if err != nil {
				return nil, err
			}
			for k, v := range files {
				out[k] = v
			}
		}
		return out, nil
	}
	return nil, errors.New("the netns runtime reads only secret, configMap and projected volumes")
}

func (p *pod) secretFiles(ctx context.Context, name string, items []corev1.KeyToPath, optional *bool) (map[string][]byte, error) {
	s, err := p.r.cfg.Client.CoreV1().Secrets(p.spec.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	return projectKeys(s.Data, items, "references non-existent secret key: ", optional)
}

func (p *pod) configMapFiles(ctx context.Context, name string, items []corev1.KeyToPath, optional *bool) (map[string][]byte, error) {
	cm, err := p.r.cfg.Client.CoreV1().ConfigMaps(p.spec.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	data := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return projectKeys(data, items, "configmap references non-existent config key: ", optional)
}

// projectKeys maps keys to file paths as the kubelet's volume plugins do:
// every key under its own name, or only the items under their paths (a
// missing item key is an error, in the kubelet's words, unless the source
// is optional).
func projectKeys(data map[string][]byte, items []corev1.KeyToPath, missing string, optional *bool) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(items) == 0 {
		for k, v := range data {
			out[k] = v
		}
		return out, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional != nil && *optional {
				continue
			}
			return nil, errors.New(missing + it.Key)
		}
		out[path.Clean(it.Path)] = v
	}
	return out, nil
}
