package bench

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestNodesTable: both sides in columns; a process one side lacks shows
// "—"; KB per pod is over the total RSS before the pods.
func TestNodesTable(t *testing.T) {
	const MB = 1 << 20
	sv := &nodesResult{side: "svcplane", processes: "svcplane server", procNames: []string{"svcplane server"}, pods: 30000,
		readyz: 500 * time.Millisecond, nodesReady: 10 * time.Second, created: 60 * time.Second, all: 100 * time.Second,
		p50: 4.5, p99: 12, mutating: 61000, mutP50: 0.05, mutP99: 0.757,
		before: []int64{200 * MB, 200 * MB}, now: []int64{200*MB + 30000*40*1024, 200*MB + 30000*40*1024}, peak: []int64{2000 * MB, 2000 * MB},
		agentPeak: 335 * MB, readyzOK: 150, notReadyRun: 0, held: true, cpu: []float64{390, 60}}
	up := &nodesResult{side: "upstream", processes: "kube-apiserver + etcd", procNames: []string{"kube-apiserver", "etcd"}, pods: 30000,
		created: 30 * time.Second, before: []int64{300 * MB, 250 * MB, 50 * MB}, now: []int64{900 * MB, 700 * MB, 200 * MB}, peak: []int64{1000 * MB, 780 * MB, 220 * MB},
		readyzOK: 140, readyzFail: 2, notReadyRun: 3, notReadyEnd: 1, cpu: []float64{300, 150, 66}}
	var out bytes.Buffer
	nodesTable([]*nodesResult{sv, up}).print(&out)
	text := out.String()
	for _, want := range []string{
		`(?m)^ +svcplane +upstream$`,
		`(?m)^pods created \(s; pods/s\) +60\.0; 500 +30\.0; 1000$`,
		`(?m)^mutating requests: count, p50 / p99 \(ms\) +61000, 50 / 757 +0, 0 / 0$`,
		`(?m)^  svcplane server before / now / peak \(MB\) +200 / 1372 / 2000 +—$`,
		`(?m)^  kube-apiserver before / now / peak \(MB\) +— +250 / 700 / 780$`,
		`(?m)^server-side CPU, 1st create → all Ready \(s; ms per pod\) +390\.0; 13\.00 +450\.0; 15\.00$`,
		`(?m)^  etcd CPU \(s\) +— +150\.0$`,
		`(?m)^agent CPU \(s; ms per pod\) +60\.0; 2\.00 +66\.0; 2\.20$`,
		`(?m)^KB per pod over before \(now / peak\) +40\.0 / 61\.4 +20\.5 / 23\.9$`,
		`(?m)^/readyz 200 / failed \(1 s samples\) +150 / 0 +140 / 2$`,
		`(?m)^NotReady nodes max: run / hold / end +0 / 0 / 0 +3 / — / 1$`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("table lacks %s:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n"); n != len(nodesTable([]*nodesResult{sv, up}).rows)+1 {
		t.Errorf("%d lines", n)
	}
}
