package secret

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestValidateType: the keys each secret type needs.
func TestValidateType(t *testing.T) {
	for _, tc := range []struct {
		typ  corev1.SecretType
		data map[string][]byte
		ann  map[string]string
		want []string
	}{
		{corev1.SecretTypeOpaque, nil, nil, nil},
		{corev1.SecretTypeServiceAccountToken, nil, nil, []string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
		{corev1.SecretTypeServiceAccountToken, nil, map[string]string{"kubernetes.io/service-account.name": "sa"}, nil},
		{corev1.SecretTypeDockerConfigJson, map[string][]byte{".dockerconfigjson": []byte("{")}, nil,
			[]string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`}},
		{corev1.SecretTypeBasicAuth, nil, nil, []string{"data[username]: Required value", "data[password]: Required value"}},
		{corev1.SecretTypeBasicAuth, map[string][]byte{"password": nil}, nil, nil},
		{corev1.SecretTypeTLS, map[string][]byte{"tls.crt": nil}, nil, []string{"data[tls.key]: Required value"}},
		{"example.com/own", nil, nil, nil},
	} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Annotations: tc.ann}, Type: tc.typ, Data: tc.data}
		errs := validate(s)
		if len(errs) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.typ, errs, tc.want)
			continue
		}
		for i := range errs {
			if errs[i].Error() != tc.want[i] {
				t.Errorf("%s: %q, want %q", tc.typ, errs[i].Error(), tc.want[i])
			}
		}
	}
}
