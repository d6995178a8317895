// Package results owns the Parquet schema of one row per check, its writer,
// its reader and the summary tables of eqc report.
package results
