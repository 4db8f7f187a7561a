"""What keeps `etl serve` fast and small: long HTML tables drawn a page at a time, the
per-file temp copies of the score views (they must agree with the views), the resource
bounds of the server's connection (seen from its SQL page, which still refuses changes),
a clear message when the memory limit is too small, and the benchmark's verdict."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.conftest import run_etl
from tests.serving import get, post_sql, running_server
from tests.serving import query_rows as _rows

pytest.importorskip("starlette")

from etl.serve import bench  # noqa: E402 - needs the serve extra

ROW_RE = re.compile(r"<tr><td class=\"num\"><span>(\d+)</span></td></tr>")




def _link(html: str, cls: str) -> str | None:
    match = re.search(rf'<a href="([^"]+)" class="{cls}"', html)
    return match.group(1).replace("&amp;", "&") if match else None


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(server, run_id) of a warehouse whose one run answers 450 questions."""
    from tests.wide_tree import write_wide_tree

    base = tmp_path_factory.mktemp("long")
    write_wide_tree(base / "tree", n_runs=1, n_questions=450)
    run_etl("ingest", str(base / "tree"), "--db", str(base / "w.duckdb"), "--quiet")
    with running_server(base / "w.duckdb") as server:
        yield server, "ehr_bench/oneshot/full1800/model_00000"


QID_RE = re.compile(r'<tr><td[^>]*><a href="/question[^"]*"[^>]*>([^<]+)</a>')


def test_a_long_table_is_drawn_200_rows_a_page_with_links(long_run: tuple[str, str]) -> None:
    server, run = long_run
    page = f"{server}/questions?{urlencode({'run': run})}"
    every = [r["qid"] for r in json.loads(get(page + "&format=json")[2])["tables"]["questions"]]
    assert len(every) == 450
    first = get(page)[2].decode()
    assert QID_RE.findall(first) == every[:200]
    assert "Rows 1–200 of 450" in first and _link(first, "prev-rows") is None
    second_url = _link(first, "next-rows")
    assert second_url is not None and "start_questions=200" in second_url
    second = get(server + second_url)[2].decode()
    assert QID_RE.findall(second) == every[200:400]
    third = get(server + _link(second, "next-rows"))[2].decode()
    assert QID_RE.findall(third) == every[400:]
    assert _link(third, "next-rows") is None and "Rows 401–450 of 450" in third
    assert "start_questions=200" in _link(third, "prev-rows")
    # Past the end: the last page; not a number: the first. JSON and CSV hold every row.
    past = get(f"{page}&start_questions=9999")[2].decode()
    assert QID_RE.findall(past) == every[400:]
    junk = get(f"{page}&start_questions=x")[2].decode()
    assert QID_RE.findall(junk) == every[:200]
    csv_body = get(page + "&format=csv")[2].decode()
    assert len(csv_body.splitlines()) == 451


def test_a_query_result_is_drawn_whole_and_a_short_table_has_no_pager(server: str) -> None:
    # A result of the SQL page is a POST: every fetched row is drawn (no GET links to page).
    sql = "SELECT n FROM range(450) AS t(n) ORDER BY n"
    page = post_sql(server, sql)[1].decode()
    assert [int(n) for n in ROW_RE.findall(page)] == list(range(450))
    assert "next-rows" not in page
    data = json.loads(post_sql(server, sql, "json")[1])
    assert [r["n"] for r in data["tables"]["statement_1"]] == list(range(450))
    assert post_sql(server, sql, "csv")[1].decode().split() == ["n", *map(str, range(450))]
    page = post_sql(server, "SELECT n FROM range(200) AS t(n)")[1]
    assert len(ROW_RE.findall(page.decode())) == 200 and b"next-rows" not in page


def test_score_copies_agree_with_the_views(server: str, demo_db: Path) -> None:
    # The server reads temp copies of leaderboard_result_scores / leaderboard_question_scores;
    # what it shows must be what the views say on a connection without them.
    results = _rows(demo_db, """
        SELECT r.run_id, r.qid, r.run_index, s.score, s.score_source
        FROM results AS r
        LEFT JOIN leaderboard_result_scores AS s USING (run_id, qid, run_index)
        ORDER BY hash(r.run_id || r.qid) LIMIT 12""")
    assert any(r["score"] is not None for r in results)
    for r in results:
        key = {"run": r["run_id"], "qid": r["qid"], "index": r["run_index"]}
        shown = json.loads(get(f"{server}/trajectory?{urlencode(key)}&format=json")[2])
        assert shown["result"]["leaderboard_score"] == r["score"], key
        assert shown["result"]["score_source"] == r["score_source"], key
    run = _rows(demo_db, "SELECT run_id FROM leaderboard_runs ORDER BY run_id LIMIT 1")[0]
    expected = {q["qid"]: q["score"] for q in _rows(
        demo_db, "SELECT qid, score FROM leaderboard_question_scores WHERE run_id = ?",
        [run["run_id"]])}
    shown = json.loads(get(f"{server}/questions?{urlencode({'run': run['run_id']})}"
                           "&format=json")[2])["tables"]["questions"]
    assert expected and {q["qid"]: q["score"] for q in shown} == expected


