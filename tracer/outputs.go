package tracer

import "bytes"

// Output calls compared by meaning (outputs.go). Compilers rewrite printf
// and fprintf with a literal format into puts, putchar, fputs, fputc or
// fwrite (x86/stdio.go), and clang writes fwrite(p, n, 1, f) where gcc
// writes fwrite(p, 1, n, f): the two runs of a correct compilation then
// log calls of other names, or other arguments, that write the same bytes
// to the same stream. Such a pair is compared by what it writes; when
// that cannot be read (a string outside the image's read-only data, whose
// bytes at the call the run does not keep) it is not compared. Either
// way the later observables are not compared: the stubs' results differ
// (printf's count is not puts's).

// outputNames are the calls of the C library's output functions this
// comparison knows.
var outputNames = map[string]bool{"printf": true, "fprintf": true, "puts": true, "putchar": true,
	"fputs": true, "fputc": true, "putc": true, "fwrite": true}

// outputMeaning is what call c of side s writes: the stream (stdout when
// toStdout) and the bytes, when every byte is read-only data of the image.
func (st *cmpState) outputMeaning(s *confirmSide, c Call) (stream uint64, toStdout bool, data []byte, ok bool) {
	arg := func(i int) (uint64, bool) {
		if i < len(c.Args) {
			return c.Args[i], true
		}
		return 0, false
	}
	str := func(i int) ([]byte, bool) {
		p, ok := arg(i)
		if !ok {
			return nil, false
		}
		if _, kind := s.exe.canon.key(p); kind != canonReadOnly {
			return nil, false
		}
		var out []byte
		for q := p; len(out) < canonStringMax; q++ {
			b := s.exe.canon.byteAt(q)
			if b == 0 {
				return out, true
			}
			out = append(out, b)
		}
		return nil, false
	}
	char := func(i int) ([]byte, bool) {
		v, ok := arg(i)
		return []byte{byte(v)}, ok
	}
	// format writes what printf's format at argument i does with the
	// argument after it, for the formats compilers rewrite.
	format := func(i int) ([]byte, bool) {
		f, ok := str(i)
		switch {
		case !ok:
			return nil, false
		case string(f) == "%s\n":
			v, ok := str(i + 1)
			return append(v, '\n'), ok
		case string(f) == "%s":
			return str(i + 1)
		case string(f) == "%c":
			return char(i + 1)
		case bytes.IndexByte(f, '%') >= 0:
			return nil, false
		}
		return f, true
	}
	var ok1, ok2 bool
	switch c.Name {
	case "printf":
		data, ok1 = format(0)
		return 0, true, data, ok1
	case "puts":
		data, ok1 = str(0)
		return 0, true, append(data, '\n'), ok1
	case "putchar":
		data, ok1 = char(0)
		return 0, true, data, ok1
	case "fprintf":
		stream, ok2 = arg(0)
		data, ok1 = format(1)
	case "fputs":
		data, ok1 = str(0)
		stream, ok2 = arg(1)
	case "fputc", "putc":
		data, ok1 = char(0)
		stream, ok2 = arg(1)
	case "fwrite":
		p, okP := arg(0)
		size, okS := arg(1)
		count, okC := arg(2)
		stream, ok2 = arg(3)
		if !okP || !okS || !okC || size*count > canonStringMax || size > canonStringMax || count > canonStringMax {
			return 0, false, nil, false
		}
		if _, kind := s.exe.canon.key(p); kind != canonReadOnly {
			return 0, false, nil, false
		}
		for q := p; q < p+size*count; q++ {
			data = append(data, s.exe.canon.byteAt(q))
		}
		ok1 = true
	}
	return stream, false, data, ok1 && ok2
}

// compareOutputs compares calls[i], a and b, by what they write when both
// are output calls that differ in name or, for fwrite, in how they split
// the length. It reports whether it did, and what compareCalls returns
// then.
func (st *cmpState) compareOutputs(i int, a, b Call) (handled, result bool) {
	if !outputNames[a.Name] || !outputNames[b.Name] {
		return false, false
	}
	if a.Name == b.Name && (a.Name != "fwrite" || len(a.Args) < 3 || len(b.Args) < 3 || a.Args[1] == b.Args[1] && a.Args[2] == b.Args[2]) {
		return false, false
	}
	sa, outA, da, okA := st.outputMeaning(st.src, a)
	sb, outB, db, okB := st.outputMeaning(st.dst, b)
	if !okA || !okB || outA != outB {
		st.note("calls[%d]: %s and %s may write the same bytes (compilers rewrite printf so); not compared, nor what follows", i, st.showCall(st.src, a), st.showCall(st.dst, b))
		return true, false
	}
	if !outA {
		switch st.arg(nil, sa, sb) {
		case wordDiffer:
			st.differ("calls[%d]: src %s dst %s (other streams)", i, st.showCall(st.src, a), st.showCall(st.dst, b))
			return true, true
		case wordInconclusive:
			st.note("calls[%d]: the streams of %s and %s are layout-dependent addresses: not compared, nor what follows", i, a.Name, b.Name)
			return true, false
		}
	}
	if !bytes.Equal(da, db) {
		st.differ("calls[%d]: src %s writes %q, dst %s writes %q", i, a.Name, da, b.Name, db)
		return true, true
	}
	st.note("calls[%d]: %s and %s write the same bytes %q; their results differ by nature: later observables not compared", i, a.Name, b.Name, da)
	return true, false
}
