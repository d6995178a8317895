package x86

import (
	"os"
	"strconv"
	"testing"

	"eqc/ir"
)

// BenchmarkLiftTFG measures lifting into TFGs (symbolic execution of every
// block with the semantics, calls and symbolic addresses) over every
// function of the system's libc.a, in instructions per second. Harvesting,
// decoding and the CFG are outside the timed loop.
func BenchmarkLiftTFG(b *testing.B) {
	data, err := os.ReadFile("/usr/lib/x86_64-linux-gnu/libc.a")
	if err != nil {
		b.Skip("no libc.a:", err)
	}
	type unit struct {
		f  *File
		fn *Function
	}
	var units []unit
	for i, m := range arMembers(data) {
		f, err := Parse("libc.a["+strconv.Itoa(i)+"]", m)
		if err != nil {
			b.Fatal(err)
		}
		for _, fn := range f.Functions {
			units = append(units, unit{f, f.Analyze(fn)})
		}
	}
	b.ResetTimer()
	insts, full := 0, 0
	for b.Loop() {
		full = 0
		for _, u := range units {
			g := BuildTFG(ir.NewBuilder(), u.fn, TFGOptions{File: u.f})
			insts += len(u.fn.Insts)
			if len(g.Unsupported) == 0 {
				full++
			}
		}
	}
	b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
	b.ReportMetric(float64(full)/float64(len(units)), "fully-lifted")
}
