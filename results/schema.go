package results

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// SchemaVersion is written into every file's key/value metadata under
// MetadataSchemaVersion. It changes when a column is added (extend, do not
// rename): a reader of version N reads files of any version <= N, missing
// columns reading as zero values.
const SchemaVersion = "7" // 2: variant; 3: proof_verified; 4: candidates; 5: src_compiler; 6: correlator, candidates_expanded, candidates_pruned; 7: calls_src, calls_dst

// MetadataSchemaVersion is the key/value metadata key holding SchemaVersion.
const MetadataSchemaVersion = "eqc.results.schema_version"

// Verdict values (docs/design.md "Semantics"). Nothing else is a valid verdict.
const (
	Equivalent    = "equivalent"
	NotEquivalent = "not-equivalent"
	Unknown       = "unknown"
)

// Row is one check: one function pair, one compiler configuration, one UB
// model, one engine. The first 33 columns are exactly the docs/design.md results
// schema, in its order and with its names; the columns after them are
// extensions (the schema says "extend, do not rename").
//
// Types: text is a UTF-8 string (empty when not applicable), durations are
// float64 seconds, counts are int64, started_at is a UTC timestamp stored
// with microsecond precision (finer precision is truncated on write).
type Row struct {
	Suite     string `parquet:"suite,dict"`     // benchmark suite, e.g. "tsvc", "spec2006", "glibc"
	Benchmark string `parquet:"benchmark,dict"` // program or kernel within the suite, e.g. "s000"
	Function  string `parquet:"function"`       // function checked (the source side's name)
	Compiler  string `parquet:"compiler,dict"`  // e.g. "gcc-13", "clang-17"
	SrcOpt    string `parquet:"src_opt,dict"`   // optimization level of the source side, e.g. "O0"
	DstOpt    string `parquet:"dst_opt,dict"`   // optimization level of the target side, e.g. "O3"
	CFlags    string `parquet:"cflags,dict"`    // other compiler flags, space separated
	UBModel   string `parquet:"ub_model,dict"`  // "all", "none" or a comma list (sio,tbsa,...)
	Engine    string `parquet:"engine,dict"`    // static, data or auto
	Verdict   string `parquet:"verdict,dict"`   // equivalent | not-equivalent | unknown
	Reason    string `parquet:"reason,dict"`    // why unknown (timeout, unsupported:<insn>, ...); may explain others

	WallS      float64 `parquet:"wall_s"`      // wall-clock seconds of the check
	CPUS       float64 `parquet:"cpu_s"`       // CPU seconds, all threads and solver processes
	SMTQueries int64   `parquet:"smt_queries"` // SMT queries issued
	SMTS       float64 `parquet:"smt_s"`       // seconds spent in SMT solvers
	CacheHits  int64   `parquet:"cache_hits"`  // query-cache hits

	ALOCSrc                  int64 `parquet:"aloc_src"`                   // assembly lines of the source function
	ALOCDst                  int64 `parquet:"aloc_dst"`                   // assembly lines of the target function
	LoopsSrc                 int64 `parquet:"loops_src"`                  // natural loops in the source
	LoopsDst                 int64 `parquet:"loops_dst"`                  // natural loops in the target
	CompositeEdgesDst        int64 `parquet:"composite_edges_dst"`        // composite edges of the target TFG, between entry, loop heads, exit
	ProductNodes             int64 `parquet:"product_nodes"`              // nodes of the final product program
	ProductEdges             int64 `parquet:"product_edges"`              // edges of the final product program
	Invariants               int64 `parquet:"invariants"`                 // invariant conjuncts in the final product
	AlignmentPredicatesTried int64 `parquet:"alignment_predicates_tried"` // data engine: predicates tried
	CorrelationsTried        int64 `parquet:"correlations_tried"`         // static engine: correlations tried
	Backtracks               int64 `parquet:"backtracks"`                 // static engine: backtracks
	Counterexamples          int64 `parquet:"counterexamples"`            // counterexamples obtained from the solver
	TestVectors              int64 `parquet:"test_vectors"`               // test vectors run natively

	BlockCoverage float64   `parquet:"block_coverage"`                    // fraction of blocks the vectors reached, 0..1
	TimeoutS      float64   `parquet:"timeout_s"`                         // per-check timeout in seconds; 0 = none
	EQCVersion    string    `parquet:"eqc_version,dict"`                  // eqc version that produced the row
	StartedAt     time.Time `parquet:"started_at,timestamp(microsecond)"` // when the check started (UTC)

	// Extensions.

	SrcFile     string `parquet:"src_file"`     // path of the source-side object/executable
	DstFile     string `parquet:"dst_file"`     // path of the target-side object/executable
	DstFunction string `parquet:"dst_function"` // target function when named differently (--src-func/--dst-func); empty = Function
	ProofFile   string `parquet:"proof_file"`   // proof written for an equivalent verdict (with --proof); may be empty
	CexInput    string `parquet:"cex_input"`    // not-equivalent: the concrete input, as JSON
	Error       string `parquet:"error"`        // full message behind an unknown reason (e.g. a compiler's or tracer's error); may be empty
	Variant     string `parquet:"variant,dict"` // the suite's source variant (e.g. TSVC "fixed" or "param"); may be empty
	// ProofVerified: the proof of an equivalent verdict (proof_file) was
	// rechecked by `eqc proof verify`, which rebuilt and discharged every
	// obligation without the search. False when not verified or never tried.
	ProofVerified bool `parquet:"proof_verified"`
	// Candidates are the invariant conjuncts learned over the final
	// product's nodes, before Houdini; the invariants column counts those
	// it kept.
	Candidates int64 `parquet:"candidates"`
	// SrcCompiler is the compiler of the source side when it is not
	// compiler (a cross-compiler pair, eqc sweep --src-cc); empty when
	// both sides come from compiler.
	SrcCompiler string `parquet:"src_compiler,dict"`
	// Correlator is the static engine's correlator when it is not the
	// backtracking one: "ceg" (best-first, eqc sweep --correlator ceg);
	// empty for bt, which every row before schema 6 used.
	Correlator string `parquet:"correlator,dict"`
	// CandidatesExpanded and CandidatesPruned are the best-first
	// correlator's partial alignments expanded and candidates the runs
	// ruled out before any solver query.
	CandidatesExpanded int64 `parquet:"candidates_expanded"`
	CandidatesPruned   int64 `parquet:"candidates_pruned"`
	// CallsSrc and CallsDst are the call sites of the source and target
	// functions, tail calls included (zero in files before schema 7, which
	// did not record them).
	CallsSrc int64 `parquet:"calls_src"`
	CallsDst int64 `parquet:"calls_dst"`
}

