package prove

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"eqc/ir/smtlib"
)

// Proof files: what an "equivalent" verdict rests on, written so that a
// checker can rebuild every obligation from the two binaries and this file
// alone, without the search that found it (docs/design.md, Verdicts). The file
// names the binaries by content (SHA-256), so a proof cannot be replayed
// against other code; it lists the assumptions about the calling context,
// the product graph (nodes pairing a source and a target anchor, edges
// pairing a target path between anchors with a source path set, or marking
// it impossible), each node's invariants as SMT-LIB terms over the node's
// variables and the entry state, and the names of the obligations the
// search discharged. Nothing in the file is trusted by the checker: the
// graph is rebuilt from the binaries and compared, and every invariant is
// re-proved inductive.
//
// The format is JSON. ReadProof rejects anything it does not know (unknown
// fields, another format version, dangling edges) with a
// *MalformedProofError, so a file either means exactly what this version
// says or is refused.

// Proof file identification.
const (
	ProofFormat  = "eqc-proof"
	ProofVersion = 2 // 2: edges' dst_via
)

// Engines a proof file may name.
const (
	EngineLoopFree = "loop-free"
	EngineLoops    = "loops"
)

// ProofFile is one proof of equivalence of a source and a target function.
type ProofFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Engine is the engine that built the product: "loop-free" (one edge
	// from entry to exit, no invariants) or "loops".
	Engine string  `json:"engine"`
	Source FileRef `json:"source"`
	Target FileRef `json:"target"`
	// Context are the files whose DWARF facts about globals the
	// assumptions use (Function is empty).
	Context []FileRef `json:"context,omitempty"`
	// UB is the undefined-behaviour model the check ran under.
	UB string `json:"ub_model"`
	// Assumptions are the facts about the calling context every
	// obligation assumed, in the engine's words and order.
	Assumptions []string `json:"assumptions"`
	Product     Graph    `json:"product"`
	// Runs are the co-executions the loop engine added from the solver's
	// counterexamples (beyond the seeded ones every check runs), which
	// the checker reruns before it rebuilds the product; in order.
	Runs []ExtraRun `json:"counterexample_runs,omitempty"`
	// Obligations are the names of the obligations the search discharged
	// (for the reader; the checker discharges its own).
	Obligations []string `json:"obligations"`
	// Bridge, in a proof through the source's sanitizer build (the
	// witness), is the proof that the source agrees with the witness:
	// then this proof's Source is the witness, its Target the target, and
	// the bridge's Source the same witness, its Target the source. Both
	// assume the witness reaches none of its checks, so together they say
	// that the source and the target agree on every input free of the
	// undefined behaviour those checks catch (align/witnessproof.go).
	Bridge *ProofFile `json:"bridge,omitempty"`
}

// FileRef names a file by the path it was given as, and its contents.
type FileRef struct {
	Path     string `json:"path"`
	Function string `json:"function,omitempty"`
	SHA256   string `json:"sha256"`
}

// Graph is a product graph.
type Graph struct {
	Nodes []ProofNode `json:"nodes"`
	Edges []ProofEdge `json:"edges"`
}

// Anchor is a program point of one side: the address of the instruction
// about to run (0 for the exit and abnormal end) and the kind of point
// ("entry", "loop-head", "exit", "halt", ...).
type Anchor struct {
	PC   Addr   `json:"pc"`
	Kind string `json:"kind"`
}

func (a Anchor) String() string { return fmt.Sprintf("%s %#x", a.Kind, uint64(a.PC)) }

// Addr is a code address, written as a hexadecimal string.
type Addr uint64

// MarshalJSON writes "0x…".
func (a Addr) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`"%#x"`, uint64(a))), nil
}

// UnmarshalJSON reads "0x…".
func (a *Addr) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("an address is a string \"0x…\": %v", err)
	}
	hexDigits, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return fmt.Errorf("address %q does not start with 0x", s)
	}
	v, err := strconv.ParseUint(hexDigits, 16, 64)
	if err != nil {
		return fmt.Errorf("address %q: %v", s, err)
	}
	*a = Addr(v)
	return nil
}

// ExtraRun is a co-execution started from a solver's model: the entry
// state of seeded run Seed with its integer argument registers (the SysV
// argument registers, in order; only those carrying integer parameters
// are used) set to Args, and the first bytes each pointer parameter
// points to set to Pointees (by argument register, hexadecimal; "" for
// none). Shared, when set, places the pointer parameters in one array,
// each Shared[i] bytes past its start (by argument register; -1 for one
// with an array of its own), as the
// model's pointers lie (a loop versioned on its arrays' overlap takes its
// fallback then). Long runs go as far as the first seeded run does.
type ExtraRun struct {
	Seed     int      `json:"seed"`
	Args     []Addr   `json:"args"` // values, written "0x…" as addresses are
	Pointees []string `json:"pointees,omitempty"`
	Shared   []int64  `json:"shared,omitempty"`
	Long     bool     `json:"long,omitempty"`
}

// MaxSharedOffset bounds an ExtraRun's Shared offsets.
const MaxSharedOffset = 4096

