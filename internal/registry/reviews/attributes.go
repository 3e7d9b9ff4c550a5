package reviews

import (
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// attributesFor is the authorizer question a review spec asks for u.
func attributesFor(u user.Info, res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	if res == nil {
		return authorizer.AttributesRecord{User: u, Path: nonRes.Path, Verb: nonRes.Verb}
	}
	version := res.Version
	if version == "" {
		version = "*"
	}
	a := authorizer.AttributesRecord{User: u, Verb: res.Verb, Namespace: res.Namespace, APIGroup: res.Group,
		APIVersion: version, Resource: res.Resource, Subresource: res.Subresource, Name: res.Name, ResourceRequest: true}
	if s := res.LabelSelector; s != nil {
		if s.RawSelector != "" {
			if sel, err := labels.Parse(s.RawSelector); err != nil {
				a.LabelSelectorParsingErr = err
			} else {
				a.LabelSelectorRequirements, _ = sel.Requirements()
			}
		}
		if len(s.Requirements) > 0 {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = labelRequirements(s.Requirements)
		}
	}
	if s := res.FieldSelector; s != nil {
		if s.RawSelector != "" {
			if sel, err := fields.ParseSelector(s.RawSelector); err != nil {
				a.FieldSelectorParsingErr = err
			} else {
				a.FieldSelectorRequirements = sel.Requirements()
			}
		}
		if len(s.Requirements) > 0 {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = fieldRequirements(s.Requirements)
		}
	}
	return a
}

// subjectOf is the user a SubjectAccessReview spec names.
func subjectOf(spec *authorizationv1.SubjectAccessReviewSpec) user.Info {
	u := &user.DefaultInfo{Name: spec.User, Groups: spec.Groups, UID: spec.UID}
	if spec.Extra != nil {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

var labelOps = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

// labelRequirements keeps the requirements it understands and reports the
// others: requirements are ANDed, so dropping one only widens the question.
func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var reqs labels.Requirements
	var errs []error
	for _, r := range in {
		op, ok := labelOps[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, *req)
	}
	return reqs, utilerrors.NewAggregate(errs)
}

// fieldRequirements: In and NotIn with one value each, as Equals and
// NotEquals (how a parsed field selector reads).
func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var reqs fields.Requirements
	var errs []error
	for _, r := range in {
		if len(r.Values) > 1 {
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support multiple values"))
			continue
		}
		switch r.Operator {
		case metav1.FieldSelectorOpIn, metav1.FieldSelectorOpNotIn:
			if len(r.Values) != 1 {
				word := "in"
				if r.Operator == metav1.FieldSelectorOpNotIn {
					word = "not in"
				}
				errs = append(errs, fmt.Errorf("fieldSelectors %s must have one value", word))
				continue
			}
			op := selection.Equals
			if r.Operator == metav1.FieldSelectorOpNotIn {
				op = selection.NotEquals
			}
			reqs = append(reqs, fields.Requirement{Field: r.Key, Operator: op, Value: r.Values[0]})
		case metav1.FieldSelectorOpExists, metav1.FieldSelectorOpDoesNotExist:
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support %v", r.Operator))
		default:
			errs = append(errs, fmt.Errorf("%q is not a valid field selector operator", r.Operator))
		}
	}
	return reqs, utilerrors.NewAggregate(errs)
}

// evaluationError is the status's evaluationError: the authorizer's error
// and the selectors that could not be (fully) used.
func evaluationError(err error, a authorizer.AttributesRecord) string {
	var out []string
	if err != nil {
		out = append(out, err.Error())
	}
	if reqs, err := a.GetFieldSelector(); err != nil {
		out = append(out, "spec.resourceAttributes.fieldSelector "+ignored(len(reqs) > 0))
	}
	if reqs, err := a.GetLabelSelector(); err != nil {
		out = append(out, "spec.resourceAttributes.labelSelector "+ignored(len(reqs) > 0))
	}
	return strings.Join(out, "; ")
}

func ignored(partially bool) string {
	if partially {
		return "partially ignored due to parse error"
	}
	return "ignored due to parse error"
}
