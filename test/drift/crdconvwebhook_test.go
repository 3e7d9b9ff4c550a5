package drift

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	agnhostconverter "k8s.io/kubernetes/test/images/agnhost/crd-conversion-webhook/converter"

	"github.com/svcplane/svcplane/internal/node/runtime/netns"
)

// TestCRDConversionWebhookMatchesAgnhost sends the same ConversionReviews
// to agnhost's /crdconvert and to the netns runtime's built-in: the
// status codes and the decoded answers must be equal.
func TestCRDConversionWebhookMatchesAgnhost(t *testing.T) {
	review := func(apiVersion, desired string, objects ...string) string {
		return `{"apiVersion":"apiextensions.k8s.io/` + apiVersion + `","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"` +
			desired + `","objects":[` + strings.Join(objects, ",") + `]}}`
	}
	obj := func(version, fields string) string {
		return `{"apiVersion":"stable.example.com/` + version + `","kind":"E2e","metadata":{"name":"o","namespace":"ns"}` + fields + `}`
	}
	for name, tc := range map[string]struct{ contentType, body string }{
		"v1 to v2":                {"application/json", review("v1", "stable.example.com/v2", obj("v1", `,"hostPort":"localhost:8080"`))},
		"v2 to v1":                {"application/json", review("v1", "stable.example.com/v1", obj("v2", `,"host":"h","port":"80"`))},
		"v2 to v1, port only":     {"application/json", review("v1", "stable.example.com/v1", obj("v2", `,"port":"80"`))},
		"v1 to v2, no hostPort":   {"application/json", review("v1", "stable.example.com/v2", obj("v1", ""))},
		"two objects":             {"application/json", review("v1", "stable.example.com/v2", obj("v1", `,"hostPort":"a:1"`), obj("v1", `,"hostPort":"b:2"`))},
		"bad hostPort":            {"application/json", review("v1", "stable.example.com/v2", obj("v1", `,"hostPort":"a:b:c"`))},
		"to itself":               {"application/json", review("v1", "stable.example.com/v1", obj("v1", `,"hostPort":"a:1"`))},
		"unknown target":          {"application/json", review("v1", "stable.example.com/v3", obj("v1", `,"hostPort":"a:1"`))},
		"unknown source":          {"application/json", review("v1", "stable.example.com/v2", obj("v9", ""))},
		"v1beta1 review":          {"application/json", review("v1beta1", "stable.example.com/v2", obj("v1", `,"hostPort":"x:9"`))},
		"object without a kind":   {"application/json", review("v1", "stable.example.com/v2", `{"apiVersion":"stable.example.com/v1"}`)},
		"not JSON":                {"application/json", "{nope"},
		"no content type":         {"", review("v1", "stable.example.com/v2", obj("v1", ""))},
		"text/plain content type": {"text/plain", review("v1", "stable.example.com/v2", obj("v1", ""))},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode, want := convertWith(t, agnhostconverter.ServeExampleConvert, tc.contentType, tc.body)
			gotCode, got := convertWith(t, netns.ServeExampleConvert, tc.contentType, tc.body)
			if gotCode != wantCode {
				t.Fatalf("status %d, agnhost's %d (%s / %s)", gotCode, wantCode, got, want)
			}
			if wantCode != http.StatusOK {
				return // both refused; the texts are each one's own
			}
			var g, w any
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Fatalf("svcplane's answer %q: %v", got, err)
			}
			if err := json.Unmarshal([]byte(want), &w); err != nil {
				t.Fatalf("agnhost's answer %q: %v", want, err)
			}
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("answer\n%s\nagnhost's\n%s", gb, wb)
			}
		})
	}
}

func convertWith(t *testing.T, h http.HandlerFunc, contentType, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/crdconvert", strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	h(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}
