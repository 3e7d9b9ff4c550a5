package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
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

// TestEachSide: a heading per side only when there are two; results in
// order; an error names its side and ends the loop.
func TestEachSide(t *testing.T) {
	var out bytes.Buffer
	got, err := eachSide(&out, []string{SideSvcplane}, func(side string) (string, error) { return side + "!", nil })
	if err != nil || !slices.Equal(got, []string{"svcplane!"}) || out.Len() != 0 {
		t.Errorf("one side: %v %v %q", got, err, out.String())
	}
	var ran []string
	lens, err := eachSide(&out, []string{SideSvcplane, SideUpstream}, func(side string) (int, error) {
		ran = append(ran, side)
		fmt.Fprintln(&out, "ran")
		return len(side), nil
	})
	if err != nil || !slices.Equal(lens, []int{8, 8}) || out.String() != "== svcplane ==\nran\n== upstream ==\nran\n" {
		t.Errorf("two sides: %v %v %q", lens, err, out.String())
	}
	ran = nil
	_, err = eachSide(io.Discard, []string{SideSvcplane, SideUpstream}, func(side string) (int, error) {
		ran = append(ran, side)
		return 0, errors.New("boom")
	})
	if err == nil || err.Error() != "svcplane side: boom" || len(ran) != 1 {
		t.Errorf("error: %v after %v", err, ran)
	}
}

// TestSideColumns: a column per result under its side's name, a row per
// call.
func TestSideColumns(t *testing.T) {
	tab, row := sideColumns([]int{1, 2}, func(i int) string { return fmt.Sprint("side", i) })
	row("double", func(i int) string { return fmt.Sprint(2 * i) })
	var out bytes.Buffer
	tab.print(&out)
	if want := "        side1  side2\ndouble  2      4\n"; out.String() != want {
		t.Errorf("table %q, want %q", out.String(), want)
	}
	if got := addNew([]string{"a"}, []string{"b", "a", "c"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("addNew %v", got)
	}
}

// TestDeploymentTable: both sides in columns, per-pod figures from the
// phase's CPU (server side summed, agent apart), "—" for a process one
// side lacks.
func TestDeploymentTable(t *testing.T) {
	sv := &deploymentResult{side: "svcplane", processes: "one", procNames: []string{"svcplane server", "agent"}, pods: 1000,
		available: 10 * time.Second, gone: 5 * time.Second, createCPU: []float64{10, 2}, deleteCPU: []float64{5, 1}, createMutating: 4500, deleteMutating: 3000}
	up := &deploymentResult{side: "upstream", processes: "four", procNames: []string{"kube-apiserver", "etcd", "agent"}, pods: 1000,
		available: 30 * time.Second, gone: 9 * time.Second, createCPU: []float64{20, 4, 3}, deleteCPU: []float64{8, 2, 1}, createMutating: 7000, deleteMutating: 3500}
	var out bytes.Buffer
	deploymentTable([]*deploymentResult{sv, up}).print(&out)
	for _, want := range []string{
		`Available with every replica \(s\) +10\.0 +30\.0`,
		`mutating requests \(per pod\) +4500 \(4\.50\) +7000 \(7\.00\)`,
		`server-side CPU \(s; ms per pod\) +10\.0; 10\.00 +24\.0; 24\.00`,
		`svcplane server CPU \(s\) +10\.0 +—`,
		`etcd CPU \(s\) +— +4\.0`,
		`agent CPU \(s; ms per pod\) +2\.0; 2\.00 +3\.0; 3\.00`,
		`background delete, none left \(s\) +5\.0 +9\.0`,
		`server-side CPU \(s; ms per pod\) +5\.0; 5\.00 +10\.0; 10\.00`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("no line matching %q in\n%s", want, out.String())
		}
	}
}
