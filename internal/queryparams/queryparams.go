package queryparams

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// param decodes one query parameter that is present with a value.
type param struct {
	name   string
	decode func(values *[]string) error
}

func decode(in url.Values, fields []param) error {
	for _, f := range fields {
		if values, ok := in[f.name]; ok && len(values) > 0 {
			if err := f.decode(&values); err != nil {
				return err
			}
		}
	}
	return nil
}

func str(name string, out *string) param {
	return param{name, func(v *[]string) error { return runtime.Convert_Slice_string_To_string(v, out, nil) }}
}

func boolean(name string, out *bool) param {
	return param{name, func(v *[]string) error { return runtime.Convert_Slice_string_To_bool(v, out, nil) }}
}

func int64Ptr(name string, out **int64) param {
	return param{name, func(v *[]string) error { return runtime.Convert_Slice_string_To_Pointer_int64(v, out, nil) }}
}

// PodLogOptions decodes in as upstream's url.Values → v1.PodLogOptions.
func PodLogOptions(in url.Values, out *corev1.PodLogOptions) error {
	return decode(in, []param{
		str("container", &out.Container),
		boolean("follow", &out.Follow),
		boolean("previous", &out.Previous),
		int64Ptr("sinceSeconds", &out.SinceSeconds),
		{"sinceTime", func(v *[]string) error { return metav1.Convert_Slice_string_To_Pointer_v1_Time(v, &out.SinceTime, nil) }},
		boolean("timestamps", &out.Timestamps),
		int64Ptr("tailLines", &out.TailLines),
		int64Ptr("limitBytes", &out.LimitBytes),
		boolean("insecureSkipTLSVerifyBackend", &out.InsecureSkipTLSVerifyBackend),
		{"stream", func(v *[]string) error {
			s := (*v)[0]
			out.Stream = &s
			return nil
		}},
	})
}

// PodExecOptions decodes in as upstream's url.Values → v1.PodExecOptions.
func PodExecOptions(in url.Values, out *corev1.PodExecOptions) error {
	return decode(in, []param{
		boolean("stdin", &out.Stdin), boolean("stdout", &out.Stdout), boolean("stderr", &out.Stderr),
		boolean("tty", &out.TTY), str("container", &out.Container),
		{"command", func(v *[]string) error { out.Command = append([]string(nil), *v...); return nil }},
	})
}

// PodAttachOptions decodes in as upstream's url.Values → v1.PodAttachOptions.
func PodAttachOptions(in url.Values, out *corev1.PodAttachOptions) error {
	return decode(in, []param{
		boolean("stdin", &out.Stdin), boolean("stdout", &out.Stdout), boolean("stderr", &out.Stderr),
		boolean("tty", &out.TTY), str("container", &out.Container),
	})
}

// PodPortForwardOptions decodes in as upstream's url.Values →
// v1.PodPortForwardOptions: ports repeated or comma-separated.
func PodPortForwardOptions(in url.Values, out *corev1.PodPortForwardOptions) error {
	return decode(in, []param{{"ports", func(v *[]string) error {
		for _, s := range *v {
			for _, p := range strings.Split(s, ",") {
				x, err := strconv.ParseUint(p, 10, 16)
				if err != nil {
					return fmt.Errorf("cannot convert to []int32: %v", err)
				}
				out.Ports = append(out.Ports, int32(x))
			}
		}
		return nil
	}}})
}

// Handles reports whether obj is one of the option kinds decoded here.
func Handles(obj runtime.Object) bool {
	switch obj.(type) {
	case *corev1.PodLogOptions, *corev1.PodExecOptions, *corev1.PodAttachOptions,
		*corev1.PodPortForwardOptions, *corev1.PodProxyOptions, *corev1.NodeProxyOptions:
		return true
	}
	return false
}

// ParameterCodec decodes the option kinds of Handles with scheme (which
// AddConversions was given) and everything else with fallback
// (metav1.ParameterCodec, whose scheme holds the meta options only).
func ParameterCodec(scheme *runtime.Scheme, fallback runtime.ParameterCodec) runtime.ParameterCodec {
	return parameterCodec{own: runtime.NewParameterCodec(scheme), fallback: fallback}
}

type parameterCodec struct{ own, fallback runtime.ParameterCodec }

func (c parameterCodec) DecodeParameters(parameters url.Values, from schema.GroupVersion, into runtime.Object) error {
	if Handles(into) {
		return c.own.DecodeParameters(parameters, from, into)
	}
	return c.fallback.DecodeParameters(parameters, from, into)
}

func (c parameterCodec) EncodeParameters(obj runtime.Object, to schema.GroupVersion) (url.Values, error) {
	if Handles(obj) {
		return c.own.EncodeParameters(obj, to)
	}
	return c.fallback.EncodeParameters(obj, to)
}

// AddConversions registers the url.Values conversions of the six option
// kinds in scheme.
func AddConversions(scheme *runtime.Scheme) error {
	for _, c := range []struct {
		out any
		fn  func(url.Values, any) error
	}{
		{(*corev1.PodLogOptions)(nil), func(in url.Values, o any) error { return PodLogOptions(in, o.(*corev1.PodLogOptions)) }},
		{(*corev1.PodExecOptions)(nil), func(in url.Values, o any) error { return PodExecOptions(in, o.(*corev1.PodExecOptions)) }},
		{(*corev1.PodAttachOptions)(nil), func(in url.Values, o any) error { return PodAttachOptions(in, o.(*corev1.PodAttachOptions)) }},
		{(*corev1.PodPortForwardOptions)(nil), func(in url.Values, o any) error {
			return PodPortForwardOptions(in, o.(*corev1.PodPortForwardOptions))
		}},
		{(*corev1.PodProxyOptions)(nil), func(in url.Values, o any) error {
			return decode(in, []param{str("path", &o.(*corev1.PodProxyOptions).Path)})
		}},
		{(*corev1.NodeProxyOptions)(nil), func(in url.Values, o any) error {
			return decode(in, []param{str("path", &o.(*corev1.NodeProxyOptions).Path)})
		}},
	} {
		fn := c.fn
		if err := scheme.AddConversionFunc((*url.Values)(nil), c.out, func(a, b interface{}, _ conversion.Scope) error {
			return fn(*a.(*url.Values), b)
		}); err != nil {
			return err
		}
	}
	return nil
}
