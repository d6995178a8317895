"""Results of eqc sweeps as pandas DataFrames, for the notebooks.

Debian's Python has no Parquet reader (no pyarrow, no fastparquet), so the
rows come from `eqc export --format csv DIR`, the same columns the Parquet
files hold; where pandas can read Parquet itself, it reads the files
directly. Either way the frame has one row per check, the schema's columns
(docs/design.md, "Results") with their names.
"""

import glob
import io
import os
import subprocess

import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EQC = os.environ.get("EQC", os.path.join(ROOT, "bin", "eqc"))


class MissingResults(Exception):
    """No results where a notebook looks for them: the message names the
    make target that makes them."""


def results_dir(default, target):
    """The results directory a notebook reads: EQC_RESULTS if set (the
    tests point it at a fixture), else default under the repository.
    Raises MissingResults, naming target, when it holds no Parquet files."""
    d = os.environ.get("EQC_RESULTS") or os.path.join(ROOT, default)
    if not glob.glob(os.path.join(d, "**", "*.parquet"), recursive=True):
        raise MissingResults(f"no results under {d}: run `make {target}` first")
    return d


def load(directory, latest=True):
    """Every row under directory (the last row of each check when latest)."""
    try:
        import pyarrow  # noqa: F401  (pandas.read_parquet needs an engine)
        frames = [pd.read_parquet(f) for f in glob.glob(os.path.join(directory, "**", "*.parquet"), recursive=True)]
        df = pd.concat(frames, ignore_index=True)
        if latest:
            keys = ["suite", "benchmark", "function", "compiler", "src_compiler", "src_opt", "dst_opt", "cflags", "ub_model", "engine", "variant"]
            df = df.sort_values("started_at").drop_duplicates(keys, keep="last")
        return df.reset_index(drop=True)
    except ImportError:
        pass
    args = [EQC, "export", "--format", "csv"] + (["--latest"] if latest else []) + [directory]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[])


def proved(df):
    """Whether each row is a proof."""
    return df["verdict"] == "equivalent"


def reason_kind(reason):
    """An unknown reason's kind, as eqc report groups them."""
    for sep in (" ", ";"):
        reason = reason.split(sep, 1)[0]
    return reason.rstrip(":")
