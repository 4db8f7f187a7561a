"""`etl failures`: why the leaderboard runs fail, what they spend and how consistent their
attempts are: the views of docs/ANALYSIS.md through the notebook API's queries
(etl.api.Warehouse.failures / failure_kinds / efficiency / consistency)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import click

from etl.api import Warehouse
from etl.cli.errors import EtlCommand
from etl.cli.options import db_option, echo_rows, format_option, table_options

# Columns the readable formats (table, md) show per --show; csv and json keep every column.
READABLE: dict[str, tuple[str, ...]] = {
    "profile": ("benchmark", "mode", "model", "task", "failure", "n_results", "share",
                "points_lost", "score_lost"),
    "kinds": ("benchmark", "mode", "model", "failure", "detail", "tool", "n_calls",
              "n_results", "share_of_calls"),
    "efficiency": ("benchmark", "mode", "model", "task", "score", "calls_per_question",
                   "steps_per_question", "chars_per_question", "calls_per_point",
                   "on_frontier"),
    "consistency": ("benchmark", "mode", "model", "task", "n_questions", "n_attempts",
                    "outcome_agreement", "answer_agreement", "tool_sequence_agreement"),
}
# columns rounded to 3 decimals (shares, scores) and to 1 (counts per question or point)
THREE = {"share", "score_lost", "share_of_calls", "score", "outcome_agreement",
         "answer_agreement", "tool_sequence_agreement"}
ONE = {"points_lost", "calls_per_question", "calls_per_attempt", "steps_per_question",
       "chars_per_question", "calls_per_point", "tokens_per_question"}


def _readable(name: str, value: Any) -> Any:
    if value is None or not isinstance(value, float):
        return value
    if name in THREE:
        return Decimal(f"{value:.3f}")
    if name in ONE:
        return Decimal(f"{value:.1f}")
    return value


def _rows(table: Any, show: str, fmt: str, by_task: bool
          ) -> tuple[list[str], list[tuple[Any, ...]]]:
    columns = list(table.column_names)
    if fmt in ("table", "md"):  # the task column only on per-task rows
        columns = [c for c in READABLE[show] if c in columns and (by_task or c != "task")]
    data = {c: table[c].to_pylist() for c in columns}
    rows = list(zip(*(data[c] for c in columns), strict=True)) if columns else []
    if fmt in ("table", "md"):
        rows = [tuple(_readable(c, v) for c, v in zip(columns, row, strict=True))
                for row in rows]
    return columns, rows


@click.command("failures", cls=EtlCommand)
@db_option()
@click.option("--benchmark", default=None, help="Only this benchmark (e.g. ehr_bench).")
@click.option("--mode", default=None, help="Only this mode (agentic or oneshot).")
@click.option("--model", default=None, help="Only this model (key, display name or alias).")
@click.option("--task", default=None, help="Only this task (implies --by-task).")
@click.option("--by-task", "by_task", is_flag=True,
              help="One row per task instead of one per run.")
@click.option("--failure", default=None,
              help="--show kinds: only this label (invalid_arguments, tool_error, ...).")
@click.option("--show", type=click.Choice(list(READABLE)), default="profile",
              show_default=True,
              help="profile: per run and failure label, the results carrying it and the "
              "points lost on them; kinds: the labelled tool calls by kind and tool; "
              "efficiency: calls, steps and characters read per question and per point, and "
              "the cost frontier; consistency: how often the attempts of runs with several "
              "per question agree.")
@format_option("table and md round shares and scores to 3 decimals and per-question "
               "figures to 1; csv and json keep every column at full precision.")
@table_options
def failures_command(db: Path, benchmark: str | None, mode: str | None, model: str | None,
                     task: str | None, by_task: bool, failure: str | None, show: str,
                     fmt: str, columns: list[str] | None, wide: bool) -> None:
    """Why the leaderboard runs fail, what they spend, how consistent their attempts are.

    Every tool call and result carries deterministic failure labels read from the texts the
    writer's tools return (invalid_arguments, unknown_tool, tool_error, empty_result,
    truncated_result, infrastructure per call; repeated_call, no_final_answer,
    empty_answer, answer_outside_candidates, run_error per result; none when clean). The
    profile ties them to the score: points_lost is the questions' worth of score the run
    lost on the results carrying a label (score_lost: as a fraction of the score). Records
    carry no token counts (tokens appear where they do): the cost is calls, steps and
    characters of tool results read. What each label means: docs/ANALYSIS.md."""
    if failure is not None and show != "kinds":
        raise click.UsageError("--failure narrows --show kinds")
    with Warehouse(db, frames="arrow") as wh:
        if show == "kinds":
            table = wh.failure_kinds(benchmark, mode, model, failure)
        else:
            method = {"profile": wh.failures, "efficiency": wh.efficiency,
                      "consistency": wh.consistency}[show]
            table = method(benchmark, mode, model, task, by_task)
    names, rows = _rows(table, show, fmt, by_task or task is not None)
    if not rows and fmt == "table":
        click.echo("No rows match (leaderboard runs only).", err=True)
    echo_rows(names, rows, fmt, columns, wide)
