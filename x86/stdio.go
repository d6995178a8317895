package x86

import (
	"strings"

	"eqc/ir"
)

// Output calls the compilers rewrite (stdio.go). gcc at every level, and
// clang from -O1, turn a printf or fprintf whose format is a literal they
// can read into the plainer call the C standard makes it equal to:
//
//	printf("hello\n")        puts("hello")
//	printf("x")              putchar('x')
//	printf("%s\n", s)        puts(s)
//	printf("%c", c)          putchar(c)
//	fprintf(f, "oops\n")     fwrite("oops\n", 1, 5, f)
//	fprintf(f, "x")          fputc('x', f)
//	fprintf(f, "%s", s)      fputs(s, f)
//	fprintf(f, "%c", c)      fputc(c, f)
//
// (clang writes the literal as fwrite("oops\n", 5, 1, f): a write of
// constant size and count is taken as fwrite(p, 1, size·count, f))
// so a clang -O0 source calls printf where its -O2 build calls puts. When
// the two functions of a pair call printf and fprintf a different number
// of times (Callees.Stdio), every such call, on both sides, is lifted as
// the call it is equal to (within the path that sets its format: no call
// site node), with that callee's prototype (StdioProtos: the
// source never declared puts). The two writes are the same event; their
// results are not (printf returns how many bytes it wrote, puts only a
// non-negative value), and compilers rewrite only calls whose result is
// unused, so a rewritten call's result is a fresh value: a proof that used
// it fails. Native runs compare such calls by the bytes they write
// (tracer's outputMeaning).

// StdioProtos are the prototypes of the calls printf and fprintf become,
// from the C standard, for when neither file declares them.
var StdioProtos = map[string]*FuncDebug{
	"puts":    stdioProto(intType, charPtr),
	"putchar": stdioProto(intType, intType),
	"fputs":   stdioProto(intType, charPtr, voidPtr),
	"fputc":   stdioProto(intType, intType, voidPtr),
	"putc":    stdioProto(intType, intType, voidPtr),
	"fwrite":  stdioProto(sizeType, voidPtr, sizeType, sizeType, voidPtr),
}

var (
	intType  = Type{Name: "int", Kind: KindInt, Size: 4, Signed: true}
	sizeType = Type{Name: "size_t", Kind: KindInt, Size: 8}
	charPtr  = Type{Name: "const char *", Kind: KindPointer, Size: 8, Pointee: "char", PointeeSize: 1, PointeeKind: KindInt, PointeeSigned: true}
	voidPtr  = Type{Name: "void *", Kind: KindPointer, Size: 8, PointeeSize: -1}
)

func stdioProto(ret Type, params ...Type) *FuncDebug {
	fd := &FuncDebug{Return: ret}
	for _, p := range params {
		fd.Params = append(fd.Params, Variable{Type: p})
	}
	return fd
}

// stdioRewrite is the call printf or fprintf (name) makes on state s when
// its format is a literal of one of the forms above: the callee's name and
// the values of its argument registers, by register.
func stdioRewrite(b *ir.Builder, s *State, name string) (string, map[int]ir.Term, bool) {
	if name == "fwrite" {
		// clang writes a literal as fwrite(p, n, 1, f), gcc as
		// fwrite(p, 1, n, f): the same bytes.
		size, ok1 := constOf(b, s.GPR[RSI])
		count, ok2 := constOf(b, s.GPR[RDX])
		if !ok1 || !ok2 || size == 1 || size > 1<<20 || count > 1<<20 {
			return "", nil, false
		}
		return "fwrite", map[int]ir.Term{RSI: b.Const(64, 1), RDX: b.Const(64, size*count)}, true
	}
	// The format, and the first argument after it.
	fmtReg, nextReg, stream := RDI, RSI, ir.NoTerm
	if name == "fprintf" {
		fmtReg, nextReg, stream = RSI, RDX, s.GPR[RDI]
	} else if name != "printf" {
		return "", nil, false
	}
	text, ok := literalText(b, s.GPR[fmtReg])
	if !ok {
		return "", nil, false
	}
	next := s.GPR[nextReg]
	lit := func(t string) ir.Term { return b.Var(LiteralAddrVar(t), ir.BVSort(64)) }
	char := func(c byte) ir.Term { return b.Const(64, uint64(c)) }
	if name == "printf" {
		switch {
		case text == "%s\n":
			return "puts", map[int]ir.Term{RDI: next}, true
		case text == "%c":
			return "putchar", map[int]ir.Term{RDI: next}, true
		case strings.Contains(text, "%"):
		case len(text) == 1:
			return "putchar", map[int]ir.Term{RDI: char(text[0])}, true
		case len(text) > 1 && strings.HasSuffix(text, "\n"):
			return "puts", map[int]ir.Term{RDI: lit(text[:len(text)-1])}, true
		}
		return "", nil, false
	}
	switch {
	case text == "%s":
		return "fputs", map[int]ir.Term{RDI: next, RSI: stream}, true
	case text == "%c":
		return "fputc", map[int]ir.Term{RDI: next, RSI: stream}, true
	case strings.Contains(text, "%") || text == "":
	case len(text) == 1:
		return "fputc", map[int]ir.Term{RDI: char(text[0]), RSI: stream}, true
	default:
		return "fwrite", map[int]ir.Term{RDI: lit(text), RSI: b.Const(64, 1), RDX: b.Const(64, uint64(len(text))), RCX: stream}, true
	}
	return "", nil, false
}

// stdioCall reports whether the call at cs may be rewritten: a call of
// printf or fprintf when the pair's counts of them differ. Such a call has
// no node of its own, so that the path that set its format register
// reaches it (a node's state is its variables).
func (l *lifter) stdioCall(cs CallSite) bool {
	if l.callees == nil || !l.callees.Stdio || !cs.HasCallee {
		return false
	}
	name := calleeName(cs)
	return name == "printf" || name == "fprintf" || name == "fwrite"
}

// pairStdio reports whether src and dst call printf and fprintf a
// different number of times (one side's calls rewritten: stdio.go).
func pairStdio(src, dst *Function) bool {
	cs, cd := callCounts(src), callCounts(dst)
	return cs["printf"]+cs["fprintf"] != cd["printf"]+cd["fprintf"]
}
