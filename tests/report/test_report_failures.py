"""The report's section "Why runs fail": every board with labels, each run's points lost per
label as failure_profile states them, each run's cost and frontier as efficiency_frontier
states it, and the labels in words."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from etl.report import load_report_data, render_report


def test_the_section_states_the_views_numbers(demo_db: Path) -> None:
    page = render_report(load_report_data(demo_db))
    section = page[page.index('<section id="failures">'):]
    section = section[:section.index("</section>")]
    with duckdb.connect(str(demo_db), read_only=True) as con:
        boards = con.execute("SELECT DISTINCT benchmark, mode FROM failure_profile").fetchall()
        points = con.execute("SELECT points_lost, share FROM failure_profile WHERE all_tasks"
                             ).fetchall()
        frontier = con.execute("SELECT count(*) FROM efficiency_frontier WHERE on_frontier"
                               ).fetchone()[0]
        titles = [t for t, in con.execute("SELECT title FROM failures").fetchall()]
    assert len(re.findall(r"<h3>", section)) == len(boards)
    cells = re.findall(r'<td class="num">([0-9.]+) <small>\((\d+)%\)</small></td>', section)
    assert sorted(cells) == sorted((f"{p:.1f}", f"{100 * s:.0f}") for p, s in points)
    assert section.count("<td>✓</td>") == frontier
    assert all(t in section for t in titles)
