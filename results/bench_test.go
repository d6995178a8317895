package results

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const benchRows = 100_000

// sweepRows is what a sweep writes: 3 suites × 2 compilers × 3 levels ×
// 2 UB models × 2 engines over a few hundred functions per suite; low
// cardinality text, realistic numbers.
func sweepRows(n int) []Row {
	rng := rand.New(rand.NewPCG(7, 8))
	rows := make([]Row, n)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		fn := fmt.Sprintf("f%04d", i/72%1400)
		v, reason := Equivalent, ""
		switch rng.IntN(10) {
		case 0:
			v, reason = Unknown, "timeout"
		case 1:
			v, reason = Unknown, "unsupported:vpgatherdd"
		case 2:
			v = NotEquivalent
		}
		rows[i] = Row{
			Suite: []string{"tsvc", "spec2006", "glibc"}[i/72/1400%3], Benchmark: "b" + fn[:3], Function: fn,
			Compiler: []string{"gcc-13", "clang-17"}[i%2], SrcOpt: "O0", DstOpt: []string{"O1", "O2", "O3"}[i/2%3],
			CFlags: "-fno-inline", UBModel: []string{"all", "none"}[i/6%2], Engine: []string{"static", "data"}[i/12%2],
			Verdict: v, Reason: reason, WallS: rng.ExpFloat64() * 20, CPUS: rng.ExpFloat64() * 40,
			SMTQueries: rng.Int64N(5000), SMTS: rng.ExpFloat64() * 15, CacheHits: rng.Int64N(1000),
			ALOCSrc: rng.Int64N(300), ALOCDst: rng.Int64N(300), LoopsSrc: rng.Int64N(4), LoopsDst: rng.Int64N(6),
			CompositeEdgesDst: rng.Int64N(100), ProductNodes: rng.Int64N(10), ProductEdges: rng.Int64N(50),
			Invariants: rng.Int64N(1500), AlignmentPredicatesTried: rng.Int64N(20), CorrelationsTried: rng.Int64N(200),
			Backtracks: rng.Int64N(30), Counterexamples: rng.Int64N(40), TestVectors: 64, BlockCoverage: rng.Float64(),
			TimeoutS: 600, EQCVersion: "v0.1.0", StartedAt: start.Add(time.Duration(i) * time.Second),
			SrcFile: "out/" + fn + "-O0.o", DstFile: "out/" + fn + "-O3.o",
		}
	}
	return rows
}

func benchWrite(b *testing.B, rows []Row) {
	dir := b.TempDir()
	path := filepath.Join(dir, "w.parquet")
	b.ReportAllocs()
	for b.Loop() {
		os.Remove(path)
		writeFile(b, path, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/float64(len(rows)), "bytes/row")
	}
}

func benchRead(b *testing.B, rows []Row) {
	path := filepath.Join(b.TempDir(), "r.parquet")
	writeFile(b, path, rows)
	b.ReportAllocs()
	for b.Loop() {
		got, err := ReadFile(path)
		if err != nil || len(got) != len(rows) {
			b.Fatalf("%d rows, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
}

func BenchmarkWrite100k(b *testing.B)       { benchWrite(b, sweepRows(benchRows)) }
func BenchmarkRead100k(b *testing.B)        { benchRead(b, sweepRows(benchRows)) }
func BenchmarkWrite100kRandom(b *testing.B) { benchWrite(b, randomRows(60, benchRows)) }
func BenchmarkRead100kRandom(b *testing.B)  { benchRead(b, randomRows(61, benchRows)) }

func BenchmarkReport100k(b *testing.B) {
	rows := sweepRows(benchRows)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteReport(io.Discard, rows, Text); err != nil {
			b.Fatal(err)
		}
	}
}
