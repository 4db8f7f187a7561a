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

from etl.errors import UnknownName
from etl.terminal import one_line

FORMATS: tuple[str, ...] = ("table", "csv", "json", "md")
# A terminal table is made to fit this many characters a line unless asked otherwise
# (`--wide`): text columns are cut first, then the rightmost columns left out, and the
# footer says which.
TABLE_WIDTH = 120
# A text column is not cut narrower than its header, up to this many characters.
MIN_CUT_WIDTH = 12
SEPARATOR = " | "

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
    max_width: int | None = None,
) -> str:
    """Return `rows` under `columns` as text in `fmt` (one of FORMATS), ending with a newline.

    `max_cell_width` and `max_width` (the width of a whole line, None: any) apply to the
    table format only (None: never cut)."""
    if fmt == "table":
        return format_table(columns, rows, max_cell_width=max_cell_width, max_width=max_width)
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


class NumberText(str):
    """Text made of numbers (an interval "[0.495, 0.680]"): a table aligns it as a number
    and never cuts it (a cut interval reads as another interval)."""

    __slots__ = ()


def _is_number(value: Any) -> bool:
    return (isinstance(value, int | float | decimal.Decimal | NumberText)
            and not isinstance(value, bool))


def pick_columns(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], wanted: Sequence[str] | None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Only the columns named in wanted, in its order (all when None or empty); UnknownName
    for a name that is not a column, naming the closest."""
    if not wanted:
        return list(columns), [tuple(row) for row in rows]
    index = {name: i for i, name in enumerate(columns)}
    for name in wanted:
        if name not in index:
            raise UnknownName("column", name, columns)
    picked = [index[name] for name in wanted]
    return list(wanted), [tuple(row[i] for i in picked) for row in rows]


def _fit_widths(header: list[str], widths: list[int], numeric: list[bool],
                max_width: int) -> tuple[list[int], int]:
    """(column widths, number of columns shown) so that a line fits max_width: the widest
    text column is cut first (never below its header, up to MIN_CUT_WIDTH characters), then
    the rightmost columns are left out; the first column is always shown, cut to fit."""
    widths = list(widths)

    def total(n: int) -> int:
        return sum(widths[:n]) + len(SEPARATOR) * (n - 1)

    floors = [w if numeric[i] else min(w, max(min(len(header[i]), MIN_CUT_WIDTH), 1))
              for i, w in enumerate(widths)]
    while total(len(widths)) > max_width:
        cuttable = [i for i in range(len(widths)) if widths[i] > floors[i]]
        if not cuttable:
            break
        # one character off the widest cuttable column at a time: cut evenly
        widths[max(cuttable, key=lambda i: (widths[i], -i))] -= 1
    shown = len(widths)
    while shown > 1 and total(shown) > max_width:
        shown -= 1
    widths[0] = min(widths[0], max_width)
    return widths[:shown], shown


def format_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    max_cell_width: int | None = DEFAULT_TABLE_CELL_WIDTH,
    max_width: int | None = None,
) -> str:
    """An aligned plain-text table: header, a rule, one line per row; numbers right-aligned,
    NULL shown as `NULL`, and a final `(N rows)` line. With max_width every line is at most
    that many characters: text cells are cut (ending in …), then the rightmost columns are
    left out and the last line names them."""

    def cut(text: str, width: int | None) -> str:
        if width is not None and len(text) > width:
            return text[: max(width - 1, 0)] + "…"
        return text

    header = [cut(one_line(str(name)), max_cell_width) for name in columns]
    body = [[NULL_TEXT if v is None else cut(one_line(cell_text(v)), max_cell_width)
             for v in row] for row in rows]
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
    left_out: list[str] = []
    if max_width is not None and widths:
        widths, shown = _fit_widths(header, widths, numeric, max_width)
        left_out = [one_line(str(name)) for name in columns[shown:]]
        header = [cut(text, widths[i]) for i, text in enumerate(header[:shown])]
        body = [[cut(text, widths[i]) for i, text in enumerate(cells[:shown])]
                for cells in body]

    def line(cells: Sequence[str]) -> str:
        parts = [
            text.rjust(widths[i]) if numeric[i] else text.ljust(widths[i])
            for i, text in enumerate(cells)
        ]
        return SEPARATOR.join(parts).rstrip()

    out = [line(header), "-+-".join("-" * w for w in widths)]
    out.extend(line(cells) for cells in body)
    footer = f"({len(rows)} row{'' if len(rows) == 1 else 's'})"
    if left_out:
        footer = cut(f"({len(rows)} row{'' if len(rows) == 1 else 's'}; "
                     f"{len(left_out)} more column{'' if len(left_out) == 1 else 's'} with "
                     f"--wide or --columns: {', '.join(left_out)})", max_width)
    out.append(footer)
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
    # A pipe would end the cell and a newline the row; both are escaped the GitHub way. Any
    # other control character (ESC from a directory name) is escaped as in a table cell.
    return one_line(
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
