package pod

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// probeKind distinguishes the rules of liveness, readiness and startup
// probes.
type probeKind int

const (
	liveness probeKind = iota
	readiness
	startup
)

// validateProbe checks a probe as upstream's validateLivenessProbe,
// validateReadinessProbe and validateStartupProbe.
func validateProbe(pr *corev1.Probe, kind probeKind, grace *int64, fld *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	h := pr.ProbeHandler
	errs := validateHandler(handler{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, grpc: h.GRPC}, grace, fld)
	for _, f := range []struct {
		name string
		v    int32
	}{{"initialDelaySeconds", pr.InitialDelaySeconds}, {"timeoutSeconds", pr.TimeoutSeconds}, {"periodSeconds", pr.PeriodSeconds},
		{"successThreshold", pr.SuccessThreshold}, {"failureThreshold", pr.FailureThreshold}} {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(f.v), fld.Child(f.name))...)
	}
	if g := pr.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(fld.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	switch {
	case kind != readiness && pr.SuccessThreshold != 1:
		errs = append(errs, field.Invalid(fld.Child("successThreshold"), pr.SuccessThreshold, "must be 1"))
	case kind == readiness && pr.TerminationGracePeriodSeconds != nil:
		errs = append(errs, field.Invalid(fld.Child("terminationGracePeriodSeconds"), pr.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
	}
	return errs
}

// handler is what probes and lifecycle hooks have in common.
type handler struct {
	exec      *corev1.ExecAction
	httpGet   *corev1.HTTPGetAction
	tcpSocket *corev1.TCPSocketAction
	grpc      *corev1.GRPCAction
	sleep     *corev1.SleepAction
}

// validateHandler: exactly one action, each valid (upstream's
// validateHandler).
func validateHandler(h handler, grace *int64, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	one := func(set bool, name string, check func(*field.Path) field.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(fld.Child(name), "may not specify more than 1 handler type"))
			return
		}
		n++
		errs = append(errs, check(fld.Child(name))...)
	}
	one(h.exec != nil, "exec", func(p *field.Path) field.ErrorList {
		if len(h.exec.Command) == 0 {
			return field.ErrorList{field.Required(p.Child("command"), "")}
		}
		return nil
	})
	one(h.httpGet != nil, "httpGet", func(p *field.Path) field.ErrorList { return validateHTTPGet(h.httpGet, p) })
	one(h.tcpSocket != nil, "tcpSocket", func(p *field.Path) field.ErrorList { return validatePortNumOrName(h.tcpSocket.Port, p.Child("port")) })
	one(h.grpc != nil, "grpc", func(p *field.Path) field.ErrorList {
		return validatePortNumOrName(intstr.FromInt32(h.grpc.Port), p.Child("port"))
	})
	one(h.sleep != nil, "sleep", func(p *field.Path) field.ErrorList {
		if grace != nil && (h.sleep.Seconds < 0 || h.sleep.Seconds > *grace) {
			return field.ErrorList{field.Invalid(p, h.sleep.Seconds,
				fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *grace))}
		}
		return nil
	})
	if n == 0 {
		errs = append(errs, field.Required(fld, "must specify a handler type"))
	}
	return errs
}

func validateHTTPGet(h *corev1.HTTPGetAction, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	errs = append(errs, validatePortNumOrName(h.Port, fld.Child("port"))...)
	if h.Scheme != corev1.URISchemeHTTP && h.Scheme != corev1.URISchemeHTTPS {
		errs = append(errs, field.NotSupported(fld.Child("scheme"), h.Scheme, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
	}
	for _, hdr := range h.HTTPHeaders {
		for _, msg := range validation.IsHTTPHeaderName(hdr.Name) {
			errs = append(errs, field.Invalid(fld.Child("httpHeaders"), hdr.Name, msg))
		}
	}
	return errs
}

func validatePortNumOrName(port intstr.IntOrString, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.Int {
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(fld, port.IntValue(), msg))
		}
		return errs
	}
	for _, msg := range validation.IsValidPortName(port.StrVal) {
		errs = append(errs, field.Invalid(fld, port.StrVal, msg))
	}
	return errs
}

// validateLifecycle checks the hooks (upstream's validateLifecycle; the
// stop signal is not checked).
func validateLifecycle(lc *corev1.Lifecycle, grace *int64, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, hk := range []struct {
		name string
		h    *corev1.LifecycleHandler
	}{{"postStart", lc.PostStart}, {"preStop", lc.PreStop}} {
		if hk.h != nil {
			errs = append(errs, validateHandler(handler{exec: hk.h.Exec, httpGet: hk.h.HTTPGet, tcpSocket: hk.h.TCPSocket,
				sleep: hk.h.Sleep}, grace, fld.Child(hk.name))...)
		}
	}
	return errs
}
