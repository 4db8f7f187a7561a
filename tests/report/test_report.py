"""`etl report`: the HTML page carries the database's numbers in its charts, references
nothing outside itself, escapes names from the data, and renders in headless Chromium with
the expected charts and no console message (screenshot kept under build/test-artifacts/)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import warnings
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from etl.cli import cli
from etl.schema import PROJECT_DIR
from etl.views import apply_schema, apply_views
from tests.conftest import run_etl
from tests.html_pages import Elements, parse
from tests.html_pages import close_to as _close
from tests.html_pages import warehouse_rows as _rows
from tests.waiting import SAFETY_SECONDS

ARTIFACTS = PROJECT_DIR / "build" / "test-artifacts"
WINDOW = (1400, 2000)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


class ArtifactNotice(UserWarning):
    """Where a test left a file for people to look at."""


@pytest.fixture(scope="module")
def report(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("report") / "report.html"
    proc = run_etl("report", "--db", str(demo_db), "--out", str(out))
    page = out.read_text(encoding="utf-8")
    return {"path": out, "page": page, "doc": parse(page), "stdout": proc.stdout}


def test_page_is_self_contained(report: dict[str, Any]) -> None:
    doc: Elements = report["doc"]
    tags = Counter(tag for tag, _ in doc.tags)
    assert tags["script"] == 0 and tags["link"] == 0 and tags["iframe"] == 0
    for tag, attributes in doc.tags:
        for name in ("src", "href", "xlink:href", "action"):
            value = attributes.get(name)
            assert value is None or value.startswith(("#", "data:")), (tag, name, value)
    csp = [a for t, a in doc.tags if t == "meta"
           and (a.get("http-equiv") or "").lower() == "content-security-policy"]
    assert csp and "default-src 'none'" in (csp[0]["content"] or "")
    assert "url(http" not in report["page"] and "@import" not in report["page"]


def test_leaderboard_charts_show_the_database_numbers(report: dict[str, Any],
                                                      demo_db: Path) -> None:
    doc: Elements = report["doc"]
    want = _rows(demo_db, "SELECT l.benchmark, l.mode, l.model, l.score, "
                          "l.ci_naive_low AS ci_low, l.ci_naive_high AS ci_high, "
                          "c.ci_low AS clustered_low, c.ci_high AS clustered_high "
                          "FROM leaderboard AS l JOIN leaderboard_clustered AS c USING (run_id)")
    assert want, "the demo warehouse should have a leaderboard"
    boards = {(r["benchmark"], r["mode"]) for r in want}
    chart_ids = doc.svg_ids("leaderboard-chart")
    assert len(chart_ids) == len(boards) == len(set(chart_ids))
    bars = doc.classed("bar")
    assert len(bars) == len(want)
    by_chart: dict[str, dict[str, dict[str, str | None]]] = {}
    for svg, attributes in bars:
        by_chart.setdefault(svg, {})[attributes["data-model"] or ""] = attributes
    for (benchmark, mode) in boards:
        chart = f"leaderboard-{benchmark.replace('_', '-')}-{mode}"
        rows = [r for r in want if (r["benchmark"], r["mode"]) == (benchmark, mode)]
        assert set(by_chart[chart]) == {r["model"] for r in rows}, chart
        for row in rows:
            bar = by_chart[chart][row["model"]]
            assert _close(bar["data-score"], row["score"]), (chart, row)
            # the whisker: the interval clustered by patient; the naive one beside it
            assert _close(bar["data-ci-low"], row["clustered_low"]), (chart, row)
            assert _close(bar["data-ci-high"], row["clustered_high"]), (chart, row)
            assert _close(bar["data-ci-naive-low"], row["ci_low"]), (chart, row)
            assert _close(bar["data-ci-naive-high"], row["ci_high"]), (chart, row)
            # The drawn length is the score on a 0..1 axis.
            assert float(bar["width"] or 0) == pytest.approx(row["score"] * 400, abs=0.06)


def test_heatmap_cells_and_mode_deltas(report: dict[str, Any], demo_db: Path) -> None:
    doc: Elements = report["doc"]
    by_task = _rows(demo_db, "SELECT benchmark, mode, model, task, score "
                             "FROM leaderboard_by_task")
    cells: dict[tuple[str, str, str], str | None] = {}
    for svg, attributes in doc.classed("cell"):
        cells[(svg, attributes["data-model"] or "", attributes["data-task"] or "")] = \
            attributes["data-score"]
    grids: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for row in by_task:
        models, tasks = grids.setdefault((row["benchmark"], row["mode"]), (set(), set()))
        models.add(row["model"])
        tasks.add(row["task"])
        chart = f"heatmap-{row['benchmark'].replace('_', '-')}-{row['mode']}"
        assert _close(cells[(chart, row["model"], row["task"])], row["score"]), row
    # A full grid per benchmark and mode: a missing (model, task) is an empty cell.
    assert len(cells) == sum(len(m) * len(t) for m, t in grids.values())
    deltas = _rows(demo_db, "SELECT benchmark, model, delta FROM mode_delta "
                            "WHERE task_group = 'overall' AND delta IS NOT NULL")
    assert deltas, "the demo warehouse should have models run in both modes"
    drawn = {(svg, a["data-model"]): a["data-delta"] for svg, a in doc.classed("delta-bar")}
    assert len(drawn) == len(deltas)
    for row in deltas:
        chart = f"delta-{row['benchmark'].replace('_', '-')}"
        assert _close(drawn[(chart, row["model"])], row["delta"]), row


def _table_rows(page: str, css_class: str) -> int:
    start = page.index(f'class="warning-table {css_class}"')
    end = page.index("</table>", start)
    return page.count("<tr>", start, end) - 1  # minus the header row


def test_coverage_and_reconciliation_warnings(report: dict[str, Any], demo_db: Path) -> None:
    coverage = _rows(demo_db, "SELECT * FROM coverage")
    incomplete = [r for r in coverage if not r["is_archived"]
                  and ((r["missing"] or 0) > 0 or r["errors"] > 0 or r["incomplete"] > 0)]
    assert incomplete, "the demo tree plants incomplete runs"
    assert _table_rows(report["page"], "coverage-warnings") == len(incomplete)
    for row in incomplete:
        assert f"<td>{row['run_id']}</td>" in report["page"]
    recon = _rows(demo_db, "SELECT run_id, scoring, status FROM summary_reconciliation")
    flagged = {(r["run_id"], r["scoring"], r["status"]) for r in recon
               if r["status"] in ("mismatch", "damaged_source")}
    assert flagged, "the demo tree plants summary disagreements"
    assert _table_rows(report["page"], "reconciliation-warnings") == len(flagged)


HOSTILE_MODEL = "<script>alert('x')</script> & \"quoted\""
HOSTILE_BENCH = "bench <b>bold</b>"


def _tiny_warehouse(path: Path) -> None:
    """Two runs whose names carry markup, built straight from schema/ and sql/."""
    con = duckdb.connect(str(path))
    apply_schema(con)
    for mode, score in (("agentic", 0.75), ("oneshot", 0.25)):
        run_id = f"{HOSTILE_BENCH}/{mode}/full1800/{HOSTILE_MODEL}"
        con.execute("INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived, "
                    "expected_questions) VALUES (?, ?, ?, 'full1800', ?, false, 2)",
                    [run_id, HOSTILE_BENCH, mode, HOSTILE_MODEL])
        for qid in ("q1", "q2"):
            con.execute("INSERT INTO results (run_id, benchmark, mode, split, model, task, "
                        "task_group, qid, run_index, status) VALUES (?, ?, ?, 'full1800', ?, "
                        "'labevents', 'decision_making', ?, 1, 'success')",
                        [run_id, HOSTILE_BENCH, mode, HOSTILE_MODEL, qid])
            # authors_text: the scorer of text benchmarks' leaderboard numbers
            con.execute("INSERT INTO question_scores (run_id, qid, run_index, scorer, f1) "
                        "VALUES (?, ?, 1, 'authors_text', ?)", [run_id, qid, score])
    apply_views(con)
    con.close()


def test_names_from_the_data_are_escaped(tmp_path: Path) -> None:
    db, out = tmp_path / "w.duckdb", tmp_path / "r.html"
    _tiny_warehouse(db)
    result = CliRunner().invoke(cli, ["report", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "<script" not in page and "<b>bold" not in page
    doc = parse(page)
    assert HOSTILE_MODEL in "".join(doc.text)
    assert {a["data-model"] for _, a in doc.classed("bar")} == {HOSTILE_MODEL}
    assert [float(a["data-delta"] or "nan") for _, a in doc.classed("delta-bar")] == [0.5]
    ids = [a["id"] or "" for _, a in doc.tags if a.get("id")]
    assert len(ids) == len(set(ids))
    assert all(set(i) <= set("abcdefghijklmnopqrstuvwxyz0123456789-") for i in ids), ids


def test_clear_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli, ["report", "--db", str(tmp_path / "none.duckdb"),
                                  "--out", str(tmp_path / "r.html")])
    # the opener's refusal, exit 2 as with every reader (tests/cli/test_cli_layering.py)
    assert missing.exit_code == 2 and "not found" in missing.output
    bare = tmp_path / "bare.duckdb"
    con = duckdb.connect(str(bare))
    apply_schema(con)
    con.close()
    no_views = runner.invoke(cli, ["report", "--db", str(bare), "--out", str(tmp_path / "r.html")])
    assert no_views.exit_code == 1
    assert "lacks a view" in no_views.output and "Traceback" not in no_views.output
    assert not (tmp_path / "r.html").exists()


# ---------------------------------------------------------------- in a real browser


def _chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; .ci/run installs Debian's chromium package")
    pytest.skip("chromium not installed (apt-get install chromium); it is required under CI")


def _run_chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--enable-logging=stderr", "--v=0", *extra, page.resolve().as_uri(),
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=SAFETY_SECONDS)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def console_messages(stderr: str) -> list[str]:
    """Console output and uncaught errors Chromium logged for the page."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def _png_pixels_vary(png: bytes) -> tuple[int, int, int]:
    """(width, height, distinct byte values of the decoded image data)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    offset, idat = 8, b""
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        if kind == b"IDAT":
            idat += png[offset + 8:offset + 8 + length]
        offset += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def test_console_check_catches_a_broken_page(tmp_path: Path) -> None:
    # The check below would be worthless if Chromium's console went unread: a page that
    # throws and fetches from the network must be caught.
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                    "content=\"default-src 'none'\"></head><body>"
                    '<img src="https://example.invalid/x.png">'
                    '<script>throw new Error("planted")</script></body></html>')
    proc = _run_chromium(page, tmp_path / "profile", "--dump-dom")
    assert console_messages(proc.stderr)


def test_report_renders_in_headless_chromium(report: dict[str, Any], tmp_path: Path) -> None:
    page: Path = report["path"]
    dom_run = _run_chromium(page, tmp_path / "profile", "--dump-dom")
    assert console_messages(dom_run.stderr) == []
    dom = parse(dom_run.stdout)
    expected = report["doc"]
    for css_class in ("leaderboard-chart", "heatmap", "delta-chart"):
        rendered = dom.svg_ids(css_class)
        assert rendered and rendered == expected.svg_ids(css_class), css_class
    assert len(dom.classed("bar")) == len(expected.classed("bar"))
    assert len(dom.classed("cell")) == len(expected.classed("cell"))

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "report-screenshot.png"
    screenshot.unlink(missing_ok=True)
    shot_run = _run_chromium(page, tmp_path / "profile2", f"--screenshot={screenshot}")
    assert console_messages(shot_run.stderr) == []
    width, height, distinct = _png_pixels_vary(screenshot.read_bytes())
    assert (width, height) == WINDOW
    assert distinct > 64, "the screenshot looks blank"
    # A warning, so the path shows in the summary of a normal (captured) pytest run in CI.
    warnings.warn(ArtifactNotice(f"report screenshot: {screenshot}"), stacklevel=1)
