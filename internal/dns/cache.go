package dns

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// answerCacheBudget bounds one socket's cached questions and answers, in
// bytes: about 10,000 entries of a typical A question and answer.
const answerCacheBudget = 2 << 20

// entryOverhead approximates an entry's bytes beyond its key and answer
// (the map slot, the struct).
const entryOverhead = 96

// packedAnswer is the packed UDP answer to one question and what its
// metrics need; the ID (first two bytes) is the asker's to fill in.
type packedAnswer struct {
	buf       []byte
	reqLen    int
	series    *reqSeries
	responses prometheus.Counter
}

// answerCache holds packed UDP answers by the exact bytes of the question
// after its ID (with the asker's address family in front): identical
// bytes, including the letter case of the name, the flags and any EDNS0
// record, get an identical answer from the same index. Entries belong to
// one generation of the index: the first use after a change empties it.
// Only answers from the index alone go in (not forwarded ones, nor an
// ExternalName chased upstream). One per UDP socket; safe for concurrent
// use (the socket's reader and its goroutines for misses).
type answerCache struct {
	mu    sync.Mutex
	gen   uint64
	m     map[string]*packedAnswer
	bytes int
}

func newAnswerCache() *answerCache { return &answerCache{m: map[string]*packedAnswer{}} }

// get returns the answer to key valid at generation gen, or nil.
func (c *answerCache) get(key []byte, gen uint64) *packedAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		c.reset(gen)
		return nil
	}
	return c.m[string(key)]
}

// put stores a's answer to key, computed at generation gen (a stale one
// is dropped), evicting entries as the budget needs.
func (c *answerCache) put(key []byte, gen uint64, a *packedAnswer) {
	size := len(key) + len(a.buf) + entryOverhead
	if size > answerCacheBudget/16 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return
	case gen > c.gen:
		c.reset(gen)
	}
	if old, ok := c.m[string(key)]; ok {
		c.bytes -= len(key) + len(old.buf) + entryOverhead
	}
	for k, v := range c.m { // a random victim: map iteration starts anywhere
		if c.bytes+size <= answerCacheBudget {
			break
		}
		c.bytes -= len(k) + len(v.buf) + entryOverhead
		delete(c.m, k)
	}
	c.m[string(key)] = a
	c.bytes += size
}

// reset empties the cache for generation gen. c.mu held.
func (c *answerCache) reset(gen uint64) {
	clear(c.m)
	c.bytes, c.gen = 0, gen
}

// len is the number of entries.
func (c *answerCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
