package netns

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// testWebserver is agnhost's test-webserver: a file server on --port. The
// image serves its whole filesystem; here the container's filesystem is
// the host's, so it serves only the container's volumes at their mount
// paths (emptyDir from the pod's directory, Secret and ConfigMap files as
// the kubelet writes them) and answers 404 for any other path.
func testWebserver(ctx context.Context, pio *procIO, args []string) int {
	fset := pflag.NewFlagSet("test-webserver", pflag.ContinueOnError)
	port := fset.Int("port", 80, "Port number.")
	if !parseFlags(fset, args, pio.stderr) {
		return 1
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(pio.stderr, "Error: accepts at most 0 arg(s), received %d\n", fset.NArg())
		return 1
	}
	l, err := pio.pod.listen("tcp", ":"+strconv.Itoa(*port))
	if err != nil {
		fmt.Fprintln(pio.stderr, err)
		return 1
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The headers agnhost sets.
		w.Header().Set("Cache-Control", "private")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "DNT,X-Mx-ReqToken,Keep-Alive,User-Agent,X-Requested-With,Cache-Control,Content-Type")
		pio.pod.serveVolumeFile(w, r, pio.ctr)
	})
	return serveUntil(ctx, l, h, make(chan exitRequest, 1))
}

// serveVolumeFile answers GET of a file in one of c's volumes.
func (p *pod) serveVolumeFile(w http.ResponseWriter, r *http.Request, c *ctr) {
	name := path.Clean("/" + r.URL.Path)
	var best *emptyDirMount
	mounts := p.emptyDirMounts(&c.spec)
	for i, m := range mounts {
		if (name == m.target || strings.HasPrefix(name, m.target+"/")) && (best == nil || len(m.target) > len(best.target)) {
			best = &mounts[i]
		}
	}
	if best != nil {
		file := filepath.Join(best.source, filepath.FromSlash(strings.TrimPrefix(name, best.target)))
		if st, err := os.Stat(file); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, file)
		return
	}
	b, err := p.readVolumeFile(r.Context(), &c.spec, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		http.NotFound(w, r)
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		_, _ = w.Write(b)
	}
}
