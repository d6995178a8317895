package pipeline

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestShardOf: for every shard count, the shards partition the checks
// (each exactly once), each shard's list is in key order, the split does
// not depend on the order the checks come in, and the loads are balanced
// to within the largest check.
func TestShardOf(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var checks []Check
	for i := 0; i < 97; i++ {
		checks = append(checks, Check{Key: Key{Suite: "s", Function: fmt.Sprintf("f%03d", i)}, Cost: 1 + r.Int63n(5000)})
	}
	for n := 1; n <= 7; n++ {
		seen := map[Key]int{}
		var loads []int64
		var maxCost int64
		for i := 0; i < n; i++ {
			shuffled := append([]Check(nil), checks...)
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			a, b := ShardOf(checks, Shard{i, n}), ShardOf(shuffled, Shard{i, n})
			if n > 1 && fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("shard %d/%d depends on the order of the plan", i, n)
			}
			var load int64
			for k, c := range a {
				seen[c.Key]++
				load += c.Cost
				maxCost = max(maxCost, c.Cost)
				if k > 0 && !a[k-1].Key.less(c.Key) {
					t.Fatalf("shard %d/%d is not in key order", i, n)
				}
			}
			loads = append(loads, load)
		}
		if len(seen) != len(checks) {
			t.Fatalf("%d shards hold %d of %d checks", n, len(seen), len(checks))
		}
		for k, times := range seen {
			if times != 1 {
				t.Fatalf("%d shards: %v is in %d of them", n, k, times)
			}
		}
		lo, hi := loads[0], loads[0]
		for _, l := range loads {
			lo, hi = min(lo, l), max(hi, l)
		}
		if hi-lo > maxCost {
			t.Errorf("%d shards: loads %v differ by more than the largest check (%d)", n, loads, maxCost)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, ok := range []string{"0/1", "1/2", "3/4"} {
		if _, err := ParseShard(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "2/2", "-1/2", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
