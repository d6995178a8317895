package tracer

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// compile writes src to a C file and compiles it with cc into an object.
func compile(t testing.TB, cc, name, src string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath(cc); err != nil {
		t.Fatalf("%s not installed (run `make deps`)", cc)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	o := filepath.Join(dir, name+".o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-g", "-fno-pie", "-c", "-o", o, c}, flags...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	return o
}

// build compiles src, links it with its driver and starts it.
func build(t testing.TB, name, src string, lo LinkOptions, flags ...string) (*Executable, *Process) {
	t.Helper()
	obj := compile(t, "gcc", name, src, flags...)
	if lo.Dir == "" {
		lo.Dir = filepath.Dir(obj)
	}
	exe, err := Link(obj, lo)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(exe, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return exe, p
}
