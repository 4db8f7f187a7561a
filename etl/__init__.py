"""ClinSeek evaluation-results warehouse: results trees in, one DuckDB file out.

For notebooks: `import etl; wh = etl.open("warehouse.duckdb")` (see etl/api.py)."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def open(path: Any, frames: str = "auto") -> Any:  # noqa: A001 - the notebook entry point
    """Open a warehouse file read-only: an etl.api.Warehouse whose methods return pandas
    DataFrames (pyarrow Tables without pandas)."""
    # Imported here so `etl --help` and the ingest do not load the API.
    from etl.api import Warehouse

    return Warehouse(path, frames)
