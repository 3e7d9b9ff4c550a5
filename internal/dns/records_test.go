package dns

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	"golang.org/x/tools/txtar"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/records/*.txtar with what the server answers")

// TestRecords runs each testdata/records/*.txtar: its objects.yaml
// (Services and EndpointSlices) indexed, each line of its queries
// ("<name> <type>") answered by the server (cluster.local, TTL 5 s, no
// forwarding), the answers rendered as dig would list them and compared
// with its want section. The files quote the DNS specification's rule
// each query checks.
func TestRecords(t *testing.T) {
	files, err := filepath.Glob("testdata/records/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/records/*.txtar: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]*txtar.File{}
			for i := range ar.Files {
				sections[ar.Files[i].Name] = &ar.Files[i]
			}
			for _, need := range []string{"objects.yaml", "queries", "want"} {
				if sections[need] == nil {
					t.Fatalf("%s has no %q section", file, need)
				}
			}
			s := testServer(t, string(sections["objects.yaml"].Data))
			got := answerAll(t, s, string(sections["queries"].Data))
			if *update {
				sections["want"].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(sections["want"].Data); want != got {
				t.Errorf("answers differ from %s (go test -run %s -update rewrites it; review the diff):\n--- want\n%s\n--- got\n%s", file, t.Name(), want, got)
			}
		})
	}
}

// testServer indexes the objects of a multi-document YAML and returns a
// server for cluster.local with TTL 5 s, SOA serial 1, no forwarding.
func testServer(t *testing.T, objects string) *Server {
	t.Helper()
	x := NewIndex()
	for _, doc := range strings.Split(objects, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("decoding %q: %v", doc, err)
		}
		switch o := obj.(type) {
		case *corev1.Service:
			x.SetService(o)
		case *discoveryv1.EndpointSlice:
			x.SetEndpointSlice(o)
		default:
			t.Fatalf("unexpected %T", obj)
		}
	}
	r := NewResolver(x, "cluster.local", 5*time.Second)
	r.Serial = 1
	return NewServer(r, nil, nil)
}

// answerAll answers each "<name> <type>" line and renders the responses.
func answerAll(t *testing.T, s *Server, queries string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(queries), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			t.Fatalf("query %q: want <name> <type>", line)
		}
		qtype, ok := mdns.StringToType[f[1]]
		if !ok {
			t.Fatalf("query %q: unknown type", line)
		}
		req := new(mdns.Msg)
		req.SetQuestion(f[0], qtype)
		resp, _ := s.Handle(context.Background(), req, "udp")
		b.WriteString(render(f[0], f[1], resp))
	}
	return b.String()
}

// render lists a response as "> question", the rcode (with "aa" when
// authoritative), then the answer, authority and additional sections.
func render(name, qtype string, m *mdns.Msg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n%s", name, qtype, mdns.RcodeToString[m.Rcode])
	if m.Authoritative {
		b.WriteString(" aa")
	}
	b.WriteString("\n")
	for _, sec := range []struct {
		name string
		rrs  []mdns.RR
	}{{"", m.Answer}, {"authority:\n", m.Ns}, {"additional:\n", m.Extra}} {
		if len(sec.rrs) == 0 {
			continue
		}
		b.WriteString(sec.name)
		for _, rr := range sec.rrs {
			b.WriteString(strings.ReplaceAll(rr.String(), "\t", " ") + "\n")
		}
	}
	return b.String()
}
