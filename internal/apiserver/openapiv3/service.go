package openapiv3

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	"github.com/munnerz/goautoneg"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/klog/v2"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler3"
)

// The media subtypes handler3 serves.
const (
	subTypeJSON               = "json"
	subTypeProtobuf           = "com.github.proto-openapi.spec.v3.v1.0+protobuf"
	subTypeProtobufDeprecated = "com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// Service serves /openapi/v3: the built-in group versions (the routes of
// a go-restful container) from their compressed JSON, the others
// through Dynamic.
type Service struct {
	// Dynamic holds the group versions added while the server runs
	// (GenericAPIServer.OpenAPIV3VersionedService, which apiextensions'
	// CRD controller updates).
	Dynamic *handler3.OpenAPIService

	config    *common.OpenAPIV3Config
	container *restful.Container
	built     func()

	once   sync.Once
	groups map[string]document

	mu        sync.Mutex
	discovery merged
}

// document is one built-in group version's OpenAPI v3 document.
type document struct {
	gzipped  []byte
	etag     string
	modified time.Time
}

// merged is the discovery document for one state of Dynamic.
type merged struct {
	dynamicETag string
	body        []byte
	etag        string
	modified    time.Time
}

// New returns a Service for the routes of container, built with config
// on the first request (every group is installed before the server
// serves). built, if not nil, runs once the documents are built (the
// caller may then drop what only the build needed).
func New(config *common.OpenAPIV3Config, container *restful.Container, built func()) *Service {
	return &Service{Dynamic: handler3.NewOpenAPIService(), config: config, container: container, built: built}
}

// Register serves /openapi/v3 and /openapi/v3/<group version> on m.
func (s *Service) Register(m common.PathHandlerByGroupVersion) {
	m.Handle("/openapi/v3", http.HandlerFunc(s.serveDiscovery))
	m.HandlePrefix("/openapi/v3/", http.HandlerFunc(s.serveGroupVersion))
}

// build makes the documents as routes.OpenAPI InstallV3 does and keeps
// their JSON.
func (s *Service) build() {
	s.once.Do(func() {
		s.groups = map[string]document{}
		upstream := routes.OpenAPI{V3Config: s.config}.InstallV3(s.container, mux.NewPathRecorderMux("openapi-v3-build"))
		rec := httptest.NewRecorder()
		upstream.HandleDiscovery(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
		var d handler3.OpenAPIV3Discovery
		if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil {
			klog.Errorf("Failed to build the OpenAPI v3 discovery: %v", err)
			return
		}
		for gv := range d.Paths {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/openapi/v3/"+gv, nil)
			req.Header.Set("Accept", "application/json")
			upstream.HandleGroupVersion(rec, req)
			etag, err := strconv.Unquote(rec.Header().Get("Etag"))
			if rec.Code != http.StatusOK || err != nil {
				klog.Errorf("Failed to build the OpenAPI v3 document of %s: %d", gv, rec.Code)
				continue
			}
			gz, err := compress(rec.Body.Bytes())
			if err != nil {
				klog.Errorf("Failed to compress the OpenAPI v3 document of %s: %v", gv, err)
				continue
			}
			s.groups[gv] = document{gzipped: gz, etag: etag, modified: time.Now()}
		}
		if s.built != nil {
			s.built()
		}
	})
}

func compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

func (d document) json() ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(d.gzipped))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// serveDiscovery answers as handler3's HandleDiscovery, for the built-in
// group versions and Dynamic's together.
func (s *Service) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	s.build()
	m, err := s.mergedDiscovery()
	if err != nil {
		klog.Errorf("Error serving discovery: %s", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Etag", strconv.Quote(m.etag))
	w.Header().Set("Content-Type", "application/json")
	http.ServeContent(w, r, "/openapi/v3", m.modified, bytes.NewReader(m.body))
}

// mergedDiscovery is the discovery document of the built-in group
// versions and Dynamic's, made again when Dynamic's changed.
func (s *Service) mergedDiscovery() (merged, error) {
	rec := httptest.NewRecorder()
	s.Dynamic.HandleDiscovery(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
	if rec.Code != http.StatusOK {
		return merged{}, fmt.Errorf("dynamic group versions: %d", rec.Code)
	}
	dynamicETag := rec.Header().Get("Etag")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.discovery.body != nil && s.discovery.dynamicETag == dynamicETag {
		return s.discovery, nil
	}
	var d handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil {
		return merged{}, err
	}
	if d.Paths == nil {
		d.Paths = map[string]handler3.OpenAPIV3DiscoveryGroupVersion{}
	}
	for gv, doc := range s.groups {
		d.Paths[gv] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: serverRelativeURL(gv, doc.etag)}
	}
	body, err := json.Marshal(&d)
	if err != nil {
		return merged{}, err
	}
	s.discovery = merged{dynamicETag: dynamicETag, body: body, etag: etagOf(body), modified: time.Now()}
	return s.discovery, nil
}

// etagOf is handler3's ETag of a document.
func etagOf(b []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(b))
}

// serverRelativeURL is handler3's link to a group version's document.
func serverRelativeURL(gv, etag string) string {
	u := url.URL{Path: path.Join("/openapi/v3", gv)}
	q := url.Values{}
	q.Set("hash", etag)
	u.RawQuery = q.Encode()
	return u.String()
}

// serveGroupVersion answers as handler3's HandleGroupVersion: a built-in
// group version from its JSON, any other through Dynamic.
func (s *Service) serveGroupVersion(w http.ResponseWriter, r *http.Request) {
	s.build()
	parts := strings.SplitAfterN(r.URL.Path, "/", 4)
	if len(parts) < 4 {
		s.Dynamic.HandleGroupVersion(w, r)
		return
	}
	gv := parts[3]
	doc, ok := s.groups[gv]
	if !ok {
		s.Dynamic.HandleGroupVersion(w, r)
		return
	}
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	clauses := goautoneg.ParseAccept(accept)
	w.Header().Add("Vary", "Accept")
	if len(clauses) == 0 {
		return
	}
	accepted := []struct{ subType, contentType string }{
		{subTypeJSON, "application/" + subTypeJSON},
		{subTypeProtobuf, "application/" + subTypeProtobuf},
		{subTypeProtobufDeprecated, "application/" + subTypeProtobuf},
	}
	for _, clause := range clauses {
		for _, a := range accepted {
			if clause.Type != "application" && clause.Type != "*" {
				continue
			}
			if clause.SubType != a.subType && clause.SubType != "*" {
				continue
			}
			data, err := doc.json()
			if err == nil && a.subType != subTypeJSON {
				data, err = handler3.ToV3ProtoBinary(data)
			}
			if err != nil {
				klog.Errorf("Failed to serve the OpenAPI v3 document of %s: %v", gv, err)
				return
			}
			w.Header().Set("Content-Type", a.contentType)
			w.Header().Set("Etag", strconv.Quote(doc.etag))
			if hash := r.URL.Query().Get("hash"); hash != "" {
				if hash != doc.etag {
					http.Redirect(w, r, serverRelativeURL(gv, doc.etag), http.StatusMovedPermanently)
					return
				}
				w.Header().Set("Vary", "Accept")
				w.Header().Set("Cache-Control", "public, immutable")
				w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).Format(time.RFC1123))
			}
			http.ServeContent(w, r, "", doc.modified, bytes.NewReader(data))
			return
		}
	}
	w.WriteHeader(http.StatusNotAcceptable)
}
