"""ClinSeek evaluation-results warehouse: results trees in, one DuckDB file out."""

__version__ = "0.1.0"