// CompilerLabel names the row's compilers as reports group them: compiler,
// or "SRC→DST" for a cross-compiler pair.
func (r *Row) CompilerLabel() string {
	if r.SrcCompiler == "" || r.SrcCompiler == r.Compiler {
		return r.Compiler
	}
	return r.SrcCompiler + "→" + r.Compiler
}

// EngineLabel names the row's engine as reports group rows: engine, or
// "ENGINE/CORRELATOR" when the static engine's correlator was not the
// backtracking one ("static/ceg").
func (r *Row) EngineLabel() string {
	if r.Correlator == "" {
		return r.Engine
	}
	return r.Engine + "/" + r.Correlator
}

// Columns lists the Parquet column names of Row in order.
func Columns() []string {
	t := reflect.TypeFor[Row]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = columnName(t.Field(i))
	}
	return names
}

// DesignColumns is the docs/design.md results schema: the first columns of Row,
// in this order. The extensions follow them.
var DesignColumns = []string{
	"suite", "benchmark", "function", "compiler", "src_opt", "dst_opt", "cflags", "ub_model", "engine",
	"verdict", "reason", "wall_s", "cpu_s", "smt_queries", "smt_s", "cache_hits", "aloc_src", "aloc_dst",
	"loops_src", "loops_dst", "composite_edges_dst", "product_nodes", "product_edges", "invariants",
	"alignment_predicates_tried", "correlations_tried", "backtracks", "counterexamples",
	"test_vectors", "block_coverage", "timeout_s", "eqc_version", "started_at",
}