// Pointee is the bytes r sets where argument register i points: nil for
// none, and for a nil r.
func (r *ExtraRun) Pointee(i int) []byte {
	if r == nil || i >= len(r.Pointees) {
		return nil
	}
	b, err := hex.DecodeString(r.Pointees[i])
	if err != nil {
		return nil
	}
	return b
}

// ProofNode is a product node.
type ProofNode struct {
	ID  int    `json:"id"`
	Src Anchor `json:"src"`
	Dst Anchor `json:"dst"`
	// Defined are the state components the node defines over the entry
	// state instead of giving them a variable, as "name = term" with the
	// name the variable would have had; sorted.
	Defined []string `json:"defined,omitempty"`
	// Invariants are SMT-LIB terms over the node's variables and the
	// entry state.
	Invariants []string `json:"invariants,omitempty"`
}

// ProofEdge is a product edge: the target's path from the From node's
// target anchor to DstTo (through no other anchor), and either the source
// path set it is paired with, leading to node To, or Infeasible: the
// target cannot take that path at From.
type ProofEdge struct {
	From  int    `json:"from"`
	To    *int   `json:"to,omitempty"`
	DstTo Anchor `json:"dst_to"`
	// DstVia, when set, restricts the target's paths to those that take
	// only these edges of its TFG: one target step split by the source
	// path sets its paths pair with (PLDI'19 Figure 3). The checker
	// requires the step's via sets to cover every path of it.
	DstVia     []ViaEdge `json:"dst_via,omitempty"`
	SrcPath    *PathSpec `json:"src_path,omitempty"`
	Infeasible bool      `json:"infeasible,omitempty"`
}

// ViaEdge is an edge of the target's TFG: its number (the lifter's, in
// the order it builds the TFG) and the addresses of its ends, which the
// checker compares with the edge it numbers so.
type ViaEdge struct {
	ID   int  `json:"id"`
	From Addr `json:"from"`
	To   Addr `json:"to"`
}

// PathSpec is a source path set: from the from-node's source anchor to
// anchor To, ending at its Arrivals-th arrival there, going around loops
// at most Mu times. Arrivals 0 is the empty path: To is then the
// from-node's own source anchor and Mu is 0 (the source stays while the
// target takes its step).
type PathSpec struct {
	To       Anchor `json:"to"`
	Arrivals int    `json:"arrivals"`
	Mu       int    `json:"mu"`
}

// MalformedProofError reports a proof file that is not a valid proof file
// of this version: unreadable JSON, unknown fields, another format or
// version, or an inconsistent graph.
type MalformedProofError struct {
	Path string // the file, when read from one
	What string
}

func (e *MalformedProofError) Error() string {
	if e.Path == "" {
		return "malformed proof: " + e.What
	}
	return fmt.Sprintf("malformed proof file %s: %s", e.Path, e.What)
}

// NewProofFile returns an empty proof of the given engine, of this format
// version.
func NewProofFile(engine string) *ProofFile {
	return &ProofFile{Format: ProofFormat, Version: ProofVersion, Engine: engine}
}

