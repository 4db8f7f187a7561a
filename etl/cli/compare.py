"""`etl compare A B`: two leaderboard runs question by question, with the paired summary.

A thin layer over etl.api.Warehouse.comparison (the queries live in sql/queries/); the
output formats are those of `etl leaderboard` (etl/output.py). Named compare.py in etl/cli
beside the library's etl/comparison.py (the paired statistics it prints)."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import click

from etl.api import OUTCOMES, Warehouse
from etl.cli.errors import EtlCommand
from etl.cli.options import (
    db_option,
    echo_rows,
    format_option,
    table_options,
    terminal_width,
)
from etl.comparison import detectability
from etl.terminal import one_line

# Columns the readable formats (table, md) show; csv and json keep every column.
READABLE = ("qid", "task", "gold", "prediction_a", "prediction_b", "score_a", "score_b",
            "outcome", "prediction_source_a", "prediction_source_b", "error_class_a",
            "error_class_b")
SCORE_COLUMNS = ("score_a", "score_b", "diff", "points")
# --by-failure: the readable columns of the questions A lost, by A's failure label
LOSS_COLUMNS = ("failure", "title", "n_questions", "points", "top_qid")


def summary_line(run_a: str, run_b: str, summary: dict[str, Any] | None) -> str:
    """One line: wins / losses / ties, diff with its interval, p (and Holm p when set), the
    minimum detectable effect and whether diff is below it. The run ids are directories of
    the tree: their control characters are escaped."""
    run_a, run_b = one_line(run_a), one_line(run_b)
    if summary is None:
        return f"{run_a} vs {run_b}: no paired statistics (no shared questions?)"
    ci = ("" if summary["ci_low"] is None
          else f" [95% CI {summary['ci_low']:+.3f}, {summary['ci_high']:+.3f}]")
    adjusted = ("" if summary["p_adjusted"] is None
                else f", Holm p = {summary['p_adjusted']:.4g}")
    power = detectability(summary)
    return (f"{run_a} vs {run_b}: n = {summary['n_shared']} shared, A wins "
            f"{summary['wins_a']}, B wins {summary['wins_b']}, ties {summary['ties']}; "
            f"diff = {summary['diff']:+.3f}{ci}; sign test p = {summary['p_value']:.4g}"
            f"{adjusted}" + (f"; {power}" if power else ""))


def _rows(table: Any, fmt: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    columns = list(table.column_names)
    if fmt in ("table", "md"):
        readable = LOSS_COLUMNS if "failure" in columns else READABLE
        columns = [c for c in readable if c in columns]
    data = {c: table[c].to_pylist() for c in columns}
    rows = list(zip(*(data[c] for c in columns), strict=True)) if columns else []
    if fmt in ("table", "md"):
        rows = [tuple(Decimal(f"{v:.3f}") if c in SCORE_COLUMNS and v is not None else v
                      for c, v in zip(columns, row, strict=True)) for row in rows]
    return columns, rows


@click.command("compare", cls=EtlCommand)
@click.argument("a")
@click.argument("b")
@db_option()
@click.option("--benchmark", default=None, help="Benchmark of both runs (needed when a model "
              "name means several runs).")
@click.option("--mode", default=None, help="Mode of both runs (agentic or oneshot).")
@click.option("--mode-b", "mode_b", default=None,
              help="Mode of B when it differs from --mode (agentic against one-shot).")
@click.option("--only", type=click.Choice(["disagreements", *OUTCOMES]), default=None,
              help="Only questions with this outcome (disagreements: one run scored higher).")
@click.option("--by-failure", "by_failure", is_flag=True,
              help="Instead of every question: the questions A lost and B won, grouped by "
              "the failure labels A's attempts carry (docs/ANALYSIS.md).")
@format_option("table and md show the main columns rounded to 3 decimals; csv and json keep "
               "every column at full precision.")
@table_options
def compare_command(a: str, b: str, db: Path, benchmark: str | None, mode: str | None,
                    mode_b: str | None, only: str | None, by_failure: bool, fmt: str,
                    columns: list[str] | None, wide: bool) -> None:
    """Compare two leaderboard runs A and B question by question.

    A and B are run ids or model names (canonical key, display name or alias); a model name
    needs --benchmark/--mode when it has several runs. Prints every question either run
    answered (gold, both predictions, both scores, outcome, prediction sources, error
    classes), then a summary line: wins / losses / ties, the mean difference with its 95%
    paired bootstrap interval and the sign-test p (docs/STATISTICS.md). With csv/json the
    summary goes to stderr. A name that means no run is refused with the closest ones."""
    if by_failure and only is not None:
        raise click.UsageError("--by-failure groups the questions A lost; drop --only")
    with Warehouse(db, frames="arrow") as wh:
        result = wh.comparison(a, b, benchmark, mode, only, mode_b)
        losses = wh.comparison_failures(a, b, benchmark, mode, mode_b) if by_failure else None
    names, rows = _rows(result.questions if losses is None else losses, fmt)
    echo_rows(names, rows, fmt, columns, wide)
    summary = summary_line(result.run_a, result.run_b, result.summary)
    if fmt == "table" and not wide:  # the line fits the table's width too
        summary = textwrap.fill(summary, terminal_width(), break_on_hyphens=False,
                                subsequent_indent="  ")
    click.echo(summary, err=fmt in ("csv", "json"))
