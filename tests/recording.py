"""An Emitter for extractor tests: records every row, reject and file stat it is given."""

from __future__ import annotations

from typing import Any


class RecordingEmitter:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, Any]]] = []
        self.rejects: list[tuple[int | None, str, str, str | None]] = []
        self.stats: list[tuple[int | None, str | None]] = []

    def row(self, table: str, row: dict[str, Any]) -> None:
        self.rows.append((table, row))

    def reject(self, line_no: int | None, severity: str, error: str,
               excerpt: str | None = None) -> None:
        self.rejects.append((line_no, severity, error, excerpt))

    def file_stats(self, n_lines: int | None = None, sha256: str | None = None) -> None:
        self.stats.append((n_lines, sha256))
