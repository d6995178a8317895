package notebooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureOf names the fixture of a notebook whose results are not named
// after it (by default testdata/<notebook>): eqc.ipynb reads tsvc's,
// thesis.ipynb the SPEC-like suite's.
var fixtureOf = map[string]string{"eqc": "tsvc", "thesis": "spec"}

// TestNotebooksRun executes every notebook headless (jupyter nbconvert
// --execute) on the committed fixture of its results, with the eqc built
// from this tree, and checks that it produced its table and its figure.
func TestNotebooksRun(t *testing.T) {
	jupyter, err := exec.LookPath("jupyter-nbconvert")
	if err != nil {
		t.Skip("jupyter-nbconvert not installed (make deps installs it)")
	}
	bin := filepath.Join(t.TempDir(), "eqc")
	if out, err := exec.Command("go", "build", "-o", bin, "eqc/cmd/eqc").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	books, _ := filepath.Glob("*.ipynb")
	if len(books) == 0 {
		t.Fatal("no notebooks")
	}
	for _, nb := range books {
		name := strings.TrimSuffix(nb, ".ipynb")
		t.Run(name, func(t *testing.T) {
			fx := name
			if f, ok := fixtureOf[name]; ok {
				fx = f
			}
			fixture, err := filepath.Abs(filepath.Join("testdata", fx))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(fixture); err != nil {
				t.Fatalf("no fixture for %s: %v", nb, err)
			}
			work := t.TempDir()
			for _, f := range []string{nb, "eqcdata.py"} {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(work, f), data, 0o644)
			}
			cmd := exec.Command(jupyter, "--to", "html", "--execute", "--ExecutePreprocessor.timeout=300", nb)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "EQC_RESULTS="+fixture, "EQC="+bin)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", nb, err, out)
			}
			html, err := os.ReadFile(filepath.Join(work, name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(html), "<table") || strings.Contains(string(html), "Traceback") {
				t.Errorf("%s: the HTML has no table, or a traceback", nb)
			}
			if figs, _ := filepath.Glob(filepath.Join(work, "figures", "*.png")); len(figs) == 0 {
				t.Errorf("%s made no figure", nb)
			}
		})
	}
}
