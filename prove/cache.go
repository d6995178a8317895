package prove

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// Cache answers repeated queries from memory. Queries are keyed by their
// exact text (by its SHA-256, so a long query costs 32 bytes of key): the
// ir printer emits canonical text, with variables renamed in order of first
// occurrence, so alpha-equivalent queries share a key. Only definite answers
// are kept: an Unknown depends on the time allowed and the machine's load,
// and a retry may well succeed.
//
// The bound is on the number of entries, evicting the least recently used.
// Two goroutines missing on the same query at once both ask the solver;
// that wastes work but keeps the cache simple and never blocks one query on
// another's deadline.
type Cache struct {
	inner TextSolver
	max   int

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*list.Element
	lru     list.List // of *cacheEntry, most recently used at the front
	hits    int64
	misses  int64
}

type cacheEntry struct {
	key    [sha256.Size]byte
	answer Answer
}

// CacheStats counts lookups since the Cache was made.
type CacheStats struct {
	Hits, Misses int64
	Entries      int
}

// NewCache puts a cache of at most max entries in front of inner. It takes
// ownership of inner: Close closes it.
func NewCache(inner TextSolver, max int) *Cache {
	if max < 1 {
		panic("prove: NewCache needs a positive size")
	}
	return &Cache{inner: inner, max: max, entries: map[[sha256.Size]byte]*list.Element{}}
}

// Name is the inner solver's name.
func (c *Cache) Name() string { return c.inner.Name() }

// Close closes the inner solver.
func (c *Cache) Close() error { return c.inner.Close() }

// Stats returns the hit and miss counts and the current size.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Entries: c.lru.Len()}
}

// CheckText returns the cached answer for script, with Cached set and
// Elapsed the lookup time, or asks the inner solver and remembers a
// definite answer.
func (c *Cache) CheckText(ctx context.Context, script string) Answer {
	start := time.Now()
	key := sha256.Sum256([]byte(script))
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.hits++
		c.lru.MoveToFront(el)
		a := el.Value.(*cacheEntry).answer
		c.mu.Unlock()
		a.Cached = true
		a.Elapsed = time.Since(start)
		return a
	}
	c.misses++
	c.mu.Unlock()

	a := c.inner.CheckText(ctx, script)
	if !a.Status.Definite() {
		return a
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok { // a concurrent miss got here first
		c.lru.MoveToFront(el)
		return a
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, answer: a})
	for c.lru.Len() > c.max {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*cacheEntry).key)
	}
	return a
}
