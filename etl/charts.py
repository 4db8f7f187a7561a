"""SVG charts drawn from view rows, shared by `etl report` (one self-contained page) and
`etl serve` (the explorer): the leaderboard bars with their intervals, rank-group bands,
coverage and marks, and the two-run comparison per task group.

Every value from the data goes through esc() (text and attributes), the charts carry no
script and no style attribute (colours are SVG presentation attributes), so they can be
embedded under a Content-Security-Policy that forbids inline script and style."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from etl.glossary import DEFAULT_INTERVAL, NAIVE_INTERVAL

MODE_COLOURS = {"agentic": "#2563eb", "oneshot": "#d97706"}
OTHER_COLOUR = "#6b7280"
POSITIVE_COLOUR = "#059669"
NEGATIVE_COLOUR = "#dc2626"
TIE_COLOUR = "#d1d5db"

BAR_LABEL_WIDTH = 170
BAR_PLOT_WIDTH = 400
BAR_HEIGHT = 18
BAR_GAP = 8
LABEL_CHARS = 24  # a longer model name is shortened in the chart (whole name on hover)

Row = Mapping[str, Any]


def esc(value: Any) -> str:
    """Text of a value, escaped for HTML and SVG (attributes included)."""
    return html.escape("" if value is None else str(value), quote=True)


def fmt_score(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def fmt_delta(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"


def fmt_number(value: float | None) -> str:
    return "–" if value is None else f"{value:.6g}"


def fmt_percent_interval(score: float | None, low: float | None, high: float | None) -> str:
    """A paper cell as the paper prints it: percent, one decimal, with its interval."""
    if score is None:
        return ""
    bounds = (f" [{low * 100:.1f}, {high * 100:.1f}]" if low is not None and high is not None
              else "")
    return f"{score * 100:.1f}{bounds}"


# The paper's tables as the report and the explorer's /paper page draw them: one row per
# model and cell, the agentic and one-shot cells and their delta, in percent with intervals.
PAPER_HEADERS = ("model", "level", "cell", "n", "agentic (ClinSeek)", "one-shot", "delta")


def paper_cells(row: Row) -> tuple[Any, ...]:
    """The drawn cells of one row of sql/queries/serve_memo_paper.sql (PAPER_HEADERS)."""
    return (row["display_name"], row["level"], row["name"],
            row["agentic_n"] or row["oneshot_n"],
            fmt_percent_interval(row["agentic_score"], row["agentic_ci_low"],
                                 row["agentic_ci_high"]),
            fmt_percent_interval(row["oneshot_score"], row["oneshot_ci_low"],
                                 row["oneshot_ci_high"]),
            fmt_percent_interval(row["delta"], row["delta_ci_low"], row["delta_ci_high"]))


def shorten(text: Any, limit: int) -> str:
    """text cut to limit characters with an ellipsis in the middle (both ends of a model
    name or run id say the most)."""
    value = "" if text is None else str(text)
    if len(value) <= limit:
        return value
    head = (limit - 1) // 2
    return value[:head] + "…" + value[len(value) - (limit - 1 - head):]


def axis(x0: float, width: float, y_top: float, y_bottom: float,
         ticks: Sequence[float], lo: float, hi: float, fmt: str = "{:.1f}") -> list[str]:
    parts = []
    for tick in ticks:
        x = x0 + (tick - lo) / (hi - lo) * width
        parts.append(f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{y_top}" '
                     f'y2="{y_bottom}"/>')
        parts.append(f'<text class="tick" x="{x:.1f}" y="{y_bottom + 14}" '
                     f'text-anchor="middle">{fmt.format(tick)}</text>')
    return parts


def delta_dot(cx: float, cy: float, delta: float | None) -> str:
    """A dot at a difference, green when it is at least 0, red below (nothing for None)."""
    if delta is None:
        return ""
    colour = POSITIVE_COLOUR if delta >= 0 else NEGATIVE_COLOUR
    return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{colour}"/>'


def zero_line(x: float, y_top: float, y_bottom: float) -> str:
    """The vertical line at 0 of a chart of differences."""
    return f'<line class="zero" x1="{x:.1f}" x2="{x:.1f}" y1="{y_top}" y2="{y_bottom}"/>'


def leaderboard_chart(rows: Sequence[Row], chart_id: str, mode: str,
                      marks: Mapping[str, list[str]] | None = None,
                      link: Callable[[Row], str | None] | None = None) -> str:
    """Horizontal bars of score per model (board_rows rows) with a whisker for the default
    interval, 95% clustered by patient (ci_low / ci_high; the naive interval, ci_naive_*, is
    said on hover; no whisker when every question is one patient's), best first; a band per
    rank group (none on a board without rank groups); n / expected after each bar, then the
    marks' signs (⚠ fewer, ≠ scorer, elsewhere), each said in words on hover (marks:
    run_id -> warnings, etl.glossary.board_marks). link: a URL per row, making its bar a
    link."""
    marks = marks or {}
    top = 8
    height = top + len(rows) * (BAR_HEIGHT + BAR_GAP) + 24
    x0 = BAR_LABEL_WIDTH
    width = BAR_LABEL_WIDTH + BAR_PLOT_WIDTH + 190  # room for the value, coverage and marks

    def x(value: float) -> float:
        return x0 + min(max(value, 0.0), 1.0) * BAR_PLOT_WIDTH

    colour = MODE_COLOURS.get(mode, OTHER_COLOUR)
    parts = [f'<svg id="{esc(chart_id)}" class="chart leaderboard-chart" role="img" '
             f'viewBox="0 0 {width} {height}">',
             f"<title>Leaderboard {esc(mode)}: score with its {DEFAULT_INTERVAL}</title>"]
    # Rank groups: a band behind each run of consecutive rows of one group.
    bands: list[tuple[Any, int, int]] = []
    for i, row in enumerate(rows):
        group = row.get("rank_group")
        if bands and bands[-1][0] == group:
            bands[-1] = (group, bands[-1][1], i)
        else:
            bands.append((group, i, i))
    for k, (group, first, last) in enumerate(bands):
        if group is None:  # a board without rank groups (another scorer, shared questions)
            continue
        y_band = top + first * (BAR_HEIGHT + BAR_GAP) - BAR_GAP / 2
        h_band = (last - first + 1) * (BAR_HEIGHT + BAR_GAP)
        parts.append(f'<rect class="rank-band{" alt" if k % 2 else ""}" x="0" '
                     f'y="{y_band:.1f}" width="{width}" height="{h_band:.1f}" '
                     f'data-rank-group="{esc(group)}"><title>rank group {esc(group)}: not '
                     f"significantly different from the group's first run</title></rect>")
        parts.append(f'<text class="rank-group-label" x="{width - 4}" '
                     f'y="{y_band + 12:.1f}" text-anchor="end">group {esc(group)}</text>')
    parts += axis(x0, BAR_PLOT_WIDTH, top - 4, height - 22, [i / 5 for i in range(6)], 0, 1)
    for i, row in enumerate(rows):
        y = top + i * (BAR_HEIGHT + BAR_GAP)
        score = row["score"] or 0.0
        covered = f"{row['n_questions']}/{row.get('expected')}"
        warnings = marks.get(row.get("run_id", ""), [])
        interval = ("all questions of one patient: no clustered interval"
                    if row.get("single_cluster")
                    else f"{DEFAULT_INTERVAL} [{fmt_score(row['ci_low'])}, "
                    f"{fmt_score(row['ci_high'])}] ({row.get('n_clusters')} patients, design "
                    f"effect {fmt_number(row.get('design_effect'))})")
        tip = (f"{row['display_name']} ({row['model']}): score {fmt_score(row['score'])}, "
               f"{interval}; {NAIVE_INTERVAL} [{fmt_score(row.get('ci_naive_low'))}, "
               f"{fmt_score(row.get('ci_naive_high'))}], "
               f"n = {row['n_questions']}, rank {row['rank']}, rank group "
               f"{row.get('rank_group') or 'none'}, questions present / expected "
               f"{row.get('present')}/{row.get('expected')}"
               + "".join(f"; ⚠ {w}" for w in warnings))
        href = link(row) if link else None
        parts.append(f'<a href="{esc(href)}">' if href else "")
        parts.append(f'<g class="bar-row" data-model="{esc(row["model"])}">')
        parts.append(f"<title>{esc(tip)}</title>")
        parts.append(f'<text class="label" x="{x0 - 8}" y="{y + BAR_HEIGHT - 4}" '
                     f'text-anchor="end">{esc(row["rank"])}. '
                     f'{esc(shorten(row["display_name"], LABEL_CHARS))}</text>')
        parts.append(f'<rect class="bar" x="{x0}" y="{y}" width="{x(score) - x0:.1f}" '
                     f'height="{BAR_HEIGHT}" fill="{colour}" data-model="{esc(row["model"])}" '
                     f'data-run-id="{esc(row.get("run_id"))}" '
                     f'data-n-questions="{esc(row["n_questions"])}" '
                     f'data-score="{esc(row["score"])}" data-ci-low="{esc(row["ci_low"])}" '
                     f'data-ci-high="{esc(row["ci_high"])}" '
                     f'data-ci-naive-low="{esc(row.get("ci_naive_low"))}" '
                     f'data-ci-naive-high="{esc(row.get("ci_naive_high"))}"/>')
        if row["ci_low"] is not None and row["ci_high"] is not None:
            lo, hi, mid = x(row["ci_low"]), x(row["ci_high"]), y + BAR_HEIGHT / 2
            parts.append(
                f'<path class="ci" d="M{lo:.1f},{mid - 5}V{mid + 5}M{lo:.1f},{mid}H{hi:.1f}'
                f'M{hi:.1f},{mid - 5}V{mid + 5}"/>')
        label_x = x(max(score, row["ci_high"] or 0.0)) + 6
        fewer = row.get("low_coverage")
        parts.append(f'<text class="value" x="{label_x:.1f}" y="{y + BAR_HEIGHT - 4}">'
                     f'{fmt_score(row["score"])}<tspan class="coverage'
                     f'{" low-coverage" if fewer else ""}" dx="6">n {esc(covered)}'
                     f'{" ⚠ fewer" if fewer else ""}</tspan>'
                     + ('<tspan class="other-scorer" dx="6">≠ scorer</tspan>'
                        if row.get("other_scorer") else "")
                     + ('<tspan class="scored-elsewhere" dx="6">elsewhere</tspan>'
                        if row.get("scored_elsewhere") else "")
                     + "</text>")
        parts.append("</g>")
        parts.append("</a>" if href else "")
    parts.append("</svg>")
    return "".join(parts)


def comparison_chart(groups: Sequence[Row], chart_id: str, label_a: str, label_b: str) -> str:
    """Two runs per task group: a stacked bar of the questions A won, tied and lost (left),
    and the paired difference A - B with its 95% interval (right, centred on 0). groups:
    rows with task_group (None: every question), n_shared, wins_a, ties, wins_b, diff,
    ci_low, ci_high, small_n."""
    row_h, top, label_w, stack_w, gap, delta_w = 24, 24, 190, 300, 40, 300
    height = top + len(groups) * row_h + 26
    width = label_w + stack_w + gap + delta_w + 80
    bound = max([abs(v) for g in groups for v in (g.get("ci_low"), g.get("ci_high"),
                                                    g.get("diff")) if v is not None] + [0.05])
    bound = min(1.0, -(-bound * 10 // 1) / 10)  # round up to a tenth
    d0 = label_w + stack_w + gap

    def dx(value: float) -> float:
        return d0 + (min(max(value, -bound), bound) + bound) / (2 * bound) * delta_w

    parts = [f'<svg id="{esc(chart_id)}" class="chart comparison-chart" role="img" '
             f'viewBox="0 0 {width} {height}">',
             f"<title>{esc(label_a)} (A) against {esc(label_b)} (B) per task group</title>",
             f'<text class="tick" x="{label_w}" y="12">questions: A better · tie · B better'
             "</text>",
             f'<text class="tick" x="{d0}" y="12">mean difference A − B, 95% interval</text>']
    parts += axis(d0, delta_w, top - 4, height - 22, [-bound, -bound / 2, 0.0, bound / 2,
                                                       bound], -bound, bound, "{:+.2f}")
    for i, g in enumerate(groups):
        y = top + i * row_h
        name = g.get("task_group") or "every question"
        n = g.get("n_shared") or 0
        small = " small-n" if g.get("small_n") else ""
        tip = (f"{name}: {n} shared questions; A better on {g.get('wins_a')}, tie "
               f"{g.get('ties')}, B better on {g.get('wins_b')}; A − B "
               f"{fmt_delta(g.get('diff'))} [95% CI {fmt_delta(g.get('ci_low'))}, "
               f"{fmt_delta(g.get('ci_high'))}]" + (" (fewer than 30 questions)" if small
                                                     else ""))
        parts.append(f'<g class="comparison-group{small}" data-group="{esc(name)}" '
                     f'data-wins-a="{esc(g.get("wins_a"))}" data-ties="{esc(g.get("ties"))}" '
                     f'data-wins-b="{esc(g.get("wins_b"))}" data-diff="{esc(g.get("diff"))}" '
                     f'data-ci-low="{esc(g.get("ci_low"))}" '
                     f'data-ci-high="{esc(g.get("ci_high"))}"><title>{esc(tip)}</title>')
        parts.append(f'<text class="label" x="{label_w - 8}" y="{y + 15}" text-anchor="end">'
                     f"{esc(shorten(name, 26))} (n {n})</text>")
        x = float(label_w)
        for key, colour, css in (("wins_a", POSITIVE_COLOUR, "wins-a"),
                                 ("ties", TIE_COLOUR, "ties"),
                                 ("wins_b", NEGATIVE_COLOUR, "wins-b")):
            count = g.get(key) or 0
            w = count / n * stack_w if n else 0.0
            if w > 0:
                parts.append(f'<rect class="{css}" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" '
                             f'height="{row_h - 8}" fill="{colour}"/>')
                if w > 22:
                    parts.append(f'<text class="count" x="{x + w / 2:.1f}" y="{y + 15}" '
                                 f'text-anchor="middle">{count}</text>')
            x += w
        if g.get("ci_low") is not None and g.get("ci_high") is not None:
            parts.append(f'<path class="ci" d="M{dx(g["ci_low"]):.1f},{y + 11}'
                         f'H{dx(g["ci_high"]):.1f}"/>')
        if g.get("diff") is not None:
            parts.append(delta_dot(dx(g["diff"]), y + 11, g["diff"]))
        parts.append(f'<text class="value" x="{d0 + delta_w + 8}" y="{y + 15}">'
                     f"{fmt_delta(g.get('diff'))}{' ⚠' if small else ''}</text></g>")
    parts.append(zero_line(dx(0.0), top - 4, height - 22))
    parts.append("</svg>")
    return "".join(parts)
