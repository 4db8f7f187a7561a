"""Options every command shares, each defined once: `--db`, and the output options of the
commands that print rows (`--format`, `--columns`, `--wide`) with the one function that
prints them."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from etl.output import FORMATS, TABLE_WIDTH, format_rows, pick_columns

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_DB = Path("warehouse.duckdb")
READ_HELP = "Warehouse DuckDB file (opened read-only)."
BUILD_HELP = "Database file to build (replaced atomically when the ingest succeeds)."


def db_option(help: str = READ_HELP, build: bool = False) -> Callable[[F], F]:  # noqa: A002
    """The --db option (parameter `db`, a Path, default warehouse.duckdb). A reader's path
    is checked by etl.connection.open_warehouse, which says what is wrong with it; build:
    the file an ingest writes (a directory is refused here)."""
    return click.option("--db", "db", type=click.Path(dir_okay=not build, path_type=Path),
                        default=DEFAULT_DB, show_default=True, help=help)


def format_option(help: str = "Output format.") -> Callable[[F], F]:  # noqa: A002
    return click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="table",
                        show_default=True, help=help)


def _split_columns(_: click.Context, __: click.Parameter, value: str | None
                   ) -> list[str] | None:
    if value is None:
        return None
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names:
        raise click.BadParameter("name at least one column", param_hint="--columns")
    return names


def terminal_width() -> int:
    """The width a terminal table fits: the terminal's when the output is one (COLUMNS
    first, as shutil reads it), else TABLE_WIDTH (a file, a pipe, a test)."""
    if not click.get_text_stream("stdout").isatty():
        return TABLE_WIDTH
    return shutil.get_terminal_size((TABLE_WIDTH, 24)).columns


def table_options(f: F) -> F:
    """--columns and --wide, for a command that prints rows."""
    f = click.option("--wide", is_flag=True,
                     help="Table format: do not fit the table to the terminal's width "
                          f"({TABLE_WIDTH} characters a line when the output is not a "
                          "terminal); every column shown, a cell still cut at 80 "
                          "characters.")(f)
    return click.option("--columns", "columns", callback=_split_columns, default=None,
                        metavar="A,B,...",
                        help="Print only these columns, in this order (any format); an "
                             "unknown name is refused with the closest ones.")(f)


def echo_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str,
              wanted: Sequence[str] | None = None, wide: bool = False) -> None:
    """Print rows in fmt: only the wanted columns when given; a table fits the terminal's
    width (terminal_width) unless wide."""
    columns, picked = pick_columns(columns, rows, wanted)
    click.echo(format_rows(columns, picked, fmt, max_width=None if wide else terminal_width()),
               nl=False)
