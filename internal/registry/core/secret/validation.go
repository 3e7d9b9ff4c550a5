package secret

import (
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/configmap"
)

// validate checks a secret as upstream's ValidateSecret: keys, size, and
// what its type requires.
func validate(s *corev1.Secret) field.ErrorList {
	data := field.NewPath("data")
	var errs field.ErrorList
	size := 0
	for k, v := range s.Data {
		errs = append(errs, configmap.ValidateKey(data, k)...)
		size += len(v)
	}
	if size > configmap.MaxSize {
		errs = append(errs, field.TooLong(data, "", configmap.MaxSize))
	}
	return append(errs, validateType(s, data)...)
}

// validateType checks the keys a secret's type requires.
func validateType(s *corev1.Secret, data *field.Path) field.ErrorList {
	required := func(keys ...string) field.ErrorList {
		var errs field.ErrorList
		for _, k := range keys {
			errs = append(errs, field.Required(data.Key(k), ""))
		}
		return errs
	}
	jsonKey := func(key string) field.ErrorList {
		b, ok := s.Data[key]
		if !ok {
			return required(key)
		}
		if err := json.Unmarshal(b, &map[string]interface{}{}); err != nil {
			return field.ErrorList{field.Invalid(data.Key(key), "<secret contents redacted>", err.Error())}
		}
		return nil
	}
	has := func(k string) bool { _, ok := s.Data[k]; return ok }
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), "")}
		}
	case corev1.SecretTypeDockercfg:
		return jsonKey(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		return jsonKey(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		if !has(corev1.BasicAuthUsernameKey) && !has(corev1.BasicAuthPasswordKey) {
			return required(corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			return required(corev1.SSHAuthPrivateKey)
		}
	case corev1.SecretTypeTLS:
		var errs field.ErrorList
		for _, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
			if !has(k) {
				errs = append(errs, required(k)...)
			}
		}
		return errs
	}
	return nil
}

// validateUpdate: the type never changes, an immutable secret keeps its
// data and stays immutable; the new secret is checked as on create.
func validateUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := apivalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))
	if old.Immutable != nil && *old.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), configmap.ImmutableMsg))
		}
		if !reflect.DeepEqual(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), configmap.ImmutableMsg))
		}
	}
	return append(errs, validate(s)...)
}
