"""Render a result set (column names + row tuples) as text: an aligned table, CSV, JSON or a
Markdown table. Shared by every command that prints rows, so it knows nothing about DuckDB
or the warehouse: it takes plain Python values as DuckDB's Python client returns them."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import math
import uuid
from collections.abc import Sequence
from typing import Any

import orjson

FORMATS: tuple[str, ...] = ("table", "csv", "json", "md")

# The table format is for reading in a terminal; a message body of 50 kB would make every
# other column unreadable, so table cells are cut. CSV / JSON / Markdown keep full values.
DEFAULT_TABLE_CELL_WIDTH = 80
NULL_TEXT = "NULL"


def format_rows(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str = "table",
    *,
    max_cell_width: int | None = DEFAULT_TABLE_CELL_WIDTH,
) -> str:
    """Return `rows` under `columns` as text in `fmt` (one of FORMATS), ending with a newline.

    `max_cell_width` applies to the table format only (None: never cut)."""
    if fmt == "table":
        return format_table(columns, rows, max_cell_width=max_cell_width)
    if fmt == "csv":
        return format_csv(columns, rows)
    if fmt == "json":
        return format_json(columns, rows)
    if fmt == "md":
        return format_markdown(columns, rows)
    raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")


def cell_text(value: Any) -> str:
    """The text of one value, as the table / Markdown / CSV formats show it (NULL aside)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return "\\x" + bytes(value).hex()
    if isinstance(value, list | tuple | dict):
        return orjson.dumps(value, default=_json_default).decode()
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def _one_line(text: str) -> str:
    # A raw newline or tab in a cell would break the row grid; show it escaped instead.
    return text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")


def format_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    max_cell_width: int | None = DEFAULT_TABLE_CELL_WIDTH,
) -> str:
    """An aligned plain-text table: header, a rule, one line per row; numbers right-aligned,
    NULL shown as `NULL`, and a final `(N rows)` line."""

    def fit(text: str) -> str:
        text = _one_line(text)
        if max_cell_width is not None and len(text) > max_cell_width:
            return text[: max(max_cell_width - 1, 0)] + "…"
        return text

    header = [fit(str(name)) for name in columns]
    body = [[NULL_TEXT if v is None else fit(cell_text(v)) for v in row] for row in rows]
    widths = [len(h) for h in header]
    for cells in body:
        for i, text in enumerate(cells):
            widths[i] = max(widths[i], len(text))
    # A column is right-aligned when every non-NULL value in it is a number.
    numeric = [
        any(row[i] is not None for row in rows)
        and all(row[i] is None or _is_number(row[i]) for row in rows)
        for i in range(len(columns))
    ]

    def line(cells: Sequence[str]) -> str:
        parts = [
            text.rjust(widths[i]) if numeric[i] else text.ljust(widths[i])
            for i, text in enumerate(cells)
        ]
        return " | ".join(parts).rstrip()

    out = [line(header), "-+-".join("-" * w for w in widths)]
    out.extend(line(cells) for cells in body)
    out.append(f"({len(rows)} row{'' if len(rows) == 1 else 's'})")
    return "\n".join(out) + "\n"


def format_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """RFC 4180 CSV with a header line; NULL is an empty field."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else cell_text(v) for v in row])
    return buffer.getvalue()


def _json_default(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        # JSON has one number type; an integral DECIMAL stays an exact integer.
        if value == value.to_integral_value():
            return int(value)
        as_float = float(value)
        return as_float if math.isfinite(as_float) else None
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return "\\x" + bytes(value).hex()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    return str(value)


def format_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A JSON list of objects, one per row, keyed by column name; dates and timestamps as ISO
    8601 strings, NaN / Infinity as null, DECIMAL as a number."""
    objects = [dict(zip(columns, row, strict=True)) for row in rows]
    return orjson.dumps(
        objects,
        default=_json_default,
        option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS,
    ).decode() + "\n"


def _md_cell(text: str) -> str:
    # A pipe would end the cell and a newline the row; both are escaped the GitHub way.
    return (
        text.replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("\r\n", "<br>")
        .replace("\n", "<br>")
        .replace("\r", "<br>")
    )


def format_markdown(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table; numeric columns right-aligned, NULL as an empty cell."""
    numeric = [
        any(row[i] is not None for row in rows)
        and all(row[i] is None or _is_number(row[i]) for row in rows)
        for i in range(len(columns))
    ]
    out = ["| " + " | ".join(_md_cell(str(c)) for c in columns) + " |"]
    out.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    for row in rows:
        cells = ["" if v is None else _md_cell(cell_text(v)) for v in row]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
