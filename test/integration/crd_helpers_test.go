package integration

import (
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	restclient "k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/testutil"
)

// aggregatedAccept asks for aggregated discovery (as the conformance
// spec and client-go do).
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

func crdClient(t *testing.T) apiextensionsclient.Interface {
	t.Helper()
	return get(apiextensionsclient.NewForConfig(server.Config))(t)
}

// warningRecorder collects the warning headers of a client's responses.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

// take returns the warnings so far and forgets them.
func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

// crdDynamicClient returns a dynamic client whose warnings go to w (nil:
// dropped).
func crdDynamicClient(t *testing.T, w *warningRecorder) dynamic.Interface {
	t.Helper()
	cfg := restclient.CopyConfig(server.Config)
	cfg.WarningHandler = restclient.NoWarnings{}
	if w != nil {
		cfg.WarningHandler = w
	}
	return get(dynamic.NewForConfig(cfg))(t)
}

// decodeCRD reads a CustomResourceDefinition from YAML.
func decodeCRD(t *testing.T, doc string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
		t.Fatalf("CRD YAML: %v", err)
	}
	return crd
}

// createCRD creates crd, waits until it is Established and every served
// version is in discovery, and deletes it when the test ends. It returns
// how long until the group was in aggregated and legacy discovery.
func createCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) time.Duration {
	t.Helper()
	crds := crdClient(t).ApiextensionsV1().CustomResourceDefinitions()
	start := time.Now()
	get(crds.Create(ctx, crd, metav1.CreateOptions{}))(t)
	t.Cleanup(func() {
		if err := crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete CRD %s: %v", crd.Name, err)
		}
	})
	testutil.Eventually(t, 30*time.Second, crd.Name+" Established", func() bool {
		c, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, cond := range c.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
		testutil.Eventually(t, 30*time.Second, gvr.String()+" in discovery", func() bool {
			return inAggregatedDiscovery(t, gvr) && inLegacyGroupList(t, gvr.GroupVersion())
		})
	}
	return time.Since(start)
}

// inAggregatedDiscovery reports whether /apis (aggregated) lists gvr.
func inAggregatedDiscovery(t *testing.T, gvr schema.GroupVersionResource) bool {
	t.Helper()
	raw := get(server.Client.Discovery().RESTClient().Get().AbsPath("/apis").SetHeader("Accept", aggregatedAccept).DoRaw(ctx))(t)
	var list apidiscoveryv2.APIGroupDiscoveryList
	noErr(t, json.Unmarshal(raw, &list))
	for _, g := range list.Items {
		if g.Name != gvr.Group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != gvr.Version {
				continue
			}
			for _, r := range v.Resources {
				if r.Resource == gvr.Resource {
					return true
				}
			}
		}
	}
	return false
}

// inLegacyGroupList reports whether the unaggregated /apis lists gv.
func inLegacyGroupList(t *testing.T, gv schema.GroupVersion) bool {
	t.Helper()
	raw := get(server.Client.Discovery().RESTClient().Get().AbsPath("/apis").SetHeader("Accept", "application/json").DoRaw(ctx))(t)
	var list metav1.APIGroupList
	noErr(t, json.Unmarshal(raw, &list))
	for _, g := range list.Groups {
		for _, v := range g.Versions {
			if g.Name == gv.Group && v.Version == gv.Version {
				return true
			}
		}
	}
	return false
}

// crdKubectl runs the kubectl on PATH against the shared server; the test
// skips (saying why) when there is none.
func crdKubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH")
	}
	out, err := exec.Command(path, append([]string{"--kubeconfig", server.Kubeconfig}, args...)...).CombinedOutput()
	return string(out), err
}

// crdMustKubectl is crdKubectl that fails the test on an error.
func crdMustKubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := crdKubectl(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
