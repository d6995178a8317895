package prove

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sampleProof is a small, valid proof of the loop engine's shape: an
// entry, a loop head with an invariant, an exit; a paired back edge, an
// exit edge and an infeasible one.
func sampleProof() *ProofFile {
	one, two := 1, 2
	pf := NewProofFile(EngineLoops)
	pf.Source = FileRef{Path: "a.O0.o", Function: "add", SHA256: strings.Repeat("ab", 32)}
	pf.Target = FileRef{Path: "a.O3.o", Function: "add", SHA256: strings.Repeat("cd", 32)}
	pf.Context = []FileRef{{Path: "globals.o", SHA256: strings.Repeat("01", 32)}}
	pf.UB = "none"
	pf.Assumptions = []string{"rsp ≡ 8 (mod 16) at entry", "distinct globals are disjoint"}
	pf.Product = Graph{
		Nodes: []ProofNode{
			{ID: 0, Src: Anchor{0x0, "entry"}, Dst: Anchor{0x0, "entry"}},
			{ID: 1, Src: Anchor{0x1c, "loop-head"}, Dst: Anchor{0x10, "loop-head"},
				Defined:    []string{"n1.src.rbp = (bvadd src.rsp #xfffffffffffffff8)"},
				Invariants: []string{"(bvult |n1.src.stack-0xc/4| #x00000401)", "(= (bvmul #x00000004 |n1.src.stack-0xc/4|) ((_ extract 31 0) n1.dst.rax))"}},
			{ID: 2, Src: Anchor{0, "exit"}, Dst: Anchor{0, "exit"}},
		},
		Edges: []ProofEdge{
			{From: 0, To: &one, DstTo: Anchor{0x10, "loop-head"}, SrcPath: &PathSpec{To: Anchor{0x1c, "loop-head"}, Arrivals: 1, Mu: 0}},
			{From: 1, To: &one, DstTo: Anchor{0x10, "loop-head"}, SrcPath: &PathSpec{To: Anchor{0x1c, "loop-head"}, Arrivals: 4, Mu: 4}},
			{From: 1, To: &two, DstTo: Anchor{0, "exit"}, SrcPath: &PathSpec{To: Anchor{0, "exit"}, Arrivals: 1, Mu: 4}},
			{From: 1, DstTo: Anchor{0, "halt"}, Infeasible: true},
		},
	}
	pf.Obligations = []string{"n0→n1 (dst 0x10, src 0x1c×1): source takes the paired paths"}
	return pf
}

func TestProofFileRoundTrip(t *testing.T) {
	pf := sampleProof()
	path := filepath.Join(t.TempDir(), "add.proof.json")
	if err := WriteProof(path, pf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadProof(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, pf) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, pf)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{`"format": "eqc-proof"`, `"version": 2`, `"pc": "0x1c"`, `"infeasible": true`, `(bvult |n1.src.stack-0xc/4|`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
	// No temporary file is left beside it.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want the proof alone", len(entries))
	}
}

// An empty source path (the data-driven engine's: the source stays while
// the target steps) is valid at the from-node's own source anchor.
func TestProofFileEmptySourcePath(t *testing.T) {
	pf := sampleProof()
	pf.Product.Edges[1].SrcPath.Arrivals, pf.Product.Edges[1].SrcPath.Mu = 0, 0
	var buf bytes.Buffer
	if err := EncodeProof(&buf, pf); err != nil {
		t.Fatalf("EncodeProof: %v", err)
	}
	back, err := DecodeProof(&buf)
	if err != nil {
		t.Fatalf("DecodeProof: %v", err)
	}
	if got := back.Product.Edges[1].SrcPath; got.Arrivals != 0 || got.To != pf.Product.Edges[1].SrcPath.To {
		t.Errorf("round trip gave %+v", got)
	}
}

