package resource

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the defaulting functions, the conversions and the accepted field
// selector labels of defs in scheme.
func AddToScheme(scheme *runtime.Scheme, defs []*Definition) error {
	for _, def := range defs {
		if def.Default != nil {
			d := def.Default
			scheme.AddTypeDefaultingFunc(def.New(), func(obj interface{}) { d(obj.(runtime.Object)) })
		}
		if def.Conversions != nil {
			if err := def.Conversions(scheme); err != nil {
				return err
			}
		}
		allowed := map[string]bool{"metadata.name": true}
		if def.Namespaced {
			allowed["metadata.namespace"] = true
		}
		for _, l := range def.FieldLabelNames {
			allowed[l] = true
		}
		err := scheme.AddFieldLabelConversionFunc(def.GroupVersionKind(), func(label, value string) (string, string, error) {
			if allowed[label] {
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
