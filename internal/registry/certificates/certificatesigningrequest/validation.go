package certificatesigningrequest

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// legacyUnknownSigner is the signer v1 refuses on create.
const legacyUnknownSigner = "kubernetes.io/legacy-unknown"

var (
	// validUsages are upstream's key usages, sorted.
	validUsages = func() []string {
		u := []string{"signing", "digital signature", "content commitment", "key encipherment",
			"key agreement", "data encipherment", "cert sign", "crl sign", "encipher only",
			"decipher only", "any", "server auth", "client auth", "code signing", "email protection",
			"s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping",
			"ocsp signing", "microsoft sgc", "netscape sgc"}
		slices.Sort(u)
		return u
	}()
	trueOnly  = []string{string(corev1.ConditionTrue)}
	allStatus = []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
)

// options are upstream's certificateValidationOptions: what the
// subresource may change, and what stored data keeps being accepted.
type options struct {
	allowSettingApprovalConditions bool
	allowSettingCertificate        bool
	allowBothApprovedAndDenied     bool
	allowLegacySignerName          bool
	allowDuplicateConditionTypes   bool
	allowEmptyConditionType        bool
	allowArbitraryCertificate      bool
	allowUnknownUsages             bool
	allowDuplicateUsages           bool
}

// optionsFor is upstream's getValidationOptions (old nil on create).
func optionsFor(csr, old *certificatesv1.CertificateSigningRequest) options {
	if old == nil {
		return options{}
	}
	o := options{
		allowLegacySignerName:     old.Spec.SignerName == legacyUnknownSigner,
		allowArbitraryCertificate: bytes.Equal(csr.Status.Certificate, old.Status.Certificate) || validateCertificate(old.Status.Certificate) != nil,
	}
	var approved, denied bool
	types := map[certificatesv1.RequestConditionType]bool{}
	for _, c := range old.Status.Conditions {
		approved = approved || c.Type == certificatesv1.CertificateApproved
		denied = denied || c.Type == certificatesv1.CertificateDenied
		o.allowEmptyConditionType = o.allowEmptyConditionType || c.Type == ""
		o.allowDuplicateConditionTypes = o.allowDuplicateConditionTypes || types[c.Type]
		types[c.Type] = true
	}
	o.allowBothApprovedAndDenied = approved && denied
	usages := map[certificatesv1.KeyUsage]bool{}
	for _, u := range old.Spec.Usages {
		o.allowUnknownUsages = o.allowUnknownUsages || !slices.Contains(validUsages, string(u))
		o.allowDuplicateUsages = o.allowDuplicateUsages || usages[u]
		usages[u] = true
	}
	return o
}

// validate is upstream's validateCertificateSigningRequest beyond the
// object meta.
func validate(csr *certificatesv1.CertificateSigningRequest, o options) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if err := checkRequest(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(spec.Child("request"), csr.Spec.Request, err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(spec.Child("usages"), ""))
	}
	seen := map[certificatesv1.KeyUsage]bool{}
	for i, u := range csr.Spec.Usages {
		if !o.allowUnknownUsages && !slices.Contains(validUsages, string(u)) {
			errs = append(errs, field.NotSupported(spec.Child("usages").Index(i), u, validUsages))
		}
		if !o.allowDuplicateUsages && seen[u] {
			errs = append(errs, field.Duplicate(spec.Child("usages").Index(i), u))
		}
		seen[u] = true
	}
	if !o.allowLegacySignerName && csr.Spec.SignerName == legacyUnknownSigner {
		errs = append(errs, field.Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, ValidateSignerName(spec.Child("signerName"), csr.Spec.SignerName)...)
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	errs = append(errs, validateConditions(field.NewPath("status", "conditions"), csr, o)...)
	if !o.allowArbitraryCertificate {
		if err := validateCertificate(csr.Status.Certificate); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// checkRequest parses the PEM CERTIFICATE REQUEST and checks its
// signature.
func checkRequest(data []byte) error {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// validateCertificate: empty, or PEM CERTIFICATE blocks only, without
// headers, each holding certificates.
func validateCertificate(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return fmt.Errorf("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return fmt.Errorf("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return fmt.Errorf("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

func validateConditions(fld *field.Path, csr *certificatesv1.CertificateSigningRequest, o options) field.ErrorList {
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	var approved, denied bool
	for i, c := range csr.Status.Conditions {
		p := fld.Index(i)
		if !o.allowEmptyConditionType && c.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), ""))
		}
		allowed := allStatus
		switch c.Type {
		case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			allowed = trueOnly
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(p.Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(p.Child("status"), c.Status, allowed))
		}
		if !o.allowBothApprovedAndDenied {
			switch c.Type {
			case certificatesv1.CertificateApproved:
				approved = true
				if denied {
					errs = append(errs, field.Invalid(fld, c.Type, "Approved and Denied conditions are mutually exclusive"))
				}
			case certificatesv1.CertificateDenied:
				denied = true
				if approved {
					errs = append(errs, field.Invalid(fld, c.Type, "Approved and Denied conditions are mutually exclusive"))
				}
			}
		}
		if !o.allowDuplicateConditionTypes && seen[c.Type] {
			errs = append(errs, field.Duplicate(p.Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}

// validateUpdateWith returns upstream's validateCertificateSigningRequestUpdate
// with the options a subresource sets (beyond the new object's metadata,
// which the generic strategy checks).
func validateUpdateWith(set func(*options)) func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
		csr, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
		opts := optionsFor(csr, o)
		set(&opts)
		errs := validate(csr, opts)
		conditions := field.NewPath("status", "conditions")
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
			if len(findConditions(csr, t)) < len(findConditions(o, t)) {
				errs = append(errs, field.Forbidden(conditions, fmt.Sprintf("updates may not remove a condition of type %q", t)))
			}
		}
		if !opts.allowSettingApprovalConditions {
			for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
				oldC, newC := findConditions(o, t), findConditions(csr, t)
				switch {
				case len(newC) < len(oldC):
				case len(newC) > len(oldC):
					errs = append(errs, field.Forbidden(conditions, fmt.Sprintf("updates may not add a condition of type %q", t)))
				case !apiequality.Semantic.DeepEqual(oldC, newC):
					errs = append(errs, field.Forbidden(conditions, fmt.Sprintf("updates may not modify a condition of type %q\n%v", t,
						diff.Diff(resource.AsInternal(oldC), resource.AsInternal(newC)))))
				}
			}
		}
		if !bytes.Equal(csr.Status.Certificate, o.Status.Certificate) {
			if !opts.allowSettingCertificate {
				errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"))
			} else if len(o.Status.Certificate) > 0 {
				errs = append(errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
			}
		}
		return errs
	}
}

// withNewMeta adds the new object's metadata check upstream's
// subresource updates run (the generic /status strategy checks only the
// transition).
func withNewMeta(f func(ctx context.Context, obj, old runtime.Object) field.ErrorList) func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
		m, err := meta.Accessor(obj)
		if err != nil {
			return field.ErrorList{field.InternalError(field.NewPath("metadata"), err)}
		}
		errs := resource.ValidateObjectMeta(m, false, func(string, bool) []string { return nil }, field.NewPath("metadata"))
		return append(errs, f(ctx, obj, old)...)
	}
}

func findConditions(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, c)
		}
	}
	return out
}

func secondsToDuration(s int32) time.Duration { return time.Duration(s) * time.Second }
