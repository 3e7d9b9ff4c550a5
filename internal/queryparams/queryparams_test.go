package queryparams

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

func TestPodLogOptions(t *testing.T) {
	since := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, tc := range []struct {
		query   string
		want    corev1.PodLogOptions
		wantErr bool
	}{
		{"", corev1.PodLogOptions{}, false},
		{"container=c&follow=true&previous=1&timestamps=false", corev1.PodLogOptions{Container: "c", Follow: true, Previous: true}, false},
		// apimachinery's bool conversion: only "0" and "false" are false.
		{"follow=no&previous=", corev1.PodLogOptions{Follow: true, Previous: true}, false},
		{"tailLines=3&limitBytes=10&sinceSeconds=5", corev1.PodLogOptions{TailLines: ptr.To[int64](3), LimitBytes: ptr.To[int64](10), SinceSeconds: ptr.To[int64](5)}, false},
		{"sinceTime=2026-01-02T03:04:05Z", corev1.PodLogOptions{SinceTime: &since}, false},
		{"stream=Stdout", corev1.PodLogOptions{Stream: ptr.To("Stdout")}, false},
		{"tailLines=x", corev1.PodLogOptions{}, true},
		{"sinceTime=yesterday", corev1.PodLogOptions{}, true},
	} {
		q, _ := url.ParseQuery(tc.query)
		var got corev1.PodLogOptions
		err := PodLogOptions(q, &got)
		if (err != nil) != tc.wantErr || !tc.wantErr && !apiequality.Semantic.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v (error %v)", tc.query, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestStreamOptions(t *testing.T) {
	q, _ := url.ParseQuery("stdin=true&stdout=1&tty=true&container=c&command=sh&command=-c&command=echo+hi")
	var e corev1.PodExecOptions
	if err := PodExecOptions(q, &e); err != nil || !reflect.DeepEqual(e, corev1.PodExecOptions{Stdin: true, Stdout: true, TTY: true,
		Container: "c", Command: []string{"sh", "-c", "echo hi"}}) {
		t.Errorf("exec options %+v, %v", e, err)
	}
	var a corev1.PodAttachOptions
	if err := PodAttachOptions(q, &a); err != nil || !reflect.DeepEqual(a, corev1.PodAttachOptions{Stdin: true, Stdout: true, TTY: true, Container: "c"}) {
		t.Errorf("attach options %+v, %v", a, err)
	}
	for _, tc := range []struct {
		query string
		want  []int32
		err   bool
	}{
		{"ports=80&ports=443", []int32{80, 443}, false},
		{"ports=80,8080", []int32{80, 8080}, false},
		{"ports=70000", nil, true},
		{"ports=http", nil, true},
	} {
		q, _ := url.ParseQuery(tc.query)
		var p corev1.PodPortForwardOptions
		err := PodPortForwardOptions(q, &p)
		if (err != nil) != tc.err || !tc.err && !reflect.DeepEqual(p.Ports, tc.want) {
			t.Errorf("%q: %v, %v", tc.query, p.Ports, err)
		}
	}
}

// TestParameterCodec decodes the option kinds with a scheme of the core
// types and leaves the meta options to the fallback.
func TestParameterCodec(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := AddConversions(scheme); err != nil {
		t.Fatal(err)
	}
	fallback := &recordingCodec{}
	codec := ParameterCodec(scheme, fallback)
	var proxy corev1.NodeProxyOptions
	if err := codec.DecodeParameters(url.Values{"path": {"/pods"}}, corev1.SchemeGroupVersion, &proxy); err != nil || proxy.Path != "/pods" {
		t.Errorf("NodeProxyOptions %+v, %v", proxy, err)
	}
	var logs corev1.PodLogOptions
	if err := codec.DecodeParameters(url.Values{"tailLines": {"2"}}, corev1.SchemeGroupVersion, &logs); err != nil || logs.TailLines == nil || *logs.TailLines != 2 {
		t.Errorf("PodLogOptions %+v, %v", logs, err)
	}
	var get metav1.GetOptions
	if err := codec.DecodeParameters(url.Values{"resourceVersion": {"7"}}, schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}, &get); err != nil || fallback.decoded != 1 {
		t.Errorf("GetOptions not left to the fallback: %v, %d", err, fallback.decoded)
	}
}

type recordingCodec struct{ decoded int }

func (r *recordingCodec) DecodeParameters(url.Values, schema.GroupVersion, runtime.Object) error {
	r.decoded++
	return nil
}

func (r *recordingCodec) EncodeParameters(runtime.Object, schema.GroupVersion) (url.Values, error) {
	return nil, nil
}

func TestValidatePodLogOptions(t *testing.T) {
	for _, tc := range []struct {
		opts corev1.PodLogOptions
		want string
	}{
		{corev1.PodLogOptions{}, ""},
		{corev1.PodLogOptions{TailLines: ptr.To[int64](-1)}, "tailLines: Invalid value: -1: must be greater than or equal to 0"},
		{corev1.PodLogOptions{LimitBytes: ptr.To[int64](0)}, "limitBytes: Invalid value: 0: must be greater than 0"},
		{corev1.PodLogOptions{SinceSeconds: ptr.To[int64](0)}, "sinceSeconds: Invalid value: 0: must be greater than 0"},
		{corev1.PodLogOptions{SinceSeconds: ptr.To[int64](1), SinceTime: &metav1.Time{}}, "[]: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"},
		{corev1.PodLogOptions{Stream: ptr.To("All")}, "stream: Forbidden: may not be specified"},
	} {
		got := ValidatePodLogOptions(&tc.opts).ToAggregate()
		if tc.want == "" && got != nil || tc.want != "" && (got == nil || got.Error() != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, got, tc.want)
		}
	}
}
