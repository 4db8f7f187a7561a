"""Terminal tables fit 120 characters a line by default; `--wide` shows every column,
`--columns A,B` prints those columns in that order in any format, an unknown column is
refused with the closest names.

The fitting rule is checked on any table (Hypothesis: any cells, any width), then every
command that prints a table is run on the demo warehouse."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from etl.cli import cli
from etl.output import format_table
from tests.budgets import examples

WIDTH = 120  # what a terminal table fits by default (the product's promise)

# Printable text (no control or line-separator characters) for the names the footer lists;
# any text for the test that nothing breaks a line.
# Lone surrogates aside: the warehouse never holds them (the ingest repairs them to U+FFFD).
ANY_TEXT = st.characters(blacklist_categories=("Cs",))
printable = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                    max_size=40).filter(lambda s: s.strip())


def cells(text: st.SearchStrategy[str]) -> st.SearchStrategy:
    return st.one_of(st.none(), st.integers(-10**12, 10**12),
                     st.floats(allow_nan=False, allow_infinity=False),
                     text, st.lists(text, max_size=4))


@st.composite
def tables(draw: st.DrawFn, text: st.SearchStrategy[str] = printable
           ) -> tuple[list[str], list[list]]:
    n_columns = draw(st.integers(1, 12))
    names = draw(st.lists(text, min_size=n_columns, max_size=n_columns, unique=True))
    rows = draw(st.lists(st.lists(cells(text), min_size=n_columns, max_size=n_columns),
                         max_size=6))
    return names, rows


@settings(max_examples=examples(150), deadline=None)
@given(tables(st.text(ANY_TEXT, max_size=200)), st.integers(20, 200))
def test_every_line_fits_whatever_the_cells_hold(table, max_width: int) -> None:
    names, rows = table
    out = format_table(names, rows, max_width=max_width).splitlines()
    assert len(out) == len(rows) + 3  # header, rule, rows, footer: no cell breaks a line
    assert all(len(line) <= max_width for line in out), max(out, key=len)


@settings(max_examples=examples(150), deadline=None)
@given(tables(), st.integers(60, 200))
def test_the_footer_names_the_columns_left_out(table, max_width: int) -> None:
    names, rows = table
    out = format_table(names, rows, max_width=max_width).splitlines()
    n_shown = out[1].count("-+-") + 1  # the rule has one segment per column shown
    assert 1 <= n_shown <= len(names)
    header = out[0]
    assert header.strip().startswith(names[0].strip()[:8])  # the first column is always shown
    footer = out[-1]
    if n_shown < len(names):
        # the left-out columns are the rightmost ones, named (cut to the width if need be)
        assert "--wide or --columns: " in footer
        named = footer.split("--wide or --columns: ", 1)[1].rstrip(")").rstrip("…")
        assert ", ".join(names[n_shown:]).startswith(named)
    else:
        assert footer == f"({len(rows)} row{'' if len(rows) == 1 else 's'})"


@settings(max_examples=examples(50), deadline=None)
@given(tables())
def test_without_a_width_nothing_is_left_out(table) -> None:
    names, rows = table
    out = format_table(names, rows, max_width=None).splitlines()
    assert out[1].count("-+-") + 1 == len(names)
    assert out[-1] == f"({len(rows)} row{'' if len(rows) == 1 else 's'})"


def etl_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


# Every command that prints a table, with arguments that make a wide one on the demo data.
COMMANDS = {
    "board": ["leaderboard"],
    "ranked": ["leaderboard", "--board", "ranked"],
    "common": ["leaderboard", "--board", "common"],
    "without-infra": ["leaderboard", "--board", "without-infra"],
    "by task": ["leaderboard", "--by", "task"],
    "by group": ["leaderboard", "--by", "group"],
    "compare": ["compare", "claude_opus_4_6", "minimax_m2_5", "--benchmark", "ehr_bench",
                "--mode", "agentic"],
    "lineage": ["lineage"],
    "search": ["search", "the", "--limit", "20"],
    "coverage": ["query", "SELECT * FROM coverage"],
    "results": ["query", "SELECT * FROM results LIMIT 30"],
}


def table_part(lines: list[str]) -> list[str]:
    """The table's lines: up to its footer "(N rows...)" (compare prints a summary after)."""
    end = next(i for i, line in enumerate(lines) if re.match(r"\(\d+ rows?[;)]", line))
    return lines[:end + 1]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_table_fits_120_characters_unless_wide(demo_db: Path, name: str) -> None:
    args = [*COMMANDS[name], "--db", str(demo_db)]
    code, out, err = etl_cli(*args)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) > 3 and max(len(line) for line in lines) <= WIDTH, \
        max(lines, key=len)
    code, wide, _ = etl_cli(*args, "--wide")
    assert code == 0
    wide_lines = wide.splitlines()
    lines, wide_lines = table_part(lines), table_part(wide_lines)
    assert "more column" not in wide_lines[-1]  # --wide shows every column
    assert len(wide_lines) == len(lines)  # the same rows
    shown = [h.strip() for h in lines[0].split(" | ")]
    every = [h.strip() for h in wide_lines[0].split(" | ")]
    if "more column" in lines[-1]:  # the rightmost columns were left out, and named
        assert len(shown) < len(every)
        assert lines[-1].split("--columns: ")[1].startswith(every[len(shown)])
        assert max(len(line) for line in wide_lines) > WIDTH
    else:
        assert len(shown) == len(every)
    for cut, whole in zip(shown, every, strict=False):  # each shown header is whole or cut
        assert whole.startswith(cut.rstrip("…"))


def test_the_wide_tables_of_the_demo_are_cut_to_fit(demo_db: Path) -> None:
    # The default board and the comparison are wider than 120 when every column is shown:
    # the width rule is what keeps them in the terminal.
    for name in ("compare", "ranked", "coverage"):
        _, wide, _ = etl_cli(*COMMANDS[name], "--db", str(demo_db), "--wide")
        assert max(len(line) for line in wide.splitlines()) > WIDTH, name


def test_columns_picks_columns_in_order_in_every_format(demo_db: Path) -> None:
    args = [*COMMANDS["by task"], "--db", str(demo_db), "--columns", "score,model,task"]
    _, table, _ = etl_cli(*args)
    assert [h.strip() for h in table.splitlines()[0].split(" | ")] == ["score", "model", "task"]
    _, as_csv, _ = etl_cli(*args, "--format", "csv")
    rows = list(csv.reader(io.StringIO(as_csv)))
    assert rows[0] == ["score", "model", "task"] and len(rows) > 2
    _, as_json, _ = etl_cli(*args, "--format", "json")
    assert all(list(row) == ["score", "model", "task"] for row in json.loads(as_json))
    _, md, _ = etl_cli(*args, "--format", "md")
    assert md.splitlines()[0].replace(" ", "") == "|score|model|task|"
    # the values are those of the full listing, column by column
    _, full, _ = etl_cli(*COMMANDS["by task"], "--db", str(demo_db), "--format", "json")
    assert [[r["score"], r["model"], r["task"]] for r in json.loads(full)] == \
        [[r["score"], r["model"], r["task"]] for r in json.loads(as_json)]


def test_an_unknown_column_is_refused_with_the_closest(demo_db: Path) -> None:
    code, out, err = etl_cli(*COMMANDS["board"], "--db", str(demo_db), "--columns",
                             "model,scroe")
    assert code == 2 and out == ""
    assert "unknown column 'scroe'" in err and "did you mean score" in err
