package rbac

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/lru"
)

// Cached remembers the RBAC decisions of recent requests, keyed by what
// RBAC reads (user name, groups and the request's verb, group, resource,
// subresource, namespace, name or path), until any Role, ClusterRole or
// binding changes (Invalidate, called from their informers' events).
// A request repeated by a controller or a client loop then costs a map
// look-up instead of a walk over every binding.
type Cached struct {
	*Authorizer
	gen   atomic.Uint64
	cache *lru.Cache
}

type cachedDecision struct {
	gen      uint64
	decision authorizer.Decision
	reason   string
}

// NewCached wraps a with a cache of size decisions.
func NewCached(a *Authorizer, size int) *Cached {
	return &Cached{Authorizer: a, cache: lru.New(size)}
}

// Invalidate forgets every cached decision (an RBAC object changed).
func (c *Cached) Invalidate() { c.gen.Add(1) }

// Authorize answers from the cache or from RBAC. Decisions that met a
// resolution error are not kept.
func (c *Cached) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	gen := c.gen.Load() // before reading any role: a change after this misses
	key := cacheKey(a)
	if v, ok := c.cache.Get(key); ok {
		if d := v.(cachedDecision); d.gen == gen {
			return d.decision, d.reason, nil
		}
	}
	d, reason, err := c.Authorizer.Authorize(ctx, a)
	if err == nil && (d == authorizer.DecisionAllow || reason == "") {
		c.cache.Add(key, cachedDecision{gen: gen, decision: d, reason: reason})
	}
	return d, reason, err
}

// cacheKey is everything RBAC's decision depends on.
func cacheKey(a authorizer.Attributes) string {
	u := a.GetUser()
	var b strings.Builder
	b.WriteString(u.GetName())
	for _, g := range u.GetGroups() {
		b.WriteByte(0)
		b.WriteString(g)
	}
	b.WriteByte(1)
	b.WriteString(strconv.FormatBool(a.IsResourceRequest()))
	for _, s := range []string{a.GetVerb(), a.GetAPIGroup(), a.GetResource(), a.GetSubresource(), a.GetNamespace(), a.GetName(), a.GetPath()} {
		b.WriteByte(0)
		b.WriteString(s)
	}
	return b.String()
}
