package kubelet

import (
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/util/flushwriter"

	"github.com/svcplane/svcplane/internal/queryparams"
)

// containerLogs serves GET /containerLogs/{namespace}/{pod}/{container} as
// the kubelet: the v1 PodLogOptions from the query ("tail" the old name
// of tailLines, "all" none), its statuses and messages.
func (h *nodeHandler) containerLogs(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	if tail := query.Get("tail"); tail != "" {
		query["tailLines"] = []string{tail}
		if tail == "all" {
			delete(query, "tailLines")
		}
	}
	opts := &corev1.PodLogOptions{}
	if err := queryparams.PodLogOptions(query, opts); err != nil {
		http.Error(w, `{"message": "Unable to decode query."}`, http.StatusBadRequest)
		return
	}
	if len(queryparams.ValidatePodLogOptions(opts)) > 0 {
		http.Error(w, `{"message": "Invalid request."}`, http.StatusUnprocessableEntity)
		return
	}
	name, c := r.PathValue("pod"), r.PathValue("container")
	t, ok := h.pod(r)
	if !ok {
		http.Error(w, fmt.Sprintf("pod %q does not exist", name), http.StatusNotFound)
		return
	}
	if !hasContainer(t.Pod, c) {
		http.Error(w, fmt.Sprintf("container %q not found in pod %q", c, name), http.StatusNotFound)
		return
	}
	fw := &firstWrite{w: w, flush: flushwriter.Wrap(w)}
	if err := t.Streams.Logs(r.Context(), t.UID, c, opts, fw); err != nil && !fw.wrote && r.Context().Err() == nil {
		http.Error(w, err.Error(), streamErrorStatus(err))
	}
}

// firstWrite sets the kubelet's headers before the log's first byte and
// remembers whether any was written (an error after it cannot change
// the status).
type firstWrite struct {
	w     http.ResponseWriter
	flush interface{ Write([]byte) (int, error) }
	wrote bool
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if !f.wrote {
		f.wrote = true
		f.w.Header().Set("Content-Type", "text/plain")
		f.w.Header().Set("Transfer-Encoding", "chunked")
	}
	return f.flush.Write(p)
}
