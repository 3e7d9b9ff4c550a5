package certificatesigningrequest

import (
	"context"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the certificatesigningrequests resource; now stamps
// the conditions' times.
func Definition(now func() metav1.Time) *resource.Definition {
	v1beta1Spec := certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()
	return &resource.Definition{
		GroupVersion: certificatesv1.SchemeGroupVersion, Kind: "CertificateSigningRequest",
		Resource: "certificatesigningrequests", Singular: "certificatesigningrequest", ShortNames: []string{"csr"},
		New:     func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
		NewList: func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} },
		// Upstream's ValidateCertificateRequestName accepts any name (the
		// generic checks still apply).
		NameValidation: func(string, bool) []string { return nil },
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			prepareForCreate(ctx, obj.(*certificatesv1.CertificateSigningRequest))
		},
		PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
			obj.(*certificatesv1.CertificateSigningRequest).Spec = old.(*certificatesv1.CertificateSigningRequest).Spec
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			csr := obj.(*certificatesv1.CertificateSigningRequest)
			return validate(csr, optionsFor(csr, nil))
		},
		// Upstream's update checks the new object (metadata as on create),
		// the transition rules and the metadata's transition.
		ValidateUpdate: validateUpdateWith(func(o *options) {}),
		Status: &resource.StatusDefinition{
			PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
				csr, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
				preserveConditions(csr, o, certificatesv1.CertificateApproved)
				preserveConditions(csr, o, certificatesv1.CertificateDenied)
				stampConditions(csr, o, now())
			},
			ValidateUpdate: withNewMeta(validateUpdateWith(func(o *options) { o.allowSettingCertificate = true })),
			ResetFields:    [][]string{{"spec"}, {"status", "conditions"}},
		},
		Subresources: map[string]*resource.StatusDefinition{
			"approval": {
				PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
					csr, o := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
					stampConditions(csr, o, now())
					conditions := csr.Status.Conditions
					csr.Status = o.Status
					csr.Status.Conditions = conditions
				},
				ValidateUpdate: withNewMeta(validateUpdateWith(func(o *options) { o.allowSettingApprovalConditions = true })),
				ResetFields:    [][]string{{"spec"}, {"status", "certificate"}},
			},
		},
		FieldLabelNames: []string{"spec.signerName"},
		FieldLabels: func(obj runtime.Object) fields.Set {
			return fields.Set{"spec.signerName": obj.(*certificatesv1.CertificateSigningRequest).Spec.SignerName}
		},
		Columns: []metav1.TableColumnDefinition{
			resource.AgeColumn,
			// kube-apiserver describes these with v1beta1's docs.
			resource.Column("SignerName", "string", 0, v1beta1Spec["signerName"]),
			resource.Column("Requestor", "string", 0, v1beta1Spec["request"]),
			resource.Column("RequestedDuration", "string", 0, v1beta1Spec["expirationSeconds"]),
			resource.Column("Condition", "string", 0, certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]),
		},
		Row: func(obj runtime.Object) []interface{} {
			csr := obj.(*certificatesv1.CertificateSigningRequest)
			signer, requested := "<none>", "<none>"
			if csr.Spec.SignerName != "" {
				signer = csr.Spec.SignerName
			}
			if s := csr.Spec.ExpirationSeconds; s != nil {
				requested = duration.HumanDuration(secondsToDuration(*s))
			}
			return []interface{}{resource.AgeOf(obj), signer, csr.Spec.Username, requested, conditionColumn(csr)}
		},
	}
}

// prepareForCreate writes the requester's identity into spec and starts
// with an empty status (upstream's PrepareForCreate).
func prepareForCreate(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) {
	s := &csr.Spec
	s.Username, s.UID, s.Groups, s.Extra = "", "", nil, nil
	if u, ok := genericapirequest.UserFrom(ctx); ok {
		s.Username, s.UID, s.Groups = u.GetName(), u.GetUID(), u.GetGroups()
		if extra := u.GetExtra(); len(extra) > 0 {
			s.Extra = map[string]certificatesv1.ExtraValue{}
			for k, v := range extra {
				s.Extra[k] = v
			}
		}
	}
	csr.Status = certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{}}
}

// conditionColumn is upstream's extractCSRStatus.
func conditionColumn(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	if denied {
		status = "Denied"
	} else if approved {
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}
