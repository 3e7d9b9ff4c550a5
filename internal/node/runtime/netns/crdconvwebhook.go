package netns

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// crdConversionWebhook is agnhost's crd-conversion-webhook: HTTPS on
// --port (443) with the certificate and key files (read from the pod's
// volumes), /crdconvert converting the e2e CRD between stable.example.com
// v1 (hostPort "h:p") and v2 (host, port), /readyz.
func crdConversionWebhook(ctx context.Context, pio *procIO, args []string) int {
	fs := pflag.NewFlagSet("crd-conversion-webhook", pflag.ContinueOnError)
	certFile := fs.String("tls-cert-file", "", "File containing the default x509 Certificate for HTTPS.")
	keyFile := fs.String("tls-private-key-file", "", "File containing the default x509 private key matching --tls-cert-file.")
	port := fs.Int("port", 443, "Secure port that the webhook listens on")
	if !parseFlags(fs, args, pio.stderr) {
		return 1
	}
	logger := log.New(pio.stderr, "", log.LstdFlags)
	certPEM, err := pio.pod.readVolumeFile(ctx, &pio.ctr.spec, *certFile)
	if err != nil {
		logger.Print(err)
		return 1
	}
	keyPEM, err := pio.pod.readVolumeFile(ctx, &pio.ctr.spec, *keyFile)
	if err != nil {
		logger.Print(err)
		return 1
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		logger.Print(err)
		return 1
	}
	l, err := pio.pod.listen("tcp", ":"+strconv.Itoa(*port))
	if err != nil {
		logger.Print(err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/crdconvert", ServeExampleConvert)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	return serveUntil(ctx, tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}}), mux, make(chan exitRequest, 1))
}

// ServeExampleConvert answers a ConversionReview (apiextensions.k8s.io v1
// or v1beta1, JSON) with the example conversion of every object, as
// agnhost's /crdconvert (test/drift compares the two).
func ServeExampleConvert(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		http.Error(w, fmt.Sprintf("invalid Content-Type header `%s`", ct), http.StatusBadRequest)
		return
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("failed to deserialize body (%v): %v", string(body), err), http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, raw := range review.Request.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			resp.Result = metav1.Status{Status: metav1.StatusFailure,
				Message: fmt.Sprintf("failed to unmarshall object (%v) with error: %v", string(raw.Raw), err)}
			break
		}
		out, status := convertExample(obj, review.Request.DesiredAPIVersion)
		if status.Status != metav1.StatusSuccess {
			resp.Result = status
			break
		}
		out.SetAPIVersion(review.Request.DesiredAPIVersion)
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Object: out})
	}
	if resp.Result.Status != metav1.StatusSuccess {
		resp.ConvertedObjects = nil
	}
	review.Request, review.Response = &apiextensionsv1.ConversionRequest{}, resp
	// Answer in the request's apiVersion (v1 or v1beta1: same shape).
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// convertExample converts the e2e test CRD's object between its versions:
// v1 keeps "host:port" in hostPort, v2 has host and port.
func convertExample(obj *unstructured.Unstructured, to string) (*unstructured.Unstructured, metav1.Status) {
	fail := func(format string, a ...any) (*unstructured.Unstructured, metav1.Status) {
		return nil, metav1.Status{Status: metav1.StatusFailure, Message: fmt.Sprintf(format, a...)}
	}
	from := obj.GetAPIVersion()
	if from == to {
		return fail("conversion from a version to itself should not call the webhook: %s", to)
	}
	out := obj.DeepCopy()
	switch {
	case from == "stable.example.com/v1" && to == "stable.example.com/v2":
		if hp, ok := out.Object["hostPort"]; ok {
			s, _ := hp.(string)
			parts := strings.Split(s, ":")
			if len(parts) != 2 {
				return fail("invalid hostPort value `%v`", hp)
			}
			delete(out.Object, "hostPort")
			out.Object["host"], out.Object["port"] = parts[0], parts[1]
		}
	case from == "stable.example.com/v2" && to == "stable.example.com/v1":
		host, hasHost := out.Object["host"]
		port, hasPort := out.Object["port"]
		if hasHost || hasPort {
			if !hasHost {
				host = ""
			}
			if !hasPort {
				port = ""
			}
			out.Object["hostPort"] = fmt.Sprintf("%s:%s", host, port)
			delete(out.Object, "host")
			delete(out.Object, "port")
		}
	case from == "stable.example.com/v1" || from == "stable.example.com/v2":
		return fail("unexpected conversion version %q", to)
	default:
		return fail("unexpected conversion version %q", from)
	}
	return out, metav1.Status{Status: metav1.StatusSuccess}
}
