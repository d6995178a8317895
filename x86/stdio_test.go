package x86

import (
	"fmt"
	"strings"
	"testing"

	"eqc/ir"
)

// TestStdioRewrite lifts clang -O0's printf and fprintf calls with the
// rewrite on (Callees.Stdio) and checks each becomes the call gcc and
// clang -O2 make of it, with its arguments: the literal without its
// newline for puts, the character for putchar, fwrite's size 1 and
// length; a format with a conversion it does not know stays printf.
func TestStdioRewrite(t *testing.T) {
	obj := compileObject(t, "clang-16", "-O0", "stdio.c")
	f := mustOpen(t, obj)
	for _, c := range []struct{ fn, want string }{
		{"f", `puts(str:"hello")`},
		{"g", `fwrite(str:"oops\n", 1, 5, rdi)`},
		{"h", `puts(rdi)`},
		{"k", `putchar(120)`},
		{"m", `fputs(rsi, rdi) fputc(121, rdi)`},
		{"n", `printf(str:"%d\n", rdi)`},
	} {
		b := ir.NewBuilder()
		callees := &Callees{Protos: map[string]*FuncDebug{}, Sites: map[string]SiteArgs{"printf": {Int: 2}, "fprintf": {Int: 3}}, Stdio: true}
		for name, p := range StdioProtos {
			callees.Protos[name] = p
		}
		g := BuildTFG(b, mustFunction(t, f, c.fn), TFGOptions{File: f, Callees: callees})
		var got []string
		for _, e := range g.Edges {
			for _, call := range e.Calls {
				got = append(got, showCall(b, call))
			}
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%s: %s, want %s", c.fn, s, c.want)
		}
	}
}

// showCall prints call with each argument as a value of the edge's start
// state: a constant in decimal, a literal's or a register's name (the
// entry register a -O0 slot was stored from, through the calls that keep
// the frame).
func showCall(b *ir.Builder, call ir.Call) string {
	var parts []string
	for _, a := range call.Args[:len(call.Args)-2] {
		parts = append(parts, argName(b, a))
	}
	return fmt.Sprintf("%s(%s)", call.Callee, strings.Join(parts, ", "))
}

func argName(b *ir.Builder, a ir.Term) string {
	switch b.Op(a) {
	case ir.OpConst:
		return fmt.Sprint(b.ConstValue(a).Uint64())
	case ir.OpVar:
		return strings.TrimPrefix(b.VarName(a), "&")
	case ir.OpZeroExt, ir.OpSignExt, ir.OpExtract:
		return argName(b, b.Arg(a, 0))
	case ir.OpSelect:
		// A -O0 argument loaded from the slot it was stored in.
		m, at := b.Arg(a, 0), b.Arg(a, 1)
		for {
			switch b.Op(m) {
			case ir.OpStore:
				if b.Arg(m, 1) == at {
					return argName(b, b.Arg(m, 2))
				}
				m = b.Arg(m, 0)
				continue
			case ir.OpApply:
				args := b.Args(m)
				m = args[len(args)-1]
				continue
			}
			break
		}
	}
	return b.Short(a)
}