// Validate checks what a proof file must satisfy to mean anything: the
// format and version, known engine, named and hashed files, node ids in
// order, edges between existing nodes, paired edges with a path set and
// infeasible ones without, invariants that are S-expressions.
func (pf *ProofFile) Validate() error {
	bad := func(format string, a ...any) error {
		return &MalformedProofError{What: fmt.Sprintf(format, a...)}
	}
	if pf.Format != ProofFormat {
		return bad("format %q, want %q", pf.Format, ProofFormat)
	}
	if pf.Version != ProofVersion {
		return bad("version %d, this eqc reads version %d", pf.Version, ProofVersion)
	}
	if pf.Engine != EngineLoopFree && pf.Engine != EngineLoops {
		return bad("engine %q, want %q or %q", pf.Engine, EngineLoopFree, EngineLoops)
	}
	checkRef := func(what string, r FileRef, fn bool) error {
		if r.Path == "" {
			return bad("%s: no path", what)
		}
		if fn && r.Function == "" {
			return bad("%s: no function", what)
		}
		if d, err := hex.DecodeString(r.SHA256); err != nil || len(d) != sha256.Size || strings.ToLower(r.SHA256) != r.SHA256 {
			return bad("%s: sha256 %q is not 64 lowercase hex digits", what, r.SHA256)
		}
		return nil
	}
	if err := checkRef("source", pf.Source, true); err != nil {
		return err
	}
	if err := checkRef("target", pf.Target, true); err != nil {
		return err
	}
	for i, c := range pf.Context {
		if err := checkRef(fmt.Sprintf("context[%d]", i), c, false); err != nil {
			return err
		}
	}
	if pf.UB == "" {
		return bad("no ub_model")
	}
	for i, r := range pf.Runs {
		if r.Seed < 0 || len(r.Args) > 6 || len(r.Pointees) > 6 || len(r.Shared) > 6 {
			return bad("counterexample_runs[%d]: seed %d, %d arguments, %d pointees, %d shared offsets (want a seed ≥ 0 and at most 6 of each)", i, r.Seed, len(r.Args), len(r.Pointees), len(r.Shared))
		}
		for j, off := range r.Shared {
			if off < -1 || off > MaxSharedOffset {
				return bad("counterexample_runs[%d]: shared offset %d is %d (want -1, for none, or 0 to %d)", i, j, off, MaxSharedOffset)
			}
		}
		for j, h := range r.Pointees {
			if _, err := hex.DecodeString(h); err != nil {
				return bad("counterexample_runs[%d]: pointee %d is not hexadecimal: %v", i, j, err)
			}
		}
	}
	nodes := pf.Product.Nodes
	if len(nodes) == 0 {
		return bad("the product graph has no nodes")
	}
	for i, n := range nodes {
		if n.ID != i {
			return bad("node %d has id %d: ids are 0, 1, … in order", i, n.ID)
		}
		if n.Src.Kind == "" || n.Dst.Kind == "" {
			return bad("node %d: an anchor without a kind", i)
		}
		for _, d := range n.Defined {
			name, term, ok := strings.Cut(d, " = ")
			if !ok || name == "" || term == "" {
				return bad("node %d: definition %q is not \"name = term\"", i, d)
			}
		}
		for _, inv := range n.Invariants {
			if _, err := smtlib.ParseSExpr(inv); err != nil {
				return bad("node %d: invariant %q: %v", i, inv, err)
			}
		}
	}
	for i, e := range pf.Product.Edges {
		if e.From < 0 || e.From >= len(nodes) {
			return bad("edge %d: from-node %d does not exist", i, e.From)
		}
		if e.DstTo.Kind == "" {
			return bad("edge %d: dst_to without a kind", i)
		}
		for k, v := range e.DstVia {
			if v.ID < 0 || k > 0 && v.ID <= e.DstVia[k-1].ID {
				return bad("edge %d: dst_via needs edge ids ≥ 0 in increasing order", i)
			}
		}
		if e.Infeasible {
			if e.To != nil || e.SrcPath != nil {
				return bad("edge %d: an infeasible edge has neither to nor src_path", i)
			}
			continue
		}
		if e.To == nil || *e.To < 0 || *e.To >= len(nodes) {
			return bad("edge %d: a paired edge needs an existing to-node", i)
		}
		if e.SrcPath == nil {
			return bad("edge %d: a paired edge needs src_path (or infeasible)", i)
		}
		if e.SrcPath.To.Kind == "" || e.SrcPath.Arrivals < 0 || e.SrcPath.Mu < 0 {
			return bad("edge %d: src_path needs an anchor, arrivals ≥ 0 and mu ≥ 0", i)
		}
		if e.SrcPath.Arrivals == 0 && (e.SrcPath.Mu != 0 || e.SrcPath.To != nodes[e.From].Src) {
			return bad("edge %d: an empty src_path (arrivals 0) stays at the from-node's source anchor, with mu 0", i)
		}
	}
	if b := pf.Bridge; b != nil {
		if b.Bridge != nil {
			return bad("bridge: a bridge of its own")
		}
		if err := b.Validate(); err != nil {
			return bad("bridge: %v", err)
		}
		if b.Source != pf.Source || b.Target.Function != pf.Source.Function || b.UB != pf.UB {
			return bad("bridge: its source (%s %s) and model (%s) are not the proof's source and model (%s %s, %s), or its target function %s is another", b.Source.Path, b.Source.Function, b.UB, pf.Source.Path, pf.Source.Function, pf.UB, b.Target.Function)
		}
	}
	return nil
}

// EncodeProof writes pf as indented JSON, after validating it.
func EncodeProof(w io.Writer, pf *ProofFile) error {
	if err := pf.Validate(); err != nil {
		return err
	}
	return jsonEncoder(w).Encode(pf)
}

// jsonEncoder is how proof files are written: indented, and with SMT-LIB's
// < > & left readable.
func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc
}

// WriteProof writes pf to path: into a temporary file beside it, then
// renamed, so a reader never sees half a proof.
func WriteProof(path string, pf *ProofFile) error {
	var buf bytes.Buffer
	if err := EncodeProof(&buf, pf); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// DecodeProof reads one proof from r: strict JSON (no unknown fields, no
// trailing data), then Validate.
func DecodeProof(r io.Reader) (*ProofFile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var pf ProofFile
	if err := dec.Decode(&pf); err != nil {
		return nil, &MalformedProofError{What: err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &MalformedProofError{What: "data after the proof object"}
	}
	if err := pf.Validate(); err != nil {
		return nil, err
	}
	return &pf, nil
}

// ReadProof reads the proof file at path. An unreadable file gives the
// os error; a readable one that is not a proof, a *MalformedProofError
// naming the path.
func ReadProof(path string) (*ProofFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := DecodeProof(f)
	var m *MalformedProofError
	if errors.As(err, &m) {
		m.Path = path
	}
	return pf, err
}

// HashFile returns the SHA-256 of the file's contents, in lowercase hex.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