func TestProofFileRejectsMalformed(t *testing.T) {
	valid := func() string {
		var buf bytes.Buffer
		if err := EncodeProof(&buf, sampleProof()); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}()
	for _, tc := range []struct {
		name string
		edit func(pf *ProofFile) // applied to a valid proof, when set
		text func(string) string // applied to the valid text, when set
		want string
	}{
		{name: "not JSON", text: func(string) string { return "(proof)" }, want: "invalid character"},
		{name: "unknown field", text: func(s string) string { return strings.Replace(s, `"ub_model"`, `"trust_me": true, "ub_model"`, 1) }, want: "unknown field"},
		{name: "trailing data", text: func(s string) string { return s + "{}" }, want: "data after"},
		{name: "pc not hex", text: func(s string) string { return strings.Replace(s, `"0x1c"`, `"28"`, 1) }, want: "0x"},
		{name: "other format", edit: func(pf *ProofFile) { pf.Format = "coq" }, want: "format"},
		{name: "newer version", edit: func(pf *ProofFile) { pf.Version = ProofVersion + 1 }, want: fmt.Sprintf("version %d", ProofVersion+1)},
		{name: "older version", edit: func(pf *ProofFile) { pf.Version = 1 }, want: "version 1"},
		{name: "via edges out of order", edit: func(pf *ProofFile) {
			pf.Product.Edges[0].DstVia = []ViaEdge{{ID: 3, From: 0x10, To: 0x20}, {ID: 2, From: 0x20, To: 0x30}}
		}, want: "dst_via"},
		{name: "unknown engine", edit: func(pf *ProofFile) { pf.Engine = "magic" }, want: "engine"},
		{name: "no target hash", edit: func(pf *ProofFile) { pf.Target.SHA256 = "" }, want: "target: sha256"},
		{name: "uppercase hash", edit: func(pf *ProofFile) { pf.Source.SHA256 = strings.Repeat("AB", 32) }, want: "source: sha256"},
		{name: "no function", edit: func(pf *ProofFile) { pf.Source.Function = "" }, want: "no function"},
		{name: "no UB model", edit: func(pf *ProofFile) { pf.UB = "" }, want: "ub_model"},
		{name: "no nodes", edit: func(pf *ProofFile) { pf.Product.Nodes = nil }, want: "no nodes"},
		{name: "ids out of order", edit: func(pf *ProofFile) { pf.Product.Nodes[1].ID = 7 }, want: "id 7"},
		{name: "dangling edge", edit: func(pf *ProofFile) { n := 9; pf.Product.Edges[0].To = &n }, want: "existing to-node"},
		{name: "edge from nowhere", edit: func(pf *ProofFile) { pf.Product.Edges[0].From = -1 }, want: "from-node -1"},
		{name: "paired without path", edit: func(pf *ProofFile) { pf.Product.Edges[0].SrcPath = nil }, want: "src_path"},
		{name: "infeasible with path", edit: func(pf *ProofFile) { pf.Product.Edges[0].Infeasible = true }, want: "infeasible edge"},
		{name: "zero arrivals with loop passes", edit: func(pf *ProofFile) { pf.Product.Edges[1].SrcPath.Arrivals = 0 }, want: "empty src_path"},
		{name: "negative arrivals", edit: func(pf *ProofFile) { pf.Product.Edges[1].SrcPath.Arrivals = -1 }, want: "arrivals ≥ 0"},
		{name: "empty path elsewhere", edit: func(pf *ProofFile) { pf.Product.Edges[2].SrcPath.Arrivals, pf.Product.Edges[2].SrcPath.Mu = 0, 0 }, want: "empty src_path"},
		{name: "bad definition", edit: func(pf *ProofFile) { pf.Product.Nodes[1].Defined = []string{"rbp"} }, want: "name = term"},
		{name: "shared offset out of range", edit: func(pf *ProofFile) {
			pf.Runs = []ExtraRun{{Seed: 64, Args: []Addr{0, 0}, Shared: []int64{0, MaxSharedOffset + 1}}}
		}, want: "shared offset 1"},
		{name: "invariant not an S-expression", edit: func(pf *ProofFile) { pf.Product.Nodes[1].Invariants[0] = "(bvult x" }, want: "invariant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := valid
			if tc.edit != nil {
				pf, err := DecodeProof(strings.NewReader(valid))
				if err != nil {
					t.Fatal(err)
				}
				tc.edit(pf)
				if err := EncodeProof(new(bytes.Buffer), pf); err == nil {
					t.Errorf("EncodeProof wrote the malformed proof")
				}
				text = mustJSON(t, pf)
			}
			if tc.text != nil {
				text = tc.text(text)
			}
			path := filepath.Join(t.TempDir(), "p.json")
			os.WriteFile(path, []byte(text), 0o644)
			_, err := ReadProof(path)
			var m *MalformedProofError
			if !errors.As(err, &m) {
				t.Fatalf("ReadProof = %v, want a *MalformedProofError", err)
			}
			if m.Path != path || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q (path %q), want it to name the file and mention %q", err, m.Path, tc.want)
			}
		})
	}
	if _, err := ReadProof(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

// mustJSON encodes pf without validating it.
func mustJSON(t *testing.T, pf *ProofFile) string {
	t.Helper()
	var buf bytes.Buffer
	enc := jsonEncoder(&buf)
	if err := enc.Encode(pf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestHashFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("abc"), 0o644)
	h, err := HashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// SHA-256("abc"), FIPS 180-2 appendix B.1.
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; h != want {
		t.Errorf("HashFile = %s, want %s", h, want)
	}
}
