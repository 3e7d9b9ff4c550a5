package certificatesigningrequest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateSignerName checks a signer name as upstream's core
// ValidateSignerName: a domain of at least two DNS labels, one '/', a
// path of DNS subdomains; the first bad label of each part reported.
func ValidateSignerName(fld *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	segments := strings.Split(name, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(fld, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	domain, path := segments[0], segments[1]
	if len(domain) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.TooLong(fld, "", validation.DNS1123SubdomainMaxLength))
	}
	labels := strings.Split(domain, ".")
	errs = append(errs, firstBadLabel(fld, domain, labels, validation.IsDNS1123Label)...)
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(fld, domain, "should be a domain with at least two segments separated by dots"))
	}
	errs = append(errs, firstBadLabel(fld, path, strings.Split(path, "."), validation.IsDNS1123Subdomain)...)
	maxPath := validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 1
	if maxLen := validation.DNS1123SubdomainMaxLength + maxPath + 1; len(name) > maxLen {
		errs = append(errs, field.TooLong(fld, "", maxLen))
	}
	return errs
}

// firstBadLabel reports every message of the first label check refuses.
func firstBadLabel(fld *field.Path, part string, labels []string, check func(string) []string) field.ErrorList {
	for _, l := range labels {
		if msgs := check(l); len(msgs) > 0 {
			var errs field.ErrorList
			for _, m := range msgs {
				errs = append(errs, field.Invalid(fld, part, fmt.Sprintf("validating label %q: %s", l, m)))
			}
			return errs
		}
	}
	return nil
}
