"""The explorer's paper page (/paper): the paper's tables as the authors' analysis chain makes
them (views paper_table and paper_mode_delta, sql/82_paper.sql), one table per benchmark,
drawn as the report draws them (etl/charts.py paper_cells: model, level, cell, n, the
agentic and one-shot cells and their delta in percent with their intervals). Rows come from
the memo sql/queries/serve_memo_paper.sql, which etl report reads too; the JSON and CSV hold
every column of every row."""

from __future__ import annotations

from starlette.requests import Request

from etl.charts import PAPER_HEADERS, paper_cells
from etl.serve.live import ServeWarehouse
from etl.serve.pages import HOME, NotFound, Page, Table, url

# The drawn columns, each a cell of paper_cells (the JSON and CSV keep the memo's columns).
DRAWN = ("model", "level", "cell", "n", "agentic", "oneshot", "delta")


def page_paper(wh: ServeWarehouse, request: Request) -> Page:
    """/paper[?benchmark=..][&all=1]: the cells the paper prints, or every cell (all=1)."""
    wanted = request.query_params.get("benchmark") or None
    every = request.query_params.get("all") in ("1", "true", "on")
    rows = [r for r in wh.memo("paper")
            if (every or r["in_paper_table"]) and wanted in (None, r["benchmark"])]
    benchmarks = sorted({r["benchmark"] for r in wh.memo("paper")})
    if wanted is not None and wanted not in benchmarks:
        raise NotFound(f"no paper table for {wanted}",
                       [(b, url("/paper", benchmark=b, all="1" if every else None))
                        for b in benchmarks])
    tables = {}
    for benchmark in sorted({r["benchmark"] for r in rows}):
        table = Table.of([r for r in rows if r["benchmark"] == benchmark],
                         model=lambda r: url("/paper", benchmark=r["benchmark"], all=1))
        table.html_rows = None
        table.html_columns = list(DRAWN)
        table.headers = dict(zip(DRAWN, PAPER_HEADERS, strict=True))
        table.display = {column: (lambda r, i=i: paper_cells(r)[i])
                         for i, column in enumerate(DRAWN)}
        tables[benchmark] = table
    return Page("paper.html", "The paper's tables",
                [HOME, ("Paper tables", url("/paper"))], tables,
                {"benchmarks": benchmarks, "benchmark": wanted, "every": every})
