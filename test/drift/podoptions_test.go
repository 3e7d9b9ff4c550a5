package drift

import (
	"fmt"
	"math/rand"
	"net/url"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/svcplane/svcplane/internal/queryparams"
)

// randomQuery draws query parameters of the pod subresources' option
// kinds, with good and bad values.
func randomQuery(r *rand.Rand) url.Values {
	values := map[string][]string{
		"container":                    {"c", ""},
		"follow":                       {"true", "false", "1", "0", "", "no", "FALSE"},
		"previous":                     {"true", "0"},
		"timestamps":                   {"true", "f"},
		"insecureSkipTLSVerifyBackend": {"true"},
		"sinceSeconds":                 {"1", "0", "-3", "x", "9999999999"},
		"sinceTime":                    {"2026-01-02T03:04:05Z", "2026-01-02T03:04:05+02:00", "yesterday", ""},
		"tailLines":                    {"0", "5", "-1", "x"},
		"limitBytes":                   {"0", "1", "100", "-5"},
		"stream":                       {"All", "Stdout", "bogus"},
		"stdin":                        {"true", "false"},
		"stdout":                       {"1"},
		"stderr":                       {"true"},
		"tty":                          {"true", "0"},
		"command":                      {"sh", "-c", "echo hi"},
		"ports":                        {"80", "80,443", "70000", "http", ""},
		"path":                         {"/pods", ""},
	}
	q := url.Values{}
	for k, vs := range values {
		if r.Intn(3) == 0 {
			for n := 1 + r.Intn(2); n > 0; n-- {
				q.Add(k, vs[r.Intn(len(vs))])
			}
		}
	}
	return q
}

// TestQueryParamsDecodeLikeUpstream decodes random queries into each
// option kind with upstream's ParameterCodec (its generated url.Values
// conversions) and with ours: same objects, same failures.
func TestQueryParamsDecodeLikeUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	ours := runtime.NewScheme()
	if err := corev1.AddToScheme(ours); err != nil {
		t.Fatal(err)
	}
	if err := queryparams.AddConversions(ours); err != nil {
		t.Fatal(err)
	}
	kinds := []func() runtime.Object{
		func() runtime.Object { return &corev1.PodLogOptions{} },
		func() runtime.Object { return &corev1.PodExecOptions{} },
		func() runtime.Object { return &corev1.PodAttachOptions{} },
		func() runtime.Object { return &corev1.PodPortForwardOptions{} },
		func() runtime.Object { return &corev1.PodProxyOptions{} },
		func() runtime.Object { return &corev1.NodeProxyOptions{} },
	}
	for i := 0; i < 3000; i++ {
		q := randomQuery(r)
		for _, k := range kinds {
			theirs, mine := k(), k()
			errTheirs := legacyscheme.ParameterCodec.DecodeParameters(q, corev1.SchemeGroupVersion, theirs)
			errMine := runtime.NewParameterCodec(ours).DecodeParameters(q, corev1.SchemeGroupVersion, mine)
			if (errTheirs != nil) != (errMine != nil) || errTheirs == nil && !apiequality.Semantic.DeepEqual(theirs, mine) {
				t.Fatalf("%T from %v:\nupstream %+v, %v\nours     %+v, %v", theirs, q, theirs, errTheirs, mine, errMine)
			}
		}
	}
}

// TestValidatePodLogOptionsLikeUpstream validates random decoded
// PodLogOptions with upstream's ValidatePodLogOptions (stream selection
// off, as the gate is) and ours: same messages.
func TestValidatePodLogOptionsLikeUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	checked := 0
	for i := 0; i < 3000; i++ {
		var opts corev1.PodLogOptions
		if err := queryparams.PodLogOptions(randomQuery(r), &opts); err != nil {
			continue
		}
		var internal api.PodLogOptions
		if err := legacyscheme.Scheme.Convert(&opts, &internal, nil); err != nil {
			t.Fatal(err)
		}
		theirs := fmt.Sprint(validation.ValidatePodLogOptions(&internal, false).ToAggregate())
		mine := fmt.Sprint(queryparams.ValidatePodLogOptions(&opts).ToAggregate())
		if theirs != mine {
			t.Fatalf("%+v:\nupstream %s\nours     %s", opts, theirs, mine)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d options decoded", checked)
	}
}
