package results

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is how tables are printed.
type Format int

const (
	Text     Format = iota // aligned plain text
	Markdown               // GitHub-flavoured Markdown tables
	CSV                    // each table as CSV: a title row, the header, the rows, an empty line
	JSON                   // one JSON array of tables: title, header, rows, notes
)

// ParseFormat maps "text", "markdown" (or "md"), "csv" and "json" to a
// Format.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "text", "":
		return Text, nil
	case "markdown", "md":
		return Markdown, nil
	case "csv":
		return CSV, nil
	case "json":
		return JSON, nil
	}
	return 0, fmt.Errorf("unknown format %q (want text, markdown, csv or json)", s)
}

// Options shape a text report. A table wider than Width columns (0: no
// limit) is split into parts side by side no wider than it, each
// repeating the table's key columns; a cell longer than MaxCell runes is
// cut with "…" unless Details is set (then nothing is cut or split).
type Options struct {
	Width   int
	MaxCell int
	Details bool
}

// DefaultOptions fit a 100-column terminal.
var DefaultOptions = Options{Width: 100, MaxCell: 56}

// Span labels a run of consecutive header columns (a column group such as
// "gcc -O3" over LOC, out and s).
type Span struct {
	Label string
	Cols  int
}

// Table is a titled table of strings.
type Table struct {
	Title  string
	Spans  []Span // optional; covers the header columns left to right
	Header []string
	Rows   [][]string
	Right  []bool // per column: align right (numbers)
	Notes  []string
	// Key is how many leading columns name a row: a text table split to
	// fit its width repeats them in every part.
	Key int
	// noteWidth wraps the notes in text (set by fit).
	noteWidth int
}

// Write prints t in format f (text with no width limit; see WriteOpts).
func (t *Table) Write(w io.Writer, f Format) error {
	return t.WriteOpts(w, f, Options{})
}

