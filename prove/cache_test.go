package prove

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"eqc/ir/smtlib"
)

func TestCacheHits(t *testing.T) {
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache(lib, 100)
	defer c.Close()
	qs := queries()[:6]
	for round := 0; round < 3; round++ {
		for _, q := range qs {
			a := c.CheckText(context.Background(), q.script())
			if a.Status != q.want {
				t.Fatalf("%s: %v %q", q.name, a.Status, a.Reason)
			}
			if a.Cached != (round > 0) {
				t.Errorf("round %d %s: Cached = %v", round, q.name, a.Cached)
			}
			if a.Status == smtlib.Sat && a.Model == "" {
				t.Errorf("%s: cached sat answer lost its model", q.name)
			}
		}
	}
	want := CacheStats{Hits: 2 * int64(len(qs)), Misses: int64(len(qs)), Entries: len(qs)}
	if got := c.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

func TestCacheSkipsUnknown(t *testing.T) {
	c := NewCache(fakeSolver(t, "echo unknown"), 10)
	for i := 0; i < 3; i++ {
		if a := c.CheckText(context.Background(), tinySat); a.Status != smtlib.Unknown || a.Cached {
			t.Fatalf("got %+v", a)
		}
	}
	if got := c.Stats(); got != (CacheStats{Misses: 3}) {
		t.Errorf("Stats = %+v", got)
	}
}

func TestCacheEvictsLRU(t *testing.T) {
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache(lib, 2)
	defer c.Close()
	q := func(i int) string { return fmt.Sprintf("(declare-const x (_ BitVec 8))\n(assert (= x #x%02x))\n", i) }
	ctx := context.Background()
	c.CheckText(ctx, q(1))
	c.CheckText(ctx, q(2))
	c.CheckText(ctx, q(1)) // hit; 2 is now least recently used
	c.CheckText(ctx, q(3)) // evicts 2
	if a := c.CheckText(ctx, q(1)); !a.Cached {
		t.Error("1 was evicted")
	}
	if a := c.CheckText(ctx, q(2)); a.Cached {
		t.Error("2 was not evicted")
	}
	if s := c.Stats(); s.Entries != 2 || s.Hits != 2 || s.Misses != 4 {
		t.Errorf("Stats = %+v", s)
	}
}

// TestCacheConcurrent hammers one cache from several goroutines (run it
// with -race); every answer must be right and hits+misses must add up.
func TestCacheConcurrent(t *testing.T) {
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache(lib, 4)
	defer c.Close()
	qs := queries()
	var wg sync.WaitGroup
	const workers, per = 4, 20
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				q := qs[(w+i)%6]
				if a := c.CheckText(context.Background(), q.script()); a.Status != q.want {
					t.Errorf("%s: %v %q", q.name, a.Status, a.Reason)
				}
			}
		}()
	}
	wg.Wait()
	if s := c.Stats(); s.Hits+s.Misses != workers*per || s.Entries > 4 {
		t.Errorf("Stats = %+v", s)
	}
}
