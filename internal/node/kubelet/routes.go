package kubelet

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
)

// nodeRoutes is node's kubelet API, without the auth filter.
func (s *Server) nodeRoutes(node string) http.Handler {
	h := &nodeHandler{s: s, node: node}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /pods", h.pods)
	mux.Handle("GET /metrics", s.metricsHandler(node))
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", h.containerLogs)
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		mux.HandleFunc(m+" /exec/{namespace}/{pod}/{container}", h.exec)
		mux.HandleFunc(m+" /exec/{namespace}/{pod}/{uid}/{container}", h.exec)
		mux.HandleFunc(m+" /attach/{namespace}/{pod}/{container}", h.attach)
		mux.HandleFunc(m+" /attach/{namespace}/{pod}/{uid}/{container}", h.attach)
		mux.HandleFunc(m+" /portForward/{namespace}/{pod}", h.portForward)
		mux.HandleFunc(m+" /portForward/{namespace}/{pod}/{uid}", h.portForward)
	}
	return mux
}

// nodeHandler serves one node's endpoint.
type nodeHandler struct {
	s    *Server
	node string
}

// pod finds namespace/name among this node's pods (a pod of another node
// of the agent is not found, as on that node's kubelet) and checks uid
// when the path gives one.
func (h *nodeHandler) pod(r *http.Request) (Target, bool) {
	t, ok := h.s.cfg.Lookup(r.PathValue("namespace"), r.PathValue("pod"))
	if !ok || t.Node != h.node {
		return Target{}, false
	}
	if uid := r.PathValue("uid"); uid != "" && types.UID(uid) != t.UID {
		return Target{}, false
	}
	return t, true
}

func (h *nodeHandler) pods(w http.ResponseWriter, _ *http.Request) {
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
	for _, p := range h.s.cfg.Pods(h.node) {
		p = p.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}
		list.Items = append(list.Items, *p)
	}
	if list.Items == nil {
		list.Items = []corev1.Pod{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&list)
}

// hasContainer reports whether pod declares a container (init, regular
// or ephemeral) named name.
func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// writeStatus answers with a metav1.Status the API server and kubectl
// decode (a refused upgrade is shown as the Status's message).
func writeStatus(w http.ResponseWriter, err *apierrors.StatusError) {
	st := err.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(&st)
}

// refuseNoProcesses answers 400 when the pod's runtime runs no process
// (nothing to exec in or forward to), and reports whether it did.
func refuseNoProcesses(w http.ResponseWriter, t Target) bool {
	if np, ok := t.Streams.(NoProcesses); ok && np.RunsNoProcesses() {
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s/%s: %v", t.Pod.Namespace, t.Pod.Name, container.ErrNotSupported)))
		return true
	}
	return false
}

// streamErrorStatus maps a runtime's error before any output to the
// kubelet's answer.
func streamErrorStatus(err error) int {
	switch {
	case errors.Is(err, container.ErrNotFound):
		return http.StatusNotFound
	default:
		return http.StatusBadRequest
	}
}