// WriteOpts prints t in format f, a text table shaped by o. JSON prints
// one object (WriteReport gathers them into an array).
func (t *Table) WriteOpts(w io.Writer, f Format, o Options) error {
	var b strings.Builder
	switch f {
	case Markdown:
		t.markdown(&b)
	case CSV:
		cw := csv.NewWriter(&b)
		cw.Write([]string{t.Title})
		cw.Write(t.Header)
		cw.WriteAll(t.Rows)
		b.WriteString("\n")
	case JSON:
		j, err := json.Marshal(t.jsonTable())
		if err != nil {
			return err
		}
		b.Write(j)
		b.WriteString("\n")
	default:
		for _, part := range t.fit(o) {
			part.text(&b)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonTable is a table as JSON shows it.
type jsonTable struct {
	Title  string     `json:"title"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	Notes  []string   `json:"notes,omitempty"`
}

func (t *Table) jsonTable() jsonTable {
	rows := t.Rows
	if rows == nil {
		rows = [][]string{}
	}
	return jsonTable{Title: t.Title, Header: t.Header, Rows: rows, Notes: t.Notes}
}

// fit shapes t for text output under o: long cells cut, and the columns
// split into parts of at most o.Width (a span's columns stay together).
func (t *Table) fit(o Options) []*Table {
	if o.Details {
		return []*Table{t}
	}
	if o.Width > 0 {
		wrapped := *t
		wrapped.noteWidth = o.Width
		t = &wrapped
	}
	if o.MaxCell > 1 {
		cut := *t
		cut.Rows = make([][]string, len(t.Rows))
		for i, r := range t.Rows {
			cut.Rows[i] = make([]string, len(r))
			for j, c := range r {
				if rs := []rune(c); len(rs) > o.MaxCell {
					c = string(rs[:o.MaxCell-1]) + "…"
				}
				cut.Rows[i][j] = c
			}
		}
		t = &cut
	}
	n := len(t.Header)
	if o.Width <= 0 || n == 0 {
		return []*Table{t}
	}
	widths := t.widths()
	// Units: the columns that go together (a span's), left to right.
	var units [][2]int
	label := map[[2]int]string{} // a unit's span label
	if len(t.Spans) > 0 {
		col := 0
		for _, sp := range t.Spans {
			u := [2]int{col, min(col+sp.Cols, n)}
			units = append(units, u)
			label[u] = sp.Label
			col += sp.Cols
		}
		if col < n {
			units = append(units, [2]int{col, n})
		}
	} else {
		for i := 0; i < n; i++ {
			units = append(units, [2]int{i, i + 1})
		}
	}
	// A unit's width with the separator after it; a span's label wider
	// than its columns widens them (text).
	unitWidth := func(u [2]int) int {
		w := -len(colSep)
		for i := u[0]; i < u[1]; i++ {
			w += widths[i] + len(colSep)
		}
		return max(w, width(label[u])) + len(colSep)
	}
	var key, rest [][2]int
	for _, u := range units {
		if u[1] <= t.Key {
			key = append(key, u)
		} else {
			rest = append(rest, u)
		}
	}
	keyWidth := 0
	for _, u := range key {
		keyWidth += unitWidth(u)
	}
	total := keyWidth
	for _, u := range rest {
		total += unitWidth(u)
	}
	if total-len(colSep) <= o.Width || len(rest) < 2 {
		return []*Table{t}
	}
	var groups [][][2]int
	w := keyWidth
	for _, u := range rest {
		if k := len(groups); k == 0 || w+unitWidth(u)-len(colSep) > o.Width {
			groups = append(groups, nil)
			w = keyWidth
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], u)
		w += unitWidth(u)
	}
	if len(groups) == 1 {
		return []*Table{t}
	}
	var parts []*Table
	for gi, g := range groups {
		us := append(append([][2]int(nil), key...), g...)
		var cols []int
		for _, u := range us {
			for i := u[0]; i < u[1]; i++ {
				cols = append(cols, i)
			}
		}
		p := &Table{Title: fmt.Sprintf("%s (part %d of %d)", t.Title, gi+1, len(groups)), Key: t.Key, noteWidth: t.noteWidth}
		pick := func(cells []string) []string {
			out := make([]string, len(cols))
			for k, c := range cols {
				if c < len(cells) {
					out[k] = cells[c]
				}
			}
			return out
		}
		p.Header = pick(t.Header)
		for _, c := range cols {
			p.Right = append(p.Right, c < len(t.Right) && t.Right[c])
		}
		if len(t.Spans) > 0 {
			for _, u := range us {
				for si, col := 0, 0; si < len(t.Spans); col, si = col+t.Spans[si].Cols, si+1 {
					if col == u[0] {
						p.Spans = append(p.Spans, Span{t.Spans[si].Label, u[1] - u[0]})
					}
				}
			}
		}
		for _, r := range t.Rows {
			p.Rows = append(p.Rows, pick(r))
		}
		if gi == len(groups)-1 {
			p.Notes = t.Notes
		}
		parts = append(parts, p)
	}
	return parts
}

// widths are the columns' text widths.
func (t *Table) widths() []int {
	n := len(t.Header)
	widths := make([]int, n)
	for i, h := range t.Header {
		widths[i] = width(h)
	}
	for _, r := range t.Rows {
		for i := 0; i < n && i < len(r); i++ {
			widths[i] = max(widths[i], width(r[i]))
		}
	}
	return widths
}

func width(s string) int { return utf8.RuneCountInString(s) }

func pad(s string, n int, right bool) string {
	gap := strings.Repeat(" ", max(0, n-width(s)))
	if right {
		return gap + s
	}
	return s + gap
}

const colSep = "  "

func (t *Table) text(b *strings.Builder) {
	n := len(t.Header)
	widths := t.widths()
	// Widen the last column under a span whose label is wider than it.
	col := 0
	for _, s := range t.Spans {
		if s.Cols > 0 && col+s.Cols <= n {
			w := 0
			for i := col; i < col+s.Cols; i++ {
				w += widths[i]
			}
			w += (s.Cols - 1) * len(colSep)
			if extra := width(s.Label) - w; extra > 0 {
				widths[col+s.Cols-1] += extra
			}
		}
		col += s.Cols
	}
	right := func(i int) bool { return i < len(t.Right) && t.Right[i] }
	line := func(cells []string) {
		var parts []string
		for i := 0; i < n; i++ {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			parts = append(parts, pad(c, widths[i], right(i)))
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, colSep), " "))
		b.WriteByte('\n')
	}
	if t.Title != "" {
		b.WriteString(t.Title)
		b.WriteString("\n\n")
	}
	if len(t.Spans) > 0 {
		var parts []string
		col := 0
		for _, s := range t.Spans {
			w := 0
			for i := col; i < col+s.Cols && i < n; i++ {
				w += widths[i]
			}
			w += max(0, s.Cols-1) * len(colSep)
			parts = append(parts, pad(s.Label, w, false))
			col += s.Cols
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, colSep), " "))
		b.WriteByte('\n')
	}
	line(t.Header)
	rule := make([]string, n)
	for i := range rule {
		rule[i] = strings.Repeat("-", widths[i])
	}
	line(rule)
	for _, r := range t.Rows {
		line(r)
	}
	for _, note := range t.Notes {
		b.WriteString(wrap(note, t.noteWidth))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}

// wrap breaks s at spaces into lines of at most w runes (0: no limit).
func wrap(s string, w int) string {
	if w <= 0 {
		return s
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && width(line)+1+width(word) > w {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

func (t *Table) markdown(b *strings.Builder) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteByte('\n')
	}
	if t.Title != "" {
		b.WriteString("### " + esc(t.Title) + "\n\n")
	}
	// Markdown has no column spans: a span's label prefixes its columns.
	header := append([]string(nil), t.Header...)
	col := 0
	for _, s := range t.Spans {
		for i := col; i < col+s.Cols && i < len(header); i++ {
			if s.Label != "" {
				header[i] = s.Label + " " + header[i]
			}
		}
		col += s.Cols
	}
	row(header)
	b.WriteString("|")
	for i := range t.Header {
		if i < len(t.Right) && t.Right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteByte('\n')
	for _, r := range t.Rows {
		row(r)
	}
	if len(t.Notes) > 0 {
		b.WriteByte('\n')
		for _, note := range t.Notes {
			b.WriteString(esc(note) + "\n")
		}
	}
	b.WriteByte('\n')
}

// Seconds formats a duration in seconds for a table.
func Seconds(s float64) string {
	switch {
	case s < 10:
		return strconv.FormatFloat(s, 'f', 2, 64)
	case s < 1000:
		return strconv.FormatFloat(s, 'f', 1, 64)
	}
	return strconv.FormatFloat(s, 'f', 0, 64)
}

func optLabel(src, dst string) string {
	if src == "" {
		return dst
	}
	return src + "→" + dst
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// SummaryTable is the table of Summarize's groups.
func SummaryTable(groups []Group) *Table {
	t := &Table{
		Title:  "Summary: per suite × compiler × optimization level × UB model × engine",
		Header: []string{"suite", "compiler", "opt", "ub", "engine", "proved/total", "verified", "not-eq", "unknown", "median s", "mean s", "top unknown reasons"},
		Key:    5,
		Right:  []bool{false, false, false, false, false, true, true, true, true, true, true, false},
	}
	for _, g := range groups {
		var reasons []string
		for _, rc := range g.TopUnknown {
			reasons = append(reasons, fmt.Sprintf("%s ×%d", rc.Reason, rc.Count))
		}
		t.Rows = append(t.Rows, []string{g.Suite, g.Compiler, optLabel(g.SrcOpt, g.DstOpt), dash(g.UBModel), g.Engine,
			fmt.Sprintf("%d/%d", g.Proved, g.Total), strconv.Itoa(g.Verified), strconv.Itoa(g.NotEquivalent), strconv.Itoa(g.Unknown),
			Seconds(g.MedianWallS), Seconds(g.MeanWallS), strings.Join(reasons, ", ")})
	}
	t.Notes = []string{"verified: proofs rechecked by eqc proof verify (every obligation rebuilt from the binaries and the proof file, no search).",
		"median and mean are wall-clock seconds over every check of the line, whatever its verdict."}
	return t
}

// AblationTable is the UB-ablation table: one column per UB model, each
// cell "proved/total (median s)".
func AblationTable(a *Ablation) *Table {
	t := &Table{
		Title:  "UB ablation: proved/total (median s) per UB model",
		Header: []string{"suite", "compiler", "opt", "engine"},
		Key:    4,
		Right:  []bool{false, false, false, false},
	}
	for _, m := range a.Models {
		t.Header = append(t.Header, "ub="+dash(m))
		t.Right = append(t.Right, true)
	}
	for _, l := range a.Lines {
		cells := []string{l.Suite, l.Compiler, optLabel(l.SrcOpt, l.DstOpt), l.Engine}
		for _, g := range l.Cells {
			if g == nil {
				cells = append(cells, "–")
				continue
			}
			cells = append(cells, fmt.Sprintf("%d/%d (%s)", g.Proved, g.Total, Seconds(g.MedianWallS)))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// Mark is the verdict mark of the per-kernel table: ✓ equivalent,
// ✗ not-equivalent, "? reason" unknown.
func Mark(verdict, reason string) string {
	switch verdict {
	case Equivalent:
		return "✓"
	case NotEquivalent:
		return "✗"
	}
	return "? " + reason
}

// KernelTableOf renders a KernelTable in the shape of PLDI'19 Figure 10:
// benchmark, the source's LOC, then per compiler configuration the target's
// LOC, the verdict mark and the seconds; a last line counts the proofs.
// Column labels name only what varies: the UB model and engine appear when
// the suite was run under more than one.
func KernelTableOf(k KernelTable) *Table {
	varies := func(f func(KernelColumn) string) bool {
		for _, c := range k.Columns {
			if f(c) != f(k.Columns[0]) {
				return true
			}
		}
		return false
	}
	srcVaries := varies(func(c KernelColumn) string { return c.SrcOpt })
	ubVaries := varies(func(c KernelColumn) string { return c.UBModel })
	engineVaries := varies(func(c KernelColumn) string { return c.Engine })
	twoNames := false
	for _, r := range k.Rows {
		twoNames = twoNames || r.Benchmark != r.Function
	}

	t := &Table{Title: "Per kernel: " + k.Suite + " (the shape of PLDI'19 Figure 10)"}
	if twoNames {
		t.Header = []string{"benchmark", "function"}
		t.Right = []bool{false, false}
		t.Spans = []Span{{"", 2}}
		t.Key = 2
	} else {
		t.Header = []string{"benchmark"}
		t.Right = []bool{false}
		t.Spans = []Span{{"", 1}}
		t.Key = 1
	}
	for _, s := range k.Sources {
		t.Spans = append(t.Spans, Span{s.Compiler + " -" + s.SrcOpt, 1})
		t.Header = append(t.Header, "LOC")
		t.Right = append(t.Right, true)
	}
	for _, c := range k.Columns {
		label := c.Compiler + " -" + c.DstOpt
		if srcVaries {
			label = c.Compiler + " -" + c.SrcOpt + "→-" + c.DstOpt
		}
		if ubVaries {
			label += " ub=" + dash(c.UBModel)
		}
		if engineVaries {
			label += " " + c.Engine
		}
		t.Spans = append(t.Spans, Span{label, 3})
		t.Header = append(t.Header, "LOC", "out", "s")
		t.Right = append(t.Right, true, false, true)
	}
	proved := make([]int, len(k.Columns))
	checked := make([]int, len(k.Columns))
	for _, r := range k.Rows {
		name := r.Benchmark
		if r.Variant != "" && r.Variant != "default" {
			name += " (" + r.Variant + ")"
		}
		cells := []string{name}
		if twoNames {
			cells = append(cells, r.Function)
		}
		for _, loc := range r.ALOCSrc {
			cells = append(cells, locString(loc))
		}
		for i, c := range r.Cells {
			if c == nil {
				cells = append(cells, "", "–", "")
				continue
			}
			checked[i]++
			if c.Verdict == Equivalent {
				proved[i]++
			}
			reason := c.Reason
			if k.Short {
				reason = ReasonKind(reason)
			}
			cells = append(cells, locString(c.ALOCDst), Mark(c.Verdict, reason), Seconds(c.WallS))
		}
		t.Rows = append(t.Rows, cells)
	}
	total := []string{"proved"}
	if twoNames {
		total = append(total, "")
	}
	for range k.Sources {
		total = append(total, "")
	}
	for i := range k.Columns {
		total = append(total, "", fmt.Sprintf("%d/%d", proved[i], checked[i]), "")
	}
	t.Rows = append(t.Rows, total)
	t.Notes = []string{"✓ equivalent (proved), ✗ not-equivalent (a concrete counterexample), ? unknown (with its reason), – not checked; LOC = assembly lines, s = wall seconds."}
	return t
}

// SearchTable is one line per loop-engine check (one that tried an
// alignment predicate, built a product or learned an invariant
// candidate, or whose data engine found no predicate to try), sorted: the
// search effort PLDI'19 §5 and Counter's Table 2 report per benchmark —
// alignment predicate assignments tried, partial alignments the
// best-first correlator expanded, alignments built into a product (viable
// PAAs), the solver's counterexamples learned from, SMT queries, the
// product's size, invariant conjuncts learned and kept by Houdini, and
// the seconds. Nil when no row has any.
func SearchTable(rows []Row) *Table {
	var rs []*Row
	for i := range rows {
		r := &rows[i]
		noPredicate := strings.HasPrefix(r.Reason, "no-alignment-predicate") || strings.HasPrefix(r.Reason, "predicate-overfits") || strings.HasPrefix(r.Reason, "too-few-vectors")
		if r.AlignmentPredicatesTried > 0 || r.CorrelationsTried > 0 || r.Candidates > 0 || noPredicate {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	slices.SortFunc(rs, func(a, b *Row) int {
		return cmp.Or(cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Benchmark, b.Benchmark), cmp.Compare(a.Function, b.Function),
			cmp.Compare(a.Compiler, b.Compiler), cmp.Compare(a.SrcOpt, b.SrcOpt), cmp.Compare(a.DstOpt, b.DstOpt),
			cmp.Compare(a.UBModel, b.UBModel), cmp.Compare(a.Engine, b.Engine), cmp.Compare(a.Variant, b.Variant))
	})
	t := &Table{
		Title:  "Loop engine search per check",
		Key:    2,
		Header: []string{"suite", "benchmark", "compiler", "opt", "ub", "engine", "out", "proved by", "predicates", "expanded", "alignments", "cex", "queries", "nodes", "edges", "conjuncts", "kept", "s"},
		Right:  []bool{false, false, false, false, false, false, false, false, true, true, true, true, true, true, true, true, true, true},
	}
	for _, r := range rs {
		name := r.Benchmark
		if r.Function != r.Benchmark {
			name += " " + r.Function
		}
		if r.Variant != "" && r.Variant != "default" {
			name += " (" + r.Variant + ")"
		}
		by := ""
		if r.Verdict == Equivalent {
			by = r.Engine
		}
		kind, _, _ := strings.Cut(r.Reason, ":") // the reason's kind: the table is wide already
		t.Rows = append(t.Rows, []string{r.Suite, name, r.CompilerLabel(), optLabel(r.SrcOpt, r.DstOpt), dash(r.UBModel), r.EngineLabel(), Mark(r.Verdict, kind), by,
			strconv.FormatInt(r.AlignmentPredicatesTried, 10), strconv.FormatInt(r.CandidatesExpanded, 10), strconv.FormatInt(r.CorrelationsTried, 10),
			strconv.FormatInt(r.Counterexamples, 10), strconv.FormatInt(r.SMTQueries, 10),
			strconv.FormatInt(r.ProductNodes, 10), strconv.FormatInt(r.ProductEdges, 10),
			strconv.FormatInt(r.Candidates, 10), strconv.FormatInt(r.Invariants, 10), Seconds(r.WallS)})
	}
	t.Notes = []string{"predicates: alignment predicate assignments the data engine aligned the runs by; expanded: partial alignments the best-first correlator expanded (--correlator ceg); alignments: those built into a product and tried (viable PAAs); cex: the solver's counterexamples learned from; queries: SMT queries; nodes, edges: the product proved, or else the first tried; conjuncts: invariant candidates learned over its nodes, kept: those Houdini kept."}
	return t
}

func locString(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// WriteReport prints the whole report of rows: the summary, the split by
// shape (when rows record calls), the UB
// ablation (when more than one UB model occurs), the per-kernel table of
// each suite and the loop engine's search per check (when any). Repeated
// checks count once (Latest). Text tables have no width limit (see
// WriteReportOpts).
func WriteReport(w io.Writer, rows []Row, f Format) error {
	return WriteReportOpts(w, rows, f, Options{})
}

// WriteReportOpts is WriteReport with text tables shaped by o; JSON is one
// array of the tables.
func WriteReportOpts(w io.Writer, rows []Row, f Format, o Options) error {
	rows = Latest(rows)
	groups := Summarize(rows)
	tables := []*Table{SummaryTable(groups)}
	if lines := Shapes(rows); lines != nil {
		tables = append(tables, ShapeTable(lines))
	}
	if a := Ablations(groups); a != nil {
		tables = append(tables, AblationTable(a))
		if needs := UBNeeds(rows); len(needs) > 0 {
			tables = append(tables, UBNeedsTable(needs))
		}
	}
	for _, k := range Kernels(rows) {
		k.Short = f == Text && !o.Details
		tables = append(tables, KernelTableOf(k))
	}
	if t := SearchTable(rows); t != nil {
		tables = append(tables, t)
	}
	if f == JSON {
		var all []jsonTable
		for _, t := range tables {
			all = append(all, t.jsonTable())
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	for _, t := range tables {
		if err := t.WriteOpts(w, f, o); err != nil {
			return err
		}
	}
	return nil
}
