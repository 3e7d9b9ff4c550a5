package dns

import (
	"runtime"
	"strconv"
	"sync"
	"time"

	mdns "github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/svcplane/svcplane/internal/version"
)

// Metrics are CoreDNS's series under CoreDNS's names and labels (plugins
// metrics, forward, health), so its dashboards and alerts work unchanged.
// The server block is "dns://<addr>" in zone "." (kubeadm's Corefile); view
// is always "".
type Metrics struct {
	Registry *prometheus.Registry

	requests     *prometheus.CounterVec
	responses    *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	requestSize  *prometheus.HistogramVec
	responseSize *prometheus.HistogramVec
	fwdRequests  *prometheus.CounterVec
	fwdResponses *prometheus.CounterVec
	fwdDuration  *prometheus.HistogramVec
	panics       prometheus.Counter
	healthDur    prometheus.Histogram

	// Resolved series by label values: looking them up per question cost
	// a third of a question's time.
	reqSeries  sync.Map // reqKey → *reqSeries
	respSeries sync.Map // [3]string{server, rcode, plugin} → prometheus.Counter
}

type reqKey struct {
	server, proto string
	family        int
	qtype         uint16
}

type reqSeries struct {
	requests               prometheus.Counter
	duration, reqSize, out prometheus.Observer
}

// sizeBuckets are CoreDNS's request and response size buckets.
var sizeBuckets = []float64{0, 100, 200, 300, 400, 511, 1023, 2047, 4095, 8291, 16e3, 32e3, 48e3, 64e3}

// NewMetrics registers the series (with the Go and process collectors) in
// a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	durBuckets := prometheus.ExponentialBuckets(0.00025, 2, 16)
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "coredns", Subsystem: "dns", Name: "requests_total",
		Help: "Counter of DNS requests made per zone, protocol and family."}, []string{"server", "zone", "view", "proto", "family", "type"})
	m.responses = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "coredns", Subsystem: "dns", Name: "responses_total",
		Help: "Counter of response status codes."}, []string{"server", "zone", "view", "rcode", "plugin"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "coredns", Subsystem: "dns", Name: "request_duration_seconds",
		Buckets: durBuckets, Help: "Histogram of the time (in seconds) each request took per zone."}, []string{"server", "zone", "view", "type"})
	m.requestSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "coredns", Subsystem: "dns", Name: "request_size_bytes",
		Buckets: sizeBuckets, Help: "Size of the EDNS0 UDP buffer in bytes (64K for TCP) per zone and protocol."}, []string{"server", "zone", "view", "proto"})
	m.responseSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "coredns", Subsystem: "dns", Name: "response_size_bytes",
		Buckets: sizeBuckets, Help: "Size of the returned response in bytes."}, []string{"server", "zone", "view", "proto"})
	m.fwdRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "coredns", Subsystem: "forward", Name: "requests_total",
		Help: "Counter of requests made per upstream."}, []string{"to"})
	m.fwdResponses = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "coredns", Subsystem: "forward", Name: "responses_total",
		Help: "Counter of responses received per upstream."}, []string{"to", "rcode"})
	m.fwdDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "coredns", Subsystem: "forward", Name: "request_duration_seconds",
		Buckets: durBuckets, Help: "Histogram of the time each request took."}, []string{"to", "rcode"})
	m.panics = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "coredns", Name: "panics_total", Help: "A metrics that counts the number of panics."})
	m.healthDur = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "coredns", Subsystem: "health", Name: "request_duration_seconds",
		Buckets: durBuckets, Help: "Histogram of the time (in seconds) each request took."})
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "coredns", Name: "build_info",
		Help: "A metric with a constant '1' value labeled by version, revision, and goversion from which CoreDNS was built."},
		[]string{"version", "revision", "goversion"})
	build.WithLabelValues(version.Get().GitVersion, version.Get().GitCommit, runtime.Version()).Set(1)
	m.Registry.MustRegister(m.requests, m.responses, m.duration, m.requestSize, m.responseSize,
		m.fwdRequests, m.fwdResponses, m.fwdDuration, m.panics, m.healthDur, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe records one request (reqLen bytes) and its response (respLen
// bytes; resp nil: none).
func (m *Metrics) observe(server, proto string, family int, req, resp *mdns.Msg, reqLen, respLen int, plugin string, d time.Duration) {
	rs := m.requestSeries(server, proto, family, req.Question[0].Qtype)
	if resp == nil {
		rs.requests.Inc()
		rs.duration.Observe(d.Seconds())
		rs.reqSize.Observe(float64(reqLen))
		return
	}
	m.observeAnswer(rs, m.responseSeries(server, resp.Rcode, plugin), reqLen, respLen, d)
}

// observeAnswer records one request and its answer in resolved series.
func (m *Metrics) observeAnswer(rs *reqSeries, responses prometheus.Counter, reqLen, respLen int, d time.Duration) {
	rs.requests.Inc()
	rs.duration.Observe(d.Seconds())
	rs.reqSize.Observe(float64(reqLen))
	responses.Inc()
	rs.out.Observe(float64(respLen))
}

// requestSeries are the request series of one server, protocol, family
// and question type.
func (m *Metrics) requestSeries(server, proto string, family int, qtype uint16) *reqSeries {
	k := reqKey{server, proto, family, qtype}
	v, ok := m.reqSeries.Load(k)
	if !ok {
		label := typeLabel(k.qtype)
		v, _ = m.reqSeries.LoadOrStore(k, &reqSeries{
			requests: m.requests.WithLabelValues(server, ".", "", proto, strconv.Itoa(family), label),
			duration: m.duration.WithLabelValues(server, ".", "", label),
			reqSize:  m.requestSize.WithLabelValues(server, ".", "", proto),
			out:      m.responseSize.WithLabelValues(server, ".", "", proto),
		})
	}
	return v.(*reqSeries)
}

// responseSeries is the response counter of one server, rcode and plugin.
func (m *Metrics) responseSeries(server string, rcode int, plugin string) prometheus.Counter {
	rk := [3]string{server, mdns.RcodeToString[rcode], plugin}
	c, ok := m.respSeries.Load(rk)
	if !ok {
		c, _ = m.respSeries.LoadOrStore(rk, m.responses.WithLabelValues(server, ".", "", rk[1], plugin))
	}
	return c.(prometheus.Counter)
}

// observeForward records one upstream exchange (rcode -1: no answer).
func (m *Metrics) observeForward(to string, rcode int, d time.Duration) {
	m.fwdRequests.WithLabelValues(to).Inc()
	if rcode < 0 {
		return
	}
	rc := mdns.RcodeToString[rcode]
	m.fwdResponses.WithLabelValues(to, rc).Inc()
	m.fwdDuration.WithLabelValues(to, rc).Observe(d.Seconds())
}

// typeLabel is CoreDNS's bounded "type" label: the common types by name,
// the rest "other".
func typeLabel(t uint16) string {
	switch t {
	case mdns.TypeA, mdns.TypeAAAA, mdns.TypeCNAME, mdns.TypeSRV, mdns.TypePTR, mdns.TypeTXT, mdns.TypeSOA,
		mdns.TypeNS, mdns.TypeMX, mdns.TypeANY, mdns.TypeHTTPS, mdns.TypeSVCB, mdns.TypeDS, mdns.TypeDNSKEY,
		mdns.TypeRRSIG, mdns.TypeNSEC, mdns.TypeNSEC3, mdns.TypeHINFO, mdns.TypeNAPTR, mdns.TypeIXFR, mdns.TypeAXFR:
		return mdns.TypeToString[t]
	}
	return "other"
}
