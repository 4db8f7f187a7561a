"""An Emitter for extractor tests: records every row, reject and file stat it is given.

Every row is checked against the table's staged Arrow schema (the one the real emitter,
etl.pipeline.emitter.ParquetEmitter, writes with, built from schema/*.sql) as it is
emitted: a column the table lacks or a value its column cannot hold fails the test at once,
as it would cost a repaired reject (or worse) in a real ingest."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from etl.schema import staged_schema


def check_row(table: str, row: dict[str, Any]) -> None:
    """Fail unless the staged Arrow schema of the table holds this row."""
    schema = staged_schema(table)
    unknown = set(row) - set(schema.names)
    assert not unknown, f"table {table} has no column(s) {sorted(unknown)}"
    for name, value in row.items():
        typ = schema.field(name).type
        try:
            pa.array([value], type=typ)
        except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
            raise AssertionError(f"{table}.{name} ({typ}) cannot hold {value!r}: "
                                 f"{exc}") from exc


def check_reject(line_no: int | None, severity: str, error: str, excerpt: str | None) -> None:
    check_row("rejects", {"line_no": line_no, "severity": severity, "error": error,
                          "excerpt": excerpt})


class RecordingEmitter:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, Any]]] = []
        self.rejects: list[tuple[int | None, str, str, str | None]] = []
        self.stats: list[tuple[int | None, str | None]] = []

    def row(self, table: str, row: dict[str, Any]) -> None:
        check_row(table, row)
        self.rows.append((table, row))

    def reject(self, line_no: int | None, severity: str, error: str,
               excerpt: str | None = None) -> None:
        check_reject(line_no, severity, error, excerpt)
        self.rejects.append((line_no, severity, error, excerpt))

    def file_stats(self, n_lines: int | None = None, sha256: str | None = None) -> None:
        self.stats.append((n_lines, sha256))


class TableRecorder:
    """An Emitter that keeps the rows by table (rows[table] in emission order), each reject,
    and the last file stats."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.rejects: list[tuple[int | None, str, str, str | None]] = []
        self.stats: dict[str, Any] = {}

    def row(self, table: str, row: dict[str, Any]) -> None:
        check_row(table, row)  # the real emitter's Arrow schema: a type error fails here
        self.rows.setdefault(table, []).append(row)

    def reject(self, line_no: int | None, severity: str, error: str,
               excerpt: str | None = None) -> None:
        check_reject(line_no, severity, error, excerpt)
        self.rejects.append((line_no, severity, error, excerpt))

    def file_stats(self, n_lines: int | None = None, sha256: str | None = None) -> None:
        self.stats = {"n_lines": n_lines, "sha256": sha256}
