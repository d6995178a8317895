package pipeline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shards (shard.go). A sweep's checks split into N shards that run apart
// (on a cluster, one Slurm array task each: eqc slurm) and write their
// own results files into one --out. The split is a function of the plan
// alone, so every shard, on any machine, computes the same one and no
// check is run twice or left out: the checks are dealt out largest first
// (by Cost, the two functions' code size, then by key), each to the shard
// with the least cost so far (the lowest index on a tie), so shards take
// about equal time. Resume works per shard: a shard runs those of its
// checks that have no row under --out yet, whoever wrote it.

// Shard is one part of a sweep: Index of Count (0 <= Index < Count).
// The zero Shard is the whole sweep.
type Shard struct{ Index, Count int }

// Whole says s is the whole sweep.
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads "I/N".
func ParseShard(text string) (Shard, error) {
	i, n, ok := strings.Cut(text, "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return Shard{}, fmt.Errorf("bad shard %q: want I/N with 0 <= I < N", text)
	}
	return Shard{a, b}, nil
}

// ShardOf returns shard s's checks, in key order (the whole sweep's
// checks as they are: the plan is in key order).
func ShardOf(checks []Check, s Shard) []Check {
	if s.Whole() {
		return checks
	}
	order := slices.Clone(checks)
	slices.SortStableFunc(order, func(a, b Check) int {
		if a.Cost != b.Cost {
			if a.Cost > b.Cost {
				return -1
			}
			return 1
		}
		return a.Key.compare(b.Key)
	})
	load := make([]int64, s.Count)
	var mine []Check
	for _, c := range order {
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		load[k] += c.Cost
		if k == s.Index {
			mine = append(mine, c)
		}
	}
	slices.SortStableFunc(mine, func(a, b Check) int { return a.Key.compare(b.Key) })
	return mine
}
