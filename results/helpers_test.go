package results

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

var stringPool = []string{
	"", "tsvc", "s000", "vpvtv", "gcc-13", "clang-17", "O0", "O3", "Os", "-march=x86-64-v3 -fno-inline",
	"all", "none", "sio,tbsa", "static", "data", "auto", "timeout", "unsupported:vpgatherdd",
	"naïve → ünïcode ✓", "pipe | in | text", "tab\tand\nnewline", `{"rdi":"0x10","rsi":"0xffffffff"}`,
}

func randomString(rng *rand.Rand) string {
	if rng.IntN(4) == 0 {
		// Arbitrary valid UTF-8, including multi-byte runes.
		n := rng.IntN(40)
		rs := make([]rune, n)
		for i := range rs {
			switch rng.IntN(3) {
			case 0:
				rs[i] = rune(0x20 + rng.IntN(0x5f))
			case 1:
				rs[i] = rune(0xa0 + rng.IntN(0x700))
			default:
				rs[i] = rune(0x1f300 + rng.IntN(0x200))
			}
		}
		return string(rs)
	}
	return stringPool[rng.IntN(len(stringPool))]
}

func nonEmpty(rng *rand.Rand) string {
	for {
		if s := randomString(rng); s != "" {
			return s
		}
	}
}

func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return math.SmallestNonzeroFloat64 * float64(1+rng.IntN(1000))
	case 2:
		return math.MaxFloat64 * rng.Float64()
	case 3:
		return float64(rng.IntN(100000)) / 8
	}
	return rng.ExpFloat64() * 30
}

func randomCount(rng *rand.Rand) int64 {
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return math.MaxInt64 - rng.Int64N(3)
	case 2:
		return rng.Int64()
	}
	return rng.Int64N(10000)
}

// randomRow is a valid row with every column exercised.
func randomRow(rng *rand.Rand) Row {
	r := Row{
		Suite: nonEmpty(rng), Benchmark: nonEmpty(rng), Function: nonEmpty(rng), Compiler: nonEmpty(rng),
		SrcOpt: randomString(rng), DstOpt: nonEmpty(rng), CFlags: randomString(rng), UBModel: randomString(rng),
		Engine: nonEmpty(rng), Verdict: []string{Equivalent, NotEquivalent, Unknown}[rng.IntN(3)],
		Reason: randomString(rng),
		WallS:  randomFloat(rng), CPUS: randomFloat(rng), SMTQueries: randomCount(rng), SMTS: randomFloat(rng),
		CacheHits: randomCount(rng), ALOCSrc: randomCount(rng), ALOCDst: randomCount(rng),
		LoopsSrc: randomCount(rng), LoopsDst: randomCount(rng), CompositeEdgesDst: randomCount(rng),
		CallsSrc: randomCount(rng), CallsDst: randomCount(rng),
		ProductNodes: randomCount(rng), ProductEdges: randomCount(rng), Invariants: randomCount(rng),
		AlignmentPredicatesTried: randomCount(rng), CorrelationsTried: randomCount(rng),
		Backtracks: randomCount(rng), Counterexamples: randomCount(rng), TestVectors: randomCount(rng),
		BlockCoverage: rng.Float64(), TimeoutS: randomFloat(rng), EQCVersion: randomString(rng),
		StartedAt: time.UnixMicro(946684800_000000 + rng.Int64N(100*365*24*3600*1_000_000)).UTC(),
		SrcFile:   randomString(rng), DstFile: randomString(rng), DstFunction: randomString(rng),
		ProofFile: randomString(rng), CexInput: randomString(rng), Error: randomString(rng),
		ProofVerified: rng.IntN(2) == 0,
	}
	if r.Verdict == Unknown && r.Reason == "" {
		r.Reason = "timeout"
	}
	if rng.IntN(10) == 0 {
		r.BlockCoverage = 1
	}
	return r
}

func randomRows(seed uint64, n int) []Row {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = randomRow(rng)
	}
	return rows
}

// sameRows fails t unless got and want are equal column by column.
func sameRows(t *testing.T, got, want []Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].StartedAt.Equal(want[i].StartedAt) || got[i].StartedAt.Location() != time.UTC {
			t.Fatalf("row %d: started_at %v, want %v (UTC)", i, got[i].StartedAt, want[i].StartedAt)
		}
		g, w := got[i], want[i]
		g.StartedAt, w.StartedAt = time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, w) {
			gv, wv := reflect.ValueOf(g), reflect.ValueOf(w)
			for f := 0; f < gv.NumField(); f++ {
				if !reflect.DeepEqual(gv.Field(f).Interface(), wv.Field(f).Interface()) {
					t.Errorf("row %d column %s: got %#v, want %#v", i, columnName(gv.Type().Field(f)), gv.Field(f).Interface(), wv.Field(f).Interface())
				}
			}
			t.FailNow()
		}
	}
}

// writeFile writes rows to path and closes it.
func writeFile(t testing.TB, path string, rows []Row, opts ...Option) {
	t.Helper()
	w, err := Create(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// validRow is a small valid row for hand-built cases.
func validRow() Row {
	return Row{Suite: "tsvc", Benchmark: "s000", Function: "s000", Compiler: "gcc", SrcOpt: "O0", DstOpt: "O3",
		UBModel: "all", Engine: "static", Verdict: Equivalent, WallS: 1.5,
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)}
}
