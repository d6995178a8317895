package x86

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// arMembers returns the members of a Unix ar archive that are ELF files.
func arMembers(data []byte) [][]byte {
	if !bytes.HasPrefix(data, []byte("!<arch>\n")) {
		return nil
	}
	var out [][]byte
	for p := 8; p+60 <= len(data); {
		size, err := strconv.Atoi(strings.TrimSpace(string(data[p+48 : p+58])))
		if err != nil || size < 0 || p+60+size > len(data) {
			break
		}
		body := data[p+60 : p+60+size]
		if bytes.HasPrefix(body, []byte("\x7fELF")) {
			out = append(out, body)
		}
		p += 60 + size + size%2
	}
	return out
}

// BenchmarkDecodeCFG measures decoding plus CFG construction (dominators,
// loops, SCCs) over every function of the system's libc.a, in instructions
// per second. Harvesting is outside the timed loop.
func BenchmarkDecodeCFG(b *testing.B) {
	data, err := os.ReadFile("/usr/lib/x86_64-linux-gnu/libc.a")
	if err != nil {
		b.Skip("no libc.a:", err)
	}
	var files []*File
	for i, m := range arMembers(data) {
		f, err := Parse("libc.a["+strconv.Itoa(i)+"]", m)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	b.ResetTimer()
	insts := 0
	for b.Loop() {
		for _, f := range files {
			for _, fn := range f.Functions {
				insts += len(f.Analyze(fn).Insts)
			}
		}
	}
	b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
	b.ReportMetric(float64(insts)/float64(b.N), "insts/op")
}

// BenchmarkHarvest measures ELF and DWARF harvesting of a -O0 object.
func BenchmarkHarvest(b *testing.B) {
	data, err := os.ReadFile(compileObject(b, "gcc", "-O0", "sample.c"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("sample.o", data); err != nil {
			b.Fatal(err)
		}
	}
}