// rowFields describes Row's fields once, for Validate.
var rowFields = func() []rowField {
	t := reflect.TypeFor[Row]()
	fs := make([]rowField, t.NumField())
	for i := range fs {
		fs[i] = rowField{index: i, column: columnName(t.Field(i)), kind: t.Field(i).Type.Kind()}
	}
	return fs
}()

type rowField struct {
	index  int
	column string
	kind   reflect.Kind
}

// requiredColumns must be present in a file for it to be an eqc results file.
var requiredColumns = []string{"suite", "benchmark", "function", "verdict"}

func columnName(f reflect.StructField) string {
	tag := f.Tag.Get("parquet")
	name, _, _ := strings.Cut(tag, ",")
	return name
}

// InvalidRowError says a row breaks the value rules of the schema (see
// Validate). Path is the file being written or read ("" when validating a
// row alone); Index is the row's position in the batch or file.
type InvalidRowError struct {
	Path    string
	Index   int
	Column  string
	Value   any
	Problem string
}

func (e *InvalidRowError) Error() string {
	var b strings.Builder
	b.WriteString("results: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "row %d: column %s = %#v: %s", e.Index, e.Column, e.Value, e.Problem)
	return b.String()
}

// Validate checks r against the value rules of the schema; it returns an
// *InvalidRowError (with Index 0) naming the first column at fault:
//
//   - suite, benchmark, function, compiler, dst_opt and engine are not empty;
//   - verdict is equivalent, not-equivalent or unknown, and an unknown
//     verdict has a reason;
//   - every string is valid UTF-8;
//   - seconds are finite and >= 0, counts >= 0, block_coverage in [0, 1];
//   - started_at is set.
func (r *Row) Validate() error {
	bad := func(col string, v any, problem string) error {
		return &InvalidRowError{Column: col, Value: v, Problem: problem}
	}
	v := reflect.ValueOf(r).Elem()
	for _, f := range rowFields {
		fv := v.Field(f.index)
		switch f.kind {
		case reflect.String:
			if x := fv.String(); !utf8.ValidString(x) {
				return bad(f.column, x, "not valid UTF-8")
			}
		case reflect.Float64:
			if x := fv.Float(); math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return bad(f.column, x, "must be finite and >= 0")
			}
		case reflect.Int64:
			if x := fv.Int(); x < 0 {
				return bad(f.column, x, "must be >= 0")
			}
		}
	}
	for _, c := range []struct{ col, val string }{
		{"suite", r.Suite}, {"benchmark", r.Benchmark}, {"function", r.Function},
		{"compiler", r.Compiler}, {"dst_opt", r.DstOpt}, {"engine", r.Engine},
	} {
		if c.val == "" {
			return bad(c.col, c.val, "must not be empty")
		}
	}
	switch r.Verdict {
	case Equivalent, NotEquivalent:
	case Unknown:
		if r.Reason == "" {
			return bad("reason", r.Reason, "an unknown verdict needs a reason")
		}
	default:
		return bad("verdict", r.Verdict, "must be equivalent, not-equivalent or unknown")
	}
	if r.BlockCoverage > 1 {
		return bad("block_coverage", r.BlockCoverage, "must be in [0, 1]")
	}
	if r.StartedAt.IsZero() {
		return bad("started_at", r.StartedAt, "must be set")
	}
	return nil
}

// normalize puts r in the form a round trip through a file produces:
// started_at in UTC, truncated to the microsecond.
func (r *Row) normalize() {
	r.StartedAt = r.StartedAt.UTC().Truncate(time.Microsecond)
}
