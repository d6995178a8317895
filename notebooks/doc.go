// Package notebooks holds eqc's Jupyter notebooks, which regenerate the
// papers' tables and figures from sweep results and put the papers' own
// numbers beside them (notebooks/README.md). The notebooks are Python;
// this package only tests them: each runs headless on a small committed
// fixture made by a real sweep (testdata/), through `eqc export` since
// Debian's Python has no Parquet reader.
package notebooks
