package x86

import (
	"errors"
	"os"
	"testing"
)

// FuzzHarvest feeds mutated ELF objects to the harvester: it must return a
// typed error or a file whose every function decodes into a well-formed CFG,
// and never panic.
func FuzzHarvest(f *testing.F) {
	for _, cc := range compilers {
		for _, opt := range optLevels {
			if _, err := os.Stat("/usr/bin/" + cc); err != nil {
				continue
			}
			data, err := os.ReadFile(compileObject(f, cc, opt, "sample.c"))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Add([]byte("not an object"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.o", data)
		if err != nil {
			var (
				e1 *NotELFError
				e2 *NotX86_64Error
				e3 *TruncatedError
				e4 *MalformedError
			)
			if !errors.As(err, &e1) && !errors.As(err, &e2) && !errors.As(err, &e3) && !errors.As(err, &e4) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		for i, fn := range file.Functions {
			if i == 64 {
				break
			}
			checkCFG(t, file.Analyze(fn))
		}
		file.LiftSummaries()
	})
}

// FuzzDecodeCFG decodes arbitrary bytes as a function: never a panic, and
// the CFG invariants hold whatever the bytes.
func FuzzDecodeCFG(f *testing.F) {
	f.Add([]byte{0xc3})
	f.Add([]byte{0x48, 0x85, 0xff, 0x74, 0x05, 0x48, 0x8b, 0x3f, 0xeb, 0xf6, 0xc3}) // test; je; mov; jmp back; ret
	f.Add([]byte{0xff, 0xe0, 0x06, 0xd9, 0xc9, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x0f}) // jmp rax; bad; fxch; call; truncated
	f.Add([]byte{0x75, 0xfe, 0xeb, 0xfd, 0x74, 0x01, 0xc3, 0xc3})                   // self loops, jump into an instruction
	f.Fuzz(func(t *testing.T, code []byte) {
		insts := DecodeBytes(code, 0x1000)
		n := 0
		for _, in := range insts {
			if in.Len <= 0 || in.Addr != 0x1000+uint64(n) {
				t.Fatalf("instruction %v at offset %d", in, n)
			}
			n += in.Len
		}
		if n != len(code) {
			t.Fatalf("decoded %d of %d bytes", n, len(code))
		}
		fn := BuildCFG("fuzz", 0x1000, insts)
		checkCFG(t, fn)
		fn.Summary()
	})
}