def test_the_connection_bounds_hold_and_the_sql_page_still_refuses(demo_db: Path,
                                                                    tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    with running_server(db, {"memory_limit": "200MB", "threads": 1}) as base:
        sql = ("SELECT current_setting('memory_limit') AS memory, "
               "current_setting('threads') AS threads, "
               "(SELECT count(*) FROM duckdb_tables() WHERE temporary) AS temp_tables")
        # The SQL page runs in a process of its own: it does not show settings, and the
        # server's connection (and its score copies) are not its.
        status, body = post_sql(base, sql, "json")
        assert status == 400 and "settings" in json.loads(body)["error"]
        data = json.loads(post_sql(base, "SELECT count(*) AS temp_tables FROM duckdb_tables() "
                                         "WHERE temporary", "json")[1])
        assert data["tables"]["statement_1"] == [{"temp_tables": 0}]
        from tests.serving import server_app

        live = server_app(base).state.live
        with live.use() as wh:
            memory, threads = wh.con.execute("SELECT current_setting('memory_limit'), "
                                             "current_setting('threads')").fetchone()
        # 200 MB = 200,000,000 bytes, which DuckDB shows in MiB.
        assert memory == f"{200e6 / 2**20:.1f} MiB" and threads == 1
        for refused in ("SET memory_limit = '10GB'", "CREATE TABLE t AS SELECT 1"):
            status, body = post_sql(base, refused, "json")
            assert status == 400 and json.loads(body)["error"].startswith("refused"), refused
        assert get(f"{base}/trajectory?" + urlencode(_some_result(base)))[0] == 200


def _some_result(base: str) -> dict:
    data = json.loads(post_sql(base, "SELECT run_id, qid, run_index FROM results "
                                     "ORDER BY ALL LIMIT 1", "json")[1])
    row = data["tables"]["statement_1"][0]
    return {"run": row["run_id"], "qid": row["qid"], "index": row["run_index"]}


def test_a_too_small_memory_limit_says_so(demo_db: Path, tmp_path: Path) -> None:
    proc = run_etl("serve", "--db", str(demo_db), "--memory-limit", "1MB", "--port", "0",
                   check=False, timeout=120)
    assert proc.returncode == 1
    assert "memory limit (1MB) is too small" in proc.stderr and "--memory-limit" in proc.stderr
    assert "Traceback" not in proc.stderr
    bad = run_etl("serve", "--db", str(demo_db), "--memory-limit", "lots", check=False,
                  timeout=60)
    assert bad.returncode == 1 and "Memory must have a number" in bad.stderr
    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    with running_server(db, {"memory_limit": "1MB", "threads": 1}) as base:
        status, _, body = get(f"{base}/?format=json")
        assert status == 503 and "--memory-limit" in json.loads(body)["error"]


def _report(p95: dict[str, float], rss: float) -> dict:
    return {"db": "w.duckdb", "db_mb": 1.0, "peak_rss_mb": rss, "pages": {
        kind: {"n": 3, "p50_ms": v / 2, "p95_ms": v, "max_ms": v, "max_kb": 1.0}
        for kind, v in p95.items()}}


def test_the_bench_verdict_names_every_missed_target() -> None:
    met = _report({"home": 12.0, "trajectory": 299.9}, 499.0)
    assert bench.missed(met) == []
    assert bench.format_report(met).endswith("every target met")
    bad = _report({"home": 12.0, "trajectory": 300.0, "compare": 1781.0}, 1016.0)
    assert bench.missed(bad) == ["trajectory: p95 300 ms, target under 300 ms",
                                 "compare: p95 1781 ms, target under 300 ms",
                                 "server peak RSS 1016 MB, target under 500 MB"]
    lines = bench.format_report(bad).splitlines()
    assert next(x for x in lines if x.startswith("home")).endswith("ok")
    assert next(x for x in lines if x.startswith("compare")).endswith("MISSED")
    assert lines[-1].startswith("MISSED 3 target(s)")
    assert bench.missed(_report({"home": 1.0}, math.nan)) != []  # no RSS reading
    # search has a target of its own: 500 ms
    assert bench.missed(_report({"search": 499.0}, 100.0)) == []
    assert bench.missed(_report({"search": 500.0}, 100.0)) == [
        "search: p95 500 ms, target under 500 ms"]
    failed = {**met, "failures": {"sql": ["/sql?q=x: HTTP Error 503: Service Unavailable"]}}
    assert bench.missed(failed) == [
        "sql: 1 failed request(s), first /sql?q=x: HTTP Error 503: Service Unavailable"]


def test_the_bench_runs_on_a_warehouse_and_exits_by_its_verdict(demo_db: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "etl.cli.serve_bench", "--db", str(demo_db),
                           "--per-type", "1", "--repeats", "1"], capture_output=True,
                          text=True, timeout=300)
    out = proc.stdout
    for kind in ("home", "board", "heatmap", "failures", "questions", "question", "trajectory",
                 "trajectory_largest", "message_page", "compare", "search", "diff", "lineage",
                 "rejects", "sql"):
        assert re.search(rf"^{kind} +\d+ ", out, re.M), (kind, out, proc.stderr[-3000:])
    assert "load average" in out and "server peak RSS" in out
    assert proc.returncode == (1 if "MISSED" in out else 0), out + proc.stderr
