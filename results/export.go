package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"
)

// Exporting rows (export.go): the results as CSV or JSON Lines, one record
// per row with the Parquet column names, for tools without a Parquet
// reader (Debian's Python has none: the notebooks read `eqc export`). The
// columns are the schema's, in its order; a reader that has pyarrow reads
// the same names from the Parquet files.

// cells are a row's values in column order: numbers in Go's shortest
// form, times in RFC 3339 (UTC), booleans true/false.
func cells(r *Row) []any {
	v := reflect.ValueOf(r).Elem()
	var out []any
	for i := 0; i < v.NumField(); i++ {
		switch x := v.Field(i).Interface().(type) {
		case time.Time:
			out = append(out, x.UTC().Format(time.RFC3339Nano))
		default:
			out = append(out, x)
		}
	}
	return out
}

// WriteCSV writes rows as CSV: a header of Columns, then one record per row.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Columns()); err != nil {
		return err
	}
	rec := make([]string, len(Columns()))
	for i := range rows {
		for k, c := range cells(&rows[i]) {
			switch x := c.(type) {
			case string:
				rec[k] = x
			case float64:
				rec[k] = strconv.FormatFloat(x, 'g', -1, 64)
			default:
				rec[k] = fmt.Sprint(x)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes rows as JSON Lines: one object per row, keyed by
// column name.
func WriteJSONL(w io.Writer, rows []Row) error {
	cols := Columns()
	enc := json.NewEncoder(w)
	for i := range rows {
		obj := make(map[string]any, len(cols))
		for k, c := range cells(&rows[i]) {
			if f, ok := c.(float64); ok && (f != f || f > 1e308 || f < -1e308) {
				c = nil // NaN and infinities have no JSON form
			}
			obj[cols[k]] = c
		}
		if err := enc.Encode(obj); err != nil {
			return err
		}
	}
	return nil
}
