"""The explorer's paper page (/paper): the paper's tables as the authors' analysis chain makes
them (views paper_table and paper_mode_delta, sql/82_paper.sql), one table per benchmark,
the agentic and one-shot cells side by side with their delta. Rows come from the memo
sql/queries/serve_memo_paper.sql, which etl report reads too."""

from __future__ import annotations

from starlette.requests import Request

from etl.serve.live import ServeWarehouse
from etl.serve.pages import HOME, NotFound, Page, Table, url

COLUMNS = ["display_name", "level", "name", "agentic_n", "agentic_score", "agentic_ci_low",
           "agentic_ci_high", "oneshot_n", "oneshot_score", "oneshot_ci_low",
           "oneshot_ci_high", "delta", "delta_ci_low", "delta_ci_high", "delta_n", "scorer"]


def page_paper(wh: ServeWarehouse, request: Request) -> Page:
    """/paper[?benchmark=..][&all=1]: the cells the paper prints, or every cell (all=1)."""
    wanted = request.query_params.get("benchmark") or None
    every = request.query_params.get("all") in ("1", "true", "on")
    rows = [r for r in wh.memo("paper")
            if (every or r["in_paper_table"]) and wanted in (None, r["benchmark"])]
    benchmarks = sorted({r["benchmark"] for r in wh.memo("paper")})
    if wanted is not None and wanted not in benchmarks:
        raise NotFound(f"no paper table for {wanted}")
    tables = {}
    for benchmark in sorted({r["benchmark"] for r in rows}):
        table = Table.of([r for r in rows if r["benchmark"] == benchmark], COLUMNS,
                         display_name=lambda r: url("/paper", benchmark=r["benchmark"], all=1))
        table.html_rows = None
        tables[benchmark] = table
    return Page("paper.html", "The paper's tables",
                [HOME, ("Paper tables", url("/paper"))], tables,
                {"benchmarks": benchmarks, "benchmark": wanted, "every": every})
