"""One self-contained HTML page to look at the warehouse (`etl report --out report.html`,
etl/cli/report.py).

Leaderboards per benchmark and mode as bar charts with their 95% intervals, a model x task
heatmap, agentic minus one-shot deltas, coverage gaps, reconciliation disagreements and
rejected lines. Charts are inline SVG drawn here; the page has no script, no web font and
no external reference (a Content-Security-Policy forbids any), so it opens offline and on
air-gapped machines exactly as it was written. Every number comes from the views."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from etl import __version__
from etl.charts import (
    BAR_GAP,
    BAR_HEIGHT,
    BAR_LABEL_WIDTH,
    BAR_PLOT_WIDTH,
    NEGATIVE_COLOUR,
    PAPER_HEADERS,
    POSITIVE_COLOUR,
    axis,
    delta_dot,
    esc,
    fmt_delta,
    fmt_number,
    fmt_score,
    leaderboard_chart,
    paper_cells,
    zero_line,
)
from etl.comparison import NOT_DETECTABLE, detectability
from etl.connection import open_warehouse
from etl.errors import EtlError
from etl.glossary import (
    DEFAULT_INTERVAL,
    NAIVE_INTERVAL,
    board_marks,
    interval_words,
    mixed_scorers_note,
    scorer_name,
)
from etl.report_failures import failures_section
from etl.schema import query_text

# Heatmap scale: light (score 0) to dark blue (score 1).
LOW_RGB = (239, 246, 255)
HIGH_RGB = (30, 64, 175)

HEAT_CELL = 22
HEAT_LABEL_WIDTH = 170
HEAT_HEADER_MAX = 170
LABEL_CHAR_WIDTH = 6.3  # px per character of 11px labels, to size rotated headers


class ReportError(EtlError):
    """The report could not be written; the message says why."""


@dataclass
class ReportData:
    db: Path
    leaderboard: list[dict[str, Any]]
    # the group and task cells of the leaderboards (board_cells): heat map, group tables
    cells: list[dict[str, Any]]
    mode_delta: list[dict[str, Any]]
    paired_delta: list[dict[str, Any]]
    error_classes: list[dict[str, Any]]
    coverage: list[dict[str, Any]]
    coverage_counts: tuple[int, int]
    reconciliation: list[dict[str, Any]]
    reconciliation_status: list[tuple[str, int]]
    rejects: list[tuple[str, int]]
    reject_lines: list[dict[str, Any]]
    ingest: dict[str, Any] | None
    # the paper's tables (sql/queries/serve_memo_paper.sql, the explorer's /paper page too)
    paper: list[dict[str, Any]] = field(default_factory=list)
    # every board by every scorer beside the defaults (board_rows)
    scorer_boards: list[dict[str, Any]] = field(default_factory=list)
    # why runs fail (etl/report_failures.py; the explorer's /failures memos too)
    failure_profile: list[dict[str, Any]] = field(default_factory=list)
    efficiency: list[dict[str, Any]] = field(default_factory=list)
    failure_words: list[dict[str, Any]] = field(default_factory=list)


def _records(con: duckdb.DuckDBPyConnection, name: str) -> list[dict[str, Any]]:
    """The rows of sql/queries/<name>.sql as dicts."""
    cursor = con.execute(query_text(name))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _tuples(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[Any, ...]]:
    return con.execute(query_text(name)).fetchall()


def load_report_data(db: Path) -> ReportData:
    """Read what the report shows from the warehouse, opened read-only (the numbers are
    computed in the views; the report's selects are sql/queries/report_*.sql)."""
    con = open_warehouse(db, own_queries_only=True)  # refusals: exit 2, as every reader
    try:
        ingest = _records(con, "report_ingest")
        return ReportData(
            db=db,
            leaderboard=_records(con, "report_leaderboard"),
            cells=_records(con, "report_by_task"),
            scorer_boards=_records(con, "report_scorer_boards"),
            mode_delta=_records(con, "report_mode_delta"),
            paired_delta=_records(con, "report_paired_delta"),
            error_classes=_records(con, "report_error_classes"),
            coverage=_records(con, "report_coverage"),
            coverage_counts=tuple(_tuples(con, "report_coverage_total")[0]),
            reconciliation=_records(con, "report_reconciliation"),
            reconciliation_status=_tuples(con, "report_reconciliation_status"),
            rejects=_tuples(con, "report_rejects"),
            reject_lines=_records(con, "report_reject_lines"),
            ingest=ingest[0] if ingest else None,
            paper=[r for r in _records(con, "serve_memo_paper") if r["in_paper_table"]],
            failure_profile=_records(con, "serve_memo_failure_profile"),
            efficiency=_records(con, "serve_memo_efficiency"),
            failure_words=_records(con, "serve_memo_failures"),
        )
    except duckdb.CatalogException as error:
        raise ReportError(f"{db} lacks a view the report needs (built by an older ingest? "
                          f"re-run `etl ingest`): {error}") from error
    except duckdb.Error as error:
        raise ReportError(f"cannot read {db}: {error}") from error
    finally:
        con.close()


# ---------------------------------------------------------------- small helpers


class Slugs:
    """Element ids from data values: only [a-z0-9-], and unique within the page."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def make(self, *parts: Any) -> str:
        base = "-".join(re.sub(r"[^a-z0-9]+", "-", str(p).lower()).strip("-") or "x"
                        for p in parts)
        slug, n = base, 1
        while slug in self.seen:
            n += 1
            slug = f"{base}-{n}"
        self.seen.add(slug)
        return slug


def heat_colour(score: float | None) -> str:
    if score is None:
        return "#e5e7eb"
    t = min(max(score, 0.0), 1.0)
    r, g, b = (round(lo + (hi - lo) * t) for lo, hi in zip(LOW_RGB, HIGH_RGB, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def _group(rows: Iterable[dict[str, Any]], *keys: str) -> dict[tuple, list[dict[str, Any]]]:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    return groups


# ---------------------------------------------------------------- charts


def heatmap_chart(rows: list[dict[str, Any]], chart_id: str,
                  display: dict[str, str], model_scores: dict[str, float] | None = None) -> str:
    """Models (rows, best overall score first) x tasks (columns: task groups apart, tasks
    of a group by mean score, best first), cell colour = score, value and n on hover."""
    model_scores = model_scores or {}
    task_means: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        task_means.setdefault((r["task_group"] or "", r["task"] or ""), []).append(
            r["score"] or 0.0)
    tasks = sorted(task_means, key=lambda t: (t[0], -sum(task_means[t]) / len(task_means[t]),
                                              t[1]))
    models = sorted({r["model"] for r in rows},
                    key=lambda m: (-model_scores.get(m, 0.0), display.get(m, m).lower()))
    cells = {(r["model"], r["task"] or ""): r for r in rows}
    longest = max((len(task) for _, task in tasks), default=0)
    header = min(HEAT_HEADER_MAX, round(16 + longest * LABEL_CHAR_WIDTH * 0.87)) + 16
    # x offset of each task column: a half-cell gap before each new task group.
    offsets, gap, previous = [], 0.0, None
    for group, _ in tasks:
        if previous is not None and group != previous:
            gap += HEAT_CELL / 2
        offsets.append(HEAT_LABEL_WIDTH + len(offsets) * HEAT_CELL + gap)
        previous = group
    width = round(HEAT_LABEL_WIDTH + len(tasks) * HEAT_CELL + gap + 60)
    height = header + len(models) * HEAT_CELL + 10
    parts = [f'<svg id="{chart_id}" class="chart heatmap" role="img" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}">',
             "<title>Score per model and task</title>"]
    for j, (group, task) in enumerate(tasks):
        cx = offsets[j] + HEAT_CELL / 2
        parts.append(f'<text class="task-label" transform="translate({cx:.1f},'
                     f'{header - 6}) rotate(-60)"><title>{esc(group)}</title>'
                     f"{esc(task)}</text>")
        if j == 0 or tasks[j - 1][0] != group:
            parts.append(f'<text class="group-label" x="{offsets[j]:.1f}" y="12">'
                         f"{esc(group)}</text>")
    for i, model in enumerate(models):
        y = header + i * HEAT_CELL
        parts.append(f'<text class="label" x="{HEAT_LABEL_WIDTH - 8}" y="{y + HEAT_CELL - 7}" '
                     f'text-anchor="end">{esc(display.get(model, model))}</text>')
        for j, (group, task) in enumerate(tasks):
            row = cells.get((model, task))
            score = row["score"] if row else None
            x = offsets[j]
            tip = (f"{display.get(model, model)} / {task} ({group}): "
                   + (f"{fmt_score(score)} over {row['n_questions']} questions, "
                      f"{DEFAULT_INTERVAL} {_interval(row['ci_low'], row['ci_high']) or 'none'}"
                      if row else "no questions"))
            exact = (" ".join(f'data-{k.replace("_", "-")}="{esc(row.get(k))}"' for k in (
                "run_id", "n_questions", "ci_low", "ci_high", "ci_naive_low", "ci_naive_high"))
                if row else "")
            parts.append(f'<rect class="cell" x="{x:.1f}" y="{y}" width="{HEAT_CELL - 1}" '
                         f'height="{HEAT_CELL - 1}" fill="{heat_colour(score)}" '
                         f'data-model="{esc(model)}" data-task="{esc(task)}" '
                         f'data-score="{esc(score)}" {exact}><title>{esc(tip)}</title></rect>')
    parts.append("</svg>")
    return "".join(parts)


def delta_chart(rows: list[dict[str, Any]], chart_id: str, display: dict[str, str]) -> str:
    """Diverging bars of agentic minus one-shot overall score per model, centred on 0."""
    magnitude = max([abs(r["delta"]) for r in rows if r["delta"] is not None] + [0.05])
    bound = min(1.0, -(-magnitude * 10 // 1) / 10)  # round up to a tenth
    top = 8
    height = top + len(rows) * (BAR_HEIGHT + BAR_GAP) + 24
    width = BAR_LABEL_WIDTH + BAR_PLOT_WIDTH + 70
    x0 = BAR_LABEL_WIDTH

    def x(value: float) -> float:
        return x0 + (min(max(value, -bound), bound) + bound) / (2 * bound) * BAR_PLOT_WIDTH

    ticks = [-bound, -bound / 2, 0.0, bound / 2, bound]
    parts = [f'<svg id="{chart_id}" class="chart delta-chart" role="img" '
             f'viewBox="0 0 {width} {height}">',
             "<title>Agentic minus one-shot score per model</title>"]
    parts += axis(x0, BAR_PLOT_WIDTH, top - 4, height - 22, ticks, -bound, bound, "{:+.2f}")
    for i, row in enumerate(rows):
        y = top + i * (BAR_HEIGHT + BAR_GAP)
        name = display.get(row["model"], row["model"])
        parts.append(f'<g class="delta-row" data-model="{esc(row["model"])}">')
        tip = (f"{name}: agentic {fmt_score(row['agentic_score'])}, one-shot "
               f"{fmt_score(row['oneshot_score'])}, delta {fmt_delta(row['delta'])}")
        parts.append(f"<title>{esc(tip)}</title>")
        parts.append(f'<text class="label" x="{x0 - 8}" y="{y + BAR_HEIGHT - 4}" '
                     f'text-anchor="end">{esc(name)}</text>')
        delta = row["delta"]
        if delta is None:
            parts.append(f'<text class="value missing" x="{x(0) + 6:.1f}" '
                         f'y="{y + BAR_HEIGHT - 4}">one mode missing</text>')
        else:
            left, right = sorted((x(0.0), x(delta)))
            colour = POSITIVE_COLOUR if delta >= 0 else NEGATIVE_COLOUR
            parts.append(f'<rect class="delta-bar" x="{left:.1f}" y="{y}" '
                         f'width="{right - left:.1f}" height="{BAR_HEIGHT}" fill="{colour}" '
                         f'data-model="{esc(row["model"])}" data-delta="{esc(delta)}"/>')
            anchor, label_x = ("start", right + 6) if delta >= 0 else ("end", left - 6)
            parts.append(f'<text class="value" x="{label_x:.1f}" y="{y + BAR_HEIGHT - 4}" '
                         f'text-anchor="{anchor}">{fmt_delta(delta)}</text>')
        parts.append("</g>")
    parts.append(zero_line(x(0.0), top - 4, height - 22))
    parts.append("</svg>")
    return "".join(parts)


def paired_delta_chart(rows: list[dict[str, Any]], chart_id: str,
                       display: dict[str, str]) -> str:
    """Agentic minus one-shot per model and cell, paired on shared questions: a dot at the
    delta and a whisker for its 95% bootstrap interval, the minimum detectable effect beside
    it and the mark when delta is below it; grey rows have n < 30."""
    bound = max([abs(v) for r in rows for v in (r["ci_low"], r["ci_high"], r["delta"])
                 if v is not None] + [0.05])
    bound = min(1.0, -(-bound * 10 // 1) / 10)
    row_height = 16
    top = 8
    label_width = BAR_LABEL_WIDTH + 150
    height = top + len(rows) * row_height + 24
    width = label_width + BAR_PLOT_WIDTH + 420  # value, MDE and the mark
    x0 = label_width

    def x(value: float) -> float:
        return x0 + (min(max(value, -bound), bound) + bound) / (2 * bound) * BAR_PLOT_WIDTH

    ticks = [-bound, -bound / 2, 0.0, bound / 2, bound]
    parts = [f'<svg id="{chart_id}" class="chart paired-delta-chart" role="img" '
             f'viewBox="0 0 {width} {height}">',
             "<title>Agentic minus one-shot per cell with 95% paired interval</title>"]
    parts += axis(x0, BAR_PLOT_WIDTH, top - 4, height - 22, ticks, -bound, bound, "{:+.2f}")
    for i, row in enumerate(rows):
        y = top + i * row_height + row_height / 2
        name = display.get(row["model"], row["model"])
        cell = row["task"] if row["scope"] == "task" else row["task_group"]
        small = " small-n" if row["small_n"] else ""
        hidden = " not-detectable" if row.get("not_detectable") else ""
        power = detectability(row)
        tip = (f"{name} / {cell}: delta {fmt_delta(row['delta'])}, 95% CI "
               f"[{fmt_delta(row['ci_low'])}, {fmt_delta(row['ci_high'])}], "
               f"n = {row['n_shared']}" + (" (n < 30)" if row["small_n"] else "")
               + (f"; {power}" if power else ""))
        parts.append(f'<g class="paired-delta{small}{hidden}" data-model="{esc(row["model"])}" '
                     f'data-cell="{esc(cell)}" data-delta="{esc(row["delta"])}" '
                     f'data-ci-low="{esc(row["ci_low"])}" data-ci-high="{esc(row["ci_high"])}" '
                     f'data-n="{esc(row["n_shared"])}" data-mde="{esc(row.get("mde_80"))}">'
                     f"<title>{esc(tip)}</title>")
        parts.append(f'<text class="label" x="{x0 - 8}" y="{y + 4:.1f}" text-anchor="end">'
                     f"{esc(name)} · {esc(cell)}</text>")
        if row["ci_low"] is not None and row["ci_high"] is not None:
            parts.append(f'<path class="ci" d="M{x(row["ci_low"]):.1f},{y:.1f}'
                         f'H{x(row["ci_high"]):.1f}"/>')
        if row["delta"] is not None:
            parts.append(delta_dot(x(row["delta"]), y, row["delta"]))
        parts.append(f'<text class="value" x="{x0 + BAR_PLOT_WIDTH + 8}" y="{y + 4:.1f}">'
                     f"{fmt_delta(row['delta'])} n={esc(row['n_shared'])}"
                     f"{' ⚠' if row['small_n'] else ''}"
                     f'<tspan class="mde" dx="8">{esc(power)}</tspan></text></g>')
    parts.append(zero_line(x(0.0), top - 4, height - 22))
    parts.append("</svg>")
    return "".join(parts)


ERROR_CLASS_COLOURS = {"none": "#d1d5db", "model": "#d97706", "infrastructure": "#dc2626",
                       "other": "#6b7280"}


def error_class_chart(rows: list[dict[str, Any]], chart_id: str,
                      display: dict[str, str]) -> str:
    """Per run (benchmark, mode, model): the share of its results in each error class."""
    runs = _group(rows, "benchmark", "mode", "model")
    top = 8
    height = top + len(runs) * (BAR_HEIGHT + BAR_GAP) + 24
    label_width = BAR_LABEL_WIDTH + 130
    width = label_width + BAR_PLOT_WIDTH + 150
    parts = [f'<svg id="{chart_id}" class="chart error-class-chart" role="img" '
             f'viewBox="0 0 {width} {height}">',
             "<title>Share of results per error class</title>"]
    parts += axis(label_width, BAR_PLOT_WIDTH, top - 4, height - 22,
                   [i / 5 for i in range(6)], 0, 1)
    for i, ((benchmark, mode, model), run_rows) in enumerate(runs.items()):
        y = top + i * (BAR_HEIGHT + BAR_GAP)
        total = sum(r["n_results"] for r in run_rows) or 1
        counts = {r["error_class"]: r["n_results"] for r in run_rows}
        parts.append(f'<text class="label" x="{label_width - 8}" y="{y + BAR_HEIGHT - 4}" '
                     f'text-anchor="end">{esc(benchmark)} {esc(mode)} · '
                     f"{esc(display.get(model, model))}</text>")
        x = float(label_width)
        for cls in ("none", "model", "infrastructure", "other"):
            n = counts.get(cls, 0)
            if not n:
                continue
            w = n / total * BAR_PLOT_WIDTH
            parts.append(f'<rect class="error-segment" x="{x:.1f}" y="{y}" width="{w:.1f}" '
                         f'height="{BAR_HEIGHT}" fill="{ERROR_CLASS_COLOURS[cls]}" '
                         f'data-model="{esc(model)}" data-class="{esc(cls)}" data-count="{n}">'
                         f"<title>{esc(model)}: {esc(cls)} {n} of {total} results</title></rect>")
            x += w
        failed = total - counts.get("none", 0)
        parts.append(f'<text class="value" x="{label_width + BAR_PLOT_WIDTH + 8}" '
                     f'y="{y + BAR_HEIGHT - 4}">{failed} failed: '
                     f"{counts.get('infrastructure', 0)} infra</text>")
    parts.append("</svg>")
    return "".join(parts)


def heat_legend() -> str:
    stops = "".join(f'<stop offset="{t / 4:.2f}" stop-color="{heat_colour(t / 4)}"/>'
                    for t in range(5))
    return ('<svg class="legend" width="260" height="34" viewBox="0 0 260 34">'
            f'<defs><linearGradient id="heat-scale">{stops}</linearGradient></defs>'
            '<rect x="10" y="4" width="240" height="12" fill="url(#heat-scale)"/>'
            '<text class="tick" x="10" y="30">0</text>'
            '<text class="tick" x="130" y="30" text-anchor="middle">0.5</text>'
            '<text class="tick" x="250" y="30" text-anchor="end">1</text></svg>')


# ---------------------------------------------------------------- page


def _table(columns: Sequence[str], rows: Iterable[Sequence[Any]], css: str = "") -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
                   for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _leaderboard_section(data: ReportData, slugs: Slugs) -> str:
    if not data.leaderboard:
        return ('<section id="leaderboards"><h2>Leaderboards</h2><p class="empty">No '
                "leaderboard rows: no current run of a full split has scores.</p></section>")
    parts = ['<section id="leaderboards"><h2>Leaderboards</h2>',
             '<p class="note">Current (not archived) runs of full splits. Score: mean over '
             "questions of the per-question score made by the scorer named above each chart "
             "(the benchmark authors' own scorers: their text scorer for the text "
             "benchmarks, their per-question multimodal scores for mm_bench); whiskers: the "
             f"{DEFAULT_INTERVAL} (questions about one patient are not independent; the "
             f"{NAIVE_INTERVAL} is in the tooltip; no whisker when every question is of one "
             "patient); n: questions behind the score / expected; ⚠ fewer: fewer questions "
             "than another run of the board, so "
             "its score is over another question set; ≠ scorer: scored by another scorer "
             "than the rest of the board. Bands: rank groups, runs not significantly "
             "different from their group's first run (Holm-adjusted paired sign test, "
             "docs/STATISTICS.md).</p>"]
    # One row per benchmark, its modes side by side, so the two modes read against each other.
    for (benchmark,), bench_rows in _group(data.leaderboard, "benchmark").items():
        parts.append('<div class="grid">')
        for (mode,), rows in _group(bench_rows, "mode").items():
            chart_id = slugs.make("leaderboard", benchmark, mode)
            splits = ", ".join(sorted({str(r["split"]) for r in rows}))
            scorers = ", ".join(f"{scorer_name(s)} ({s})"
                                for s in sorted({str(r.get("scorer")) for r in rows}))
            mixed = mixed_scorers_note(rows, "scorer")
            chart = leaderboard_chart(rows, chart_id, str(mode), board_marks(rows))
            groups = [r for r in data.cells if (r["benchmark"], r["mode"], r["level"])
                      == (benchmark, mode, "group")]
            parts.append(f'<figure><figcaption><span class="mode {esc(mode)}">{esc(mode)}'
                         f"</span> {esc(benchmark)} <small>({esc(splits)}, {len(rows)} models, "
                         f'scored by <span class="scorer">{esc(scorers)}</span>)'
                         f"</small></figcaption>{chart}"
                         + (f'<p class="note mixed-scorers">⚠ {esc(mixed)}</p>' if mixed
                            else "")
                         + f'<p class="note interval-words">{esc(interval_words(rows))}</p>'
                         + "<details><summary>per task group</summary>"
                         + _cell_table(groups, ("task_group", "model"), display_names(rows),
                                       "group-cells")
                         + "</details></figure>")
        parts.append("</div>")
    parts.append(_scorer_boards(data))
    parts.append("</section>")
    return "".join(parts)


def display_names(rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """model -> its display name, from rows that carry both."""
    return {r["model"]: r["display_name"] for r in rows}


# The columns of a table of cells (group cells, every scorer's boards): the number, n and
# both intervals, each named; the rows carry the exact values as data attributes.
CELL_COLUMNS = ("score", "n", DEFAULT_INTERVAL, NAIVE_INTERVAL)


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _cell_table(rows: list[dict[str, Any]], keys: Sequence[str], display: dict[str, str],
                css: str) -> str:
    """A table of board_cells / board_rows rows: the key columns, then the score, n and both
    intervals; each row's exact numbers in data attributes (data-run, data-score, ...)."""
    head = "".join(f"<th>{esc(c)}</th>" for c in (*keys, *CELL_COLUMNS))
    body = []
    for r in rows:
        attrs = " ".join(f'data-{name.replace("_", "-")}="{esc(r.get(name))}"' for name in (
            "run_id", "board_scorer", "task_group", "n_questions", "score", "ci_low",
            "ci_high", "ci_naive_low", "ci_naive_high"))
        keyed = [display.get(r[k], r[k]) if k == "model" else r[k] for k in keys]
        cells = [*keyed, fmt_score(r["score"]), r["n_questions"],
                 _interval(r["ci_low"], r["ci_high"]),
                 _interval(r["ci_naive_low"], r["ci_naive_high"])]
        body.append(f'<tr class="cell-row" {attrs}>'
                    + "".join(f"<td>{esc(v)}</td>" for v in cells) + "</tr>")
    return (f'<div class="scroll"><table class="{css} numbers"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _scorer_boards(data: ReportData) -> str:
    """Every board by every other scorer it can be shown with, overall, collapsed."""
    if not data.scorer_boards:
        return ""
    parts = ['<details id="scorer-boards"><summary>Every board by every scorer '
             f"({len(_group(data.scorer_boards, 'benchmark', 'mode', 'board_scorer'))} "
             "boards)</summary><p class=\"note\">Each board again, every run scored by one "
             "scorer (not each run's default): to compare rules, not to rank.</p>"]
    for (benchmark, mode, scorer), rows in _group(data.scorer_boards, "benchmark", "mode",
                                                  "board_scorer").items():
        parts.append(f"<h3>{esc(benchmark)} · {esc(mode)} by the {esc(scorer_name(scorer))} "
                     f"<code>{esc(scorer)}</code></h3>")
        parts.append(_cell_table(rows, ("rank", "model"), display_names(rows),
                                 "scorer-board"))
    parts.append("</details>")
    return "".join(parts)


def _heatmap_section(data: ReportData, slugs: Slugs, display: dict[str, str]) -> str:
    parts = ['<section id="heatmaps"><h2>Score per model and task</h2>', heat_legend()]
    tasks = [r for r in data.cells if r["level"] == "task"]
    if not tasks:
        parts.append('<p class="empty">No per-task scores.</p>')
    scores = {(r["benchmark"], r["mode"], r["model"]): r["score"] or 0.0
              for r in data.leaderboard}
    for (benchmark, mode), rows in _group(tasks, "benchmark", "mode").items():
        chart_id = slugs.make("heatmap", benchmark, mode)
        board = {m: v for (b, md, m), v in scores.items() if (b, md) == (benchmark, mode)}
        parts.append(f'<figure class="scroll"><figcaption><span class="mode {esc(mode)}">'
                     f"{esc(mode)}</span> {esc(benchmark)} <small>models by score, task "
                     "groups apart; hover a cell for its value and n</small></figcaption>"
                     f"{heatmap_chart(rows, chart_id, display, board)}</figure>")
    parts.append("</section>")
    return "".join(parts)


def _delta_section(data: ReportData, slugs: Slugs, display: dict[str, str]) -> str:
    parts = ['<section id="mode-delta"><h2>Agentic vs one-shot</h2>',
             '<p class="note">Overall agentic score minus one-shot score of the same model; '
             "green: the agent scaffold helps.</p>"]
    overall = [r for r in data.mode_delta if r["task_group"] == "overall"]
    both = {b for (b,), rows in _group(overall, "benchmark").items()
            if any(r["delta"] is not None for r in rows)}
    if not both:
        parts.append('<p class="empty">No benchmark has both modes for a model.</p>')
    parts.append('<div class="grid">')
    for (benchmark,), rows in _group(overall, "benchmark").items():
        if benchmark not in both:
            continue
        rows = sorted(rows, key=lambda r: (r["delta"] is None, -(r["delta"] or 0.0)))
        chart_id = slugs.make("delta", benchmark)
        groups = [r for r in data.mode_delta
                  if r["benchmark"] == benchmark and r["task_group"] != "overall"]
        table = _table(["model", "task group", "agentic", "one-shot", "delta"],
                       [(display.get(r["model"], r["model"]), r["task_group"],
                         fmt_score(r["agentic_score"]), fmt_score(r["oneshot_score"]),
                         fmt_delta(r["delta"])) for r in groups], "numbers")
        parts.append(f"<figure><figcaption>{esc(benchmark)}</figcaption>"
                     f"{delta_chart(rows, chart_id, display)}"
                     f"<details><summary>per task group</summary>{table}</details></figure>")
    parts.append("</div></section>")
    return "".join(parts)


def _paired_delta_section(data: ReportData, slugs: Slugs, display: dict[str, str]) -> str:
    parts = ['<section id="paired-delta"><h2>Agentic vs one-shot, paired, per group and task'
             '</h2><p class="note">Agentic minus one-shot on the questions both runs answered: '
             "dot = delta, whisker = 95% paired bootstrap interval; ⚠ = fewer than 30 shared "
             "questions; MDE = the minimum detectable effect (power 0.8, alpha 0.05), and "
             f"“{NOT_DETECTABLE}” where |delta| is below it (mode_delta_paired).</p>"]
    if not data.paired_delta:
        parts.append('<p class="empty">No model has both modes.</p>')
    for (benchmark,), rows in _group(data.paired_delta, "benchmark").items():
        groups = [r for r in rows if r["scope"] == "group"]
        tasks = [r for r in rows if r["scope"] == "task"]
        parts.append(f"<figure><figcaption>{esc(benchmark)} <small>per task group</small>"
                     f"</figcaption>"
                     f"{paired_delta_chart(groups, slugs.make('paired-delta', benchmark), display)}"
                     "</figure>")
        chart = paired_delta_chart(tasks, slugs.make("paired-delta-task", benchmark), display)
        parts.append(f"<details><summary>{esc(benchmark)} per task ({len(tasks)} cells, "
                     f"{sum(bool(r['small_n']) for r in tasks)} with n &lt; 30)</summary>"
                     f'<figure class="scroll">{chart}</figure></details>')
    parts.append("</section>")
    return "".join(parts)


def _error_class_section(data: ReportData, slugs: Slugs, display: dict[str, str]) -> str:
    legend = " ".join(f'<span class="swatch" style="background:{colour}"></span>{esc(cls)}'
                      for cls, colour in ERROR_CLASS_COLOURS.items())
    parts = ['<section id="error-classes"><h2>What went wrong, per model</h2>',
             '<p class="note">Share of each leaderboard run\'s results per error class '
             "(result_error_class): infrastructure = throttling, timeouts, connection, SSL and "
             "server errors; model = no final answer, context overflow, unparseable output. "
             f"{legend}</p>"]
    if data.error_classes:
        chart = error_class_chart(data.error_classes, slugs.make("errors"), display)
        parts.append(f"<figure>{chart}</figure>")
    else:
        parts.append('<p class="empty">No results.</p>')
    parts.append("</section>")
    return "".join(parts)


def _paper_section(data: ReportData) -> str:
    parts = ['<section id="paper"><h2>The paper\'s tables</h2>',
             '<p class="note">As the authors\' analysis chain computes them '
             "(reorganize_results.py, compute_ci_from_per_sample_scores.py, build_report.py): "
             "every line of a run's results counts, EHR-Bench by the paper's rule (gold names "
             "only, answers stripped), the multimodal overall pools the six multimodal tasks; "
             "percent with 95% Student-t intervals (not clipped); delta = agentic - one-shot "
             "with a paired interval. The leaderboards above use the authors' scorer "
             "(score_text.py) instead.</p>"]
    if not data.paper:
        parts.append('<p class="empty">No paper table: no leaderboard run the chain reads.</p>')
    for (benchmark,), rows in _group(data.paper, "benchmark").items():
        parts.append(f"<h3>{esc(benchmark)}</h3>")
        parts.append(_table(PAPER_HEADERS, [paper_cells(r) for r in rows], "paper"))
    parts.append("</section>")
    return "".join(parts)


def _warnings_section(data: ReportData) -> str:
    current, total = data.coverage_counts
    parts = ['<section id="warnings"><h2>Coverage and reconciliation</h2>',
             f'<h3>Coverage <small>{len(data.coverage)} of {current} current runs incomplete '
             f"({total} runs with archived)</small></h3>"]
    if data.coverage:
        parts.append(_table(
            ["run", "expected", "present", "missing", "errors", "incomplete"],
            [(r["run_id"], r["expected_questions"], r["present"], r["missing"], r["errors"],
              r["incomplete"]) for r in data.coverage], "warning-table coverage-warnings"))
    else:
        parts.append('<p class="ok">Every current run has all its questions, without errors.</p>')
    status = ", ".join(f"{esc(s)} {n}" for s, n in data.reconciliation_status) or "no summaries"
    parts.append(f"<h3>Reconciliation with the authors' summaries <small>{status}</small></h3>")
    if data.reconciliation:
        per_run = _group(data.reconciliation, "run_id", "scoring", "status")
        parts.append(_table(
            ["run", "summary", "status", "numbers", "largest abs diff"],
            [(run, scoring, status, len(rows),
              fmt_number(max((r["abs_diff"] or 0.0) for r in rows)))
             for (run, scoring, status), rows in per_run.items()],
            "warning-table reconciliation-warnings"))
        details = _table(
            ["run", "scoring", "task", "metric", "reported", "recomputed", "abs diff", "status"],
            [(r["run_id"], r["scoring"], r["task"], r["metric"], fmt_number(r["reported"]),
              fmt_number(r["recomputed"]), fmt_number(r["abs_diff"]), r["status"])
             for r in data.reconciliation], "numbers")
        parts.append(f"<details><summary>every disagreeing number "
                     f"({len(data.reconciliation)})</summary>{details}</details>")
    else:
        parts.append('<p class="ok">Every recomputable summary number matches the rows.</p>')
    counts = ", ".join(f"{esc(s)} {n}" for s, n in data.rejects) or "none"
    parts.append(f"<h3>Rejected lines <small>{counts}</small></h3>")
    if data.reject_lines:
        parts.append(_table(["file", "line", "severity", "error"],
                            [(r["path"], r["line_no"], r["severity"], r["error"])
                             for r in data.reject_lines], "warning-table reject-warnings"))
    parts.append("</section>")
    return "".join(parts)


STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;
margin:0;background:#f9fafb}
header{background:#111827;color:#f9fafb;padding:18px 32px}header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;color:#d1d5db;font-size:13px}
main{padding:8px 32px 40px;max-width:1320px}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:8px 20px 16px;
margin:18px 0}
h2{font-size:18px;margin:12px 0 6px}h3{font-size:15px;margin:16px 0 6px}
small{color:#6b7280;font-weight:normal}
figure{margin:14px 0}figcaption{font-weight:600;margin-bottom:4px}
.scroll{overflow-x:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:4px 28px}
svg.leaderboard-chart,svg.delta-chart{width:100%;height:auto;max-width:760px}
svg.paired-delta-chart,svg.error-class-chart{width:100%;height:auto;max-width:980px}
.note{color:#4b5563;margin:2px 0 8px}.empty{color:#6b7280;font-style:italic}.ok{color:#047857}
.mode{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-size:12px;
background:#6b7280}
.mode.agentic{background:#2563eb}.mode.oneshot{background:#d97706}
svg text{font-size:12px;fill:#111827}svg .tick{fill:#6b7280;font-size:11px}
svg .grid{stroke:#e5e7eb}svg .zero{stroke:#374151}
svg .ci{stroke:#111827;stroke-width:1.5;fill:none}svg .value{fill:#374151}
svg .missing{fill:#9ca3af;font-style:italic}svg .task-label{font-size:11px}
svg .cell:hover,svg .bar-row:hover .bar{stroke:#111827;stroke-width:1.5}
table{border-collapse:collapse;margin:6px 0;font-size:12.5px}
th,td{border-bottom:1px solid #e5e7eb;padding:3px 8px;text-align:left}
th{background:#f3f4f6}
.warning-table td{background:#fffbeb}
svg .rank-band{fill:#f8fafc}svg .rank-band.alt{fill:#eef2ff}
svg .rank-group-label{fill:#6366f1;font-size:11px}svg .group-label{font-size:11px;fill:#4b5563}
svg .coverage{fill:#6b7280;font-size:11px}svg .low-coverage{fill:#b45309;font-weight:600}
svg .other-scorer,svg .scored-elsewhere{fill:#b45309;font-size:11px;font-weight:600}
.mixed-scorers{color:#b45309}
svg .small-n text,svg .small-n circle{opacity:.55}
svg .mde{fill:#6b7280;font-size:11px}svg .not-detectable .mde{fill:#b45309}
.swatch{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;border-radius:2px}
"""

# Nothing may be fetched: no script, no font, no image from elsewhere.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def render_report(data: ReportData) -> str:
    """The whole HTML page as text."""
    display = {r["model"]: r["display_name"] for r in data.leaderboard}
    slugs = Slugs()
    ingest = data.ingest or {}
    finished = ingest.get("finished_at")
    if isinstance(finished, dt.datetime):
        finished = finished.isoformat(sep=" ", timespec="seconds")
    source = (f"ingest {esc(ingest.get('ingest_id'))} of {esc(ingest.get('root'))} "
              f"({esc(finished)} UTC): {esc(ingest.get('n_results'))} results, "
              f"{esc(ingest.get('n_files'))} files" if ingest else "no ingest recorded")
    written = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "".join([
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>ClinSeek evaluation report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<header><h1>ClinSeek evaluation report</h1>",
        f"<p>{esc(data.db.name)}: {source}. Written {written} by etl {esc(__version__)}.</p>",
        "</header><main>",
        _leaderboard_section(data, slugs),
        _heatmap_section(data, slugs, display),
        _delta_section(data, slugs, display),
        _paired_delta_section(data, slugs, display),
        _error_class_section(data, slugs, display),
        failures_section(data.failure_profile, data.efficiency, data.failure_words),
        _paper_section(data),
        _warnings_section(data),
        "</main></body></html>\n",
    ])


def report_summary(data: ReportData, out: Path) -> str:
    """One line saying what was written."""
    n_boards = len(_group(data.leaderboard, "benchmark", "mode"))
    return (f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB): {n_boards} leaderboards, "
            f"{len(data.coverage)} coverage and {len(data.reconciliation)} reconciliation "
            "warnings")


def write_report(db: Path, out: Path) -> ReportData:
    """Render the report of `db` into `out` (written to a temporary file, then renamed)."""
    data = load_report_data(db)
    page = render_report(data)
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        temp.write_text(page, encoding="utf-8")
        os.replace(temp, out)
    except OSError as error:
        raise ReportError(f"cannot write {out}: {error}") from error
    finally:
        temp.unlink(missing_ok=True)
    return data
