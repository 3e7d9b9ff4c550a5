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
		if err := addFieldLabelConversion(scheme, def); err != nil {
			return err
		}
	}
	return nil
}

// addFieldLabelConversion registers the field selector labels def accepts;
// a def without own labels keeps the scheme's default (metadata only, with
// its own error text), as upstream kinds without a conversion function do.
func addFieldLabelConversion(scheme *runtime.Scheme, def *Definition) error {
	if len(def.FieldLabelNames) == 0 && len(def.FieldLabelAliases) == 0 {
		return nil
	}
	allowed := map[string]string{"metadata.name": "metadata.name"}
	if def.Namespaced {
		allowed["metadata.namespace"] = "metadata.namespace"
	}
	for _, l := range def.FieldLabelNames {
		allowed[l] = l
	}
	for l, to := range def.FieldLabelAliases {
		allowed[l] = to
	}
	format := def.FieldLabelError
	if format == "" {
		format = "field label not supported: %s"
	}
	return scheme.AddFieldLabelConversionFunc(def.GroupVersionKind(), func(label, value string) (string, string, error) {
		if to, ok := allowed[label]; ok {
			return to, value, nil
		}
		return "", "", fmt.Errorf(format, label)
	})
}
