package bench

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// syncCounts are the proxy's kubeproxy_sync_{full,partial}_proxy_rules
// duration histograms' _count and _sum as its /metrics serves them.
type syncCounts struct {
	fullCount, partialCount int
	fullSum, partialSum     float64
	// lastSync is kubeproxy_sync_proxy_rules_last_timestamp_seconds:
	// when the last successful sync ended (Unix seconds).
	lastSync float64
}

// lastSyncTime is lastSync as a time.
func (c syncCounts) lastSyncTime() time.Time {
	return time.Unix(0, int64(c.lastSync*float64(time.Second)))
}

func (c syncCounts) total() int { return c.fullCount + c.partialCount }

// since is what the syncs between prev and c took: their number, how many
// were full, and their summed duration.
func (c syncCounts) since(prev syncCounts) (n, full int, d time.Duration) {
	n = c.total() - prev.total()
	full = c.fullCount - prev.fullCount
	sum := c.fullSum - prev.fullSum + c.partialSum - prev.partialSum
	return n, full, time.Duration(sum * float64(time.Second))
}

// scrapeInterval is how often the bench reads a proxy's metrics while it
// waits for syncs. The figures come from the metrics, not from this
// polling; the interval only keeps the reads from taking the proxy's CPU
// (uncompressed too: gzip of every scrape was a quarter of the proxy's CPU
// at 10 ms).
const scrapeInterval = 50 * time.Millisecond

// scrapeSyncs reads the sync histograms from a proxy's metrics address.
func scrapeSyncs(addr string) (syncCounts, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return syncCounts{}, err
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return syncCounts{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return syncCounts{}, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseSyncs(resp.Body)
}

// parseSyncs picks the four samples out of the Prometheus text format.
func parseSyncs(r io.Reader) (syncCounts, error) {
	var c syncCounts
	const prefix = "kubeproxy_sync_"
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), " ")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return c, fmt.Errorf("metric %s: %w", name, err)
		}
		switch strings.TrimPrefix(name, prefix) {
		case "full_proxy_rules_duration_seconds_count":
			c.fullCount = int(v)
		case "full_proxy_rules_duration_seconds_sum":
			c.fullSum = v
		case "partial_proxy_rules_duration_seconds_count":
			c.partialCount = int(v)
		case "partial_proxy_rules_duration_seconds_sum":
			c.partialSum = v
		case "proxy_rules_last_timestamp_seconds":
			c.lastSync = v
		}
	}
	return c, s.Err()
}
