"""`etl serve` over HTTP: every page as HTML, JSON and CSV against the database, long tool
results paged rather than loaded whole, the SQL box behind `etl query`'s gate, the security
headers, and a server that follows an ingest renaming a new file over the database."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

import duckdb
import pytest

from tests.conftest import run_etl
from tests.serving import get, post_sql, running_server
from tests.serving import query_rows as _rows

pytest.importorskip("starlette")




def test_board_json_and_csv_match_leaderboard_ranked(server: str, demo_db: Path) -> None:
    expected = _rows(demo_db, "SELECT run_id, score, rank_group, coverage FROM "
                              "leaderboard_ranked WHERE benchmark = 'ehr_bench' AND "
                              "mode = 'agentic'")
    status, headers, body = get(f"{server}/board?benchmark=ehr_bench&mode=agentic&format=json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    shown = {r["run_id"]: r for r in json.loads(body)["tables"]["board"]}
    assert set(shown) == {r["run_id"] for r in expected} and len(expected) >= 5
    for row in expected:
        assert shown[row["run_id"]]["score"] == pytest.approx(row["score"])
        assert shown[row["run_id"]]["rank_group"] == row["rank_group"]
    status, headers, body = get(f"{server}/board?benchmark=ehr_bench&mode=agentic&format=csv")
    assert status == 200 and headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(body.decode())))
    assert {r["run_id"] for r in table} == set(shown)
    assert all(float(r["score"]) == pytest.approx(shown[r["run_id"]]["score"]) for r in table)


def test_board_shared_questions_and_chosen_scorer(server: str, demo_db: Path) -> None:
    common = _rows(demo_db, "SELECT run_id, n_questions, score FROM leaderboard_common "
                            "WHERE benchmark = 'ehr_bench' AND mode = 'agentic'")
    body = get(f"{server}/board?benchmark=ehr_bench&mode=agentic&shared=1&format=json")[2]
    shown = {r["run_id"]: r for r in json.loads(body)["tables"]["board"]}
    for row in common:
        assert shown[row["run_id"]]["n_questions"] == row["n_questions"]
    # set_f1 on a text board: the mean over questions of the mean f1 over attempts, with
    # error / incomplete attempts 0, recomputed here from question_scores and results.
    rows = _rows(demo_db, """
        SELECT q.run_id, q.qid, q.run_index, q.f1, r.status
        FROM question_scores q JOIN results r USING (run_id, qid, run_index)
        JOIN leaderboard l ON l.run_id = q.run_id
        WHERE q.scorer = 'set_f1' AND l.benchmark = 'ehr_bench' AND l.mode = 'agentic'""")
    per_question: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        value = 0.0 if r["status"] in ("error", "incomplete") else (r["f1"] or 0.0)
        per_question.setdefault((r["run_id"], r["qid"]), []).append(value)
    per_run: dict[str, list[float]] = {}
    for (run_id, _), values in per_question.items():
        per_run.setdefault(run_id, []).append(sum(values) / len(values))
    body = get(f"{server}/board?benchmark=ehr_bench&mode=agentic&scorer=set_f1&format=json")[2]
    shown = {r["run_id"]: r for r in json.loads(body)["tables"]["board"]}
    assert set(shown) == set(per_run)
    for run_id, values in per_run.items():
        assert shown[run_id]["score"] == pytest.approx(sum(values) / len(values))
        assert shown[run_id]["n_questions"] == len(values)
    assert get(f"{server}/board?benchmark=ehr_bench&mode=agentic&scorer=nope")[0] == 404


def _long_tool_message(db: Path) -> dict:
    return _rows(db, "SELECT run_id, qid, run_index, msg_idx FROM messages "
                     "WHERE role = 'tool' ORDER BY run_id, qid, msg_idx LIMIT 1")[0]


def test_a_100k_tool_result_is_paged_not_loaded_whole(demo_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    target = _long_tool_message(db)
    text = "".join(f"[{i:06d}]" for i in range(12_500)) + "THE-END"  # 100,007 chars
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE messages SET content = ?, content_chars = ? WHERE run_id = ? "
                    "AND qid = ? AND run_index = ? AND msg_idx = ?",
                    [text, len(text), target["run_id"], target["qid"], target["run_index"],
                     target["msg_idx"]])
    key = {"run": target["run_id"], "qid": target["qid"], "index": target["run_index"]}
    with running_server(db) as base:
        status, _, body = get(f"{base}/trajectory?{urlencode(key)}")
        page = body.decode()
        assert status == 200
        assert "[000000]" in page and "[001249]" in page  # the first 10,000 characters
        assert "[001250]" not in page and "THE-END" not in page
        assert len(body) < 60_000
        # The last page holds the end; page n starts at character n * 10,000.
        last = f"{base}/message?{urlencode({**key, 'msg': target['msg_idx'], 'page': 10})}"
        data = json.loads(get(last + "&format=json")[2])
        assert data["n_pages"] == 11 and data["message"]["text"] == text[100_000:]
        third = json.loads(get(last.replace("page=10", "page=2") + "&format=json")[2])
        assert third["message"]["text"] == text[20_000:30_000]
        assert get(last.replace("page=10", "page=11"))[0] == 404


def test_trajectory_json_matches_the_tables(server: str, demo_db: Path) -> None:
    row = _rows(demo_db, "SELECT run_id, qid, run_index, prediction, gold, n_tool_calls "
                         "FROM results WHERE n_tool_calls > 2 ORDER BY run_id, qid LIMIT 1")[0]
    key = {"run": row["run_id"], "qid": row["qid"], "index": row["run_index"]}
    data = json.loads(get(f"{server}/trajectory?{urlencode(key)}&format=json")[2])
    assert data["result"]["prediction"] == row["prediction"]
    assert data["result"]["gold"] == row["gold"]
    calls = _rows(demo_db, "SELECT tool, is_error FROM tool_calls WHERE run_id = ? AND qid = ? "
                           "AND run_index = ? ORDER BY msg_idx, call_idx",
                  [row["run_id"], row["qid"], row["run_index"]])
    assert [(c["tool"], c["is_error"]) for c in data["tables"]["tool_calls"]] == [
        (c["tool"], c["is_error"]) for c in calls]
    scorers = _rows(demo_db, "SELECT scorer FROM question_scores WHERE run_id = ? AND qid = ? "
                             "AND run_index = ? ORDER BY scorer",
                    [row["run_id"], row["qid"], row["run_index"]])
    assert [s["scorer"] for s in data["tables"]["scores"]] == [s["scorer"] for s in scorers]


def test_every_page_answers_in_three_formats(server: str, demo_db: Path) -> None:
    run = _rows(demo_db, "SELECT run_id, task FROM leaderboard_by_task LIMIT 1")[0]
    archived = _rows(demo_db, "SELECT archived_run_id FROM archive_lineage LIMIT 1")[0]
    pages = ["/", "/board?benchmark=ehr_bench&mode=oneshot",
             "/heatmap?benchmark=ehr_bench&mode=oneshot",
             f"/questions?{urlencode({'run': run['run_id'], 'task': run['task']})}",
             "/lineage", f"/lineage/diff?{urlencode({'archived': archived['archived_run_id']})}",
             "/rejects", "/compare?benchmark=ehr_bench&mode=agentic&a=claude_opus_4_6&b=kimi_k2_5"]
    for path in pages:
        joiner = "&" if "?" in path else "?"
        status, headers, body = get(server + path)
        assert status == 200, path
        assert "text/html" in headers["content-type"]
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "default-src 'self'" in headers["content-security-policy"]
        assert b"<script>" not in body and b"style=" not in body
        assert get(server + path + joiner + "format=json")[0] == 200, path
        assert get(server + path + joiner + "format=csv")[0] == 200, path
    # The SQL page runs a query posted from it, in the same three formats.
    for fmt in ("html", "json", "csv"):
        status, body = post_sql(server, "SELECT 1 AS one", fmt)
        assert status == 200 and b"one" in body, fmt


def test_rejects_page_lists_every_reject(server: str, demo_db: Path) -> None:
    expected = _rows(demo_db, "SELECT path, line_no, error FROM rejects")
    data = json.loads(get(f"{server}/rejects?format=json")[2])
    assert sorted((r["path"], r["line_no"] or -1, r["error"]) for r in data["tables"]["rejects"]
                  ) == sorted((r["path"], r["line_no"] or -1, r["error"]) for r in expected)
    assert expected


def test_sql_box_uses_the_gate_of_etl_query(server: str, demo_db: Path) -> None:
    data = json.loads(post_sql(server, "SELECT 6 * 7 AS answer", "json")[1])
    assert data["tables"]["statement_1"] == [{"answer": 42}]
    for sql in ("COPY results TO 'x.csv'", "ATTACH 'other.duckdb'", "SET threads = 1",
                "CREATE TABLE t AS SELECT 1"):
        status, body = post_sql(server, sql, "json")
        cli = run_etl("query", "--db", str(demo_db), sql, check=False)
        assert status == 400 and cli.returncode == 2, sql
        assert json.loads(body)["error"] == cli.stderr.strip().removeprefix("etl query: ")
    # Reading a file is refused by both (the page before DuckDB is asked).
    sql = "SELECT * FROM read_csv('/etc/passwd')"
    status, body = post_sql(server, sql, "json")
    assert status == 400 and json.loads(body)["error"].startswith("refused")
    assert run_etl("query", "--db", str(demo_db), sql, check=False).returncode == 2


def test_follows_an_ingest_that_renames_a_new_file_over_the_db(demo_db: Path,
                                                                 tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    url = "/board?benchmark=ehr_bench&mode=agentic&format=json"
    with running_server(db) as base:
        before = json.loads(get(base + url)[2])["tables"]["board"]
        model = before[0]["model"]
        fresh = tmp_path / "w.duckdb.tmp-new"
        shutil.copy(demo_db, fresh)
        with duckdb.connect(str(fresh)) as con:
            con.execute("UPDATE models SET display_name = 'Renamed Model' WHERE model = ?",
                        [model])
        os.replace(fresh, db)  # what the ingest's publish step does
        after = json.loads(get(base + url)[2])["tables"]["board"]
        names = {r["model"]: r["display_name"] for r in after}
        assert names[model] == "Renamed Model"
        assert {r["model"]: r["display_name"] for r in before}[model] != "Renamed Model"


def test_serve_refuses_a_missing_database(tmp_path: Path) -> None:
    proc = run_etl("serve", "--db", str(tmp_path / "nope.duckdb"), check=False)
    assert proc.returncode != 0 and "database not found" in proc.stderr


# A 1x1 PNG, written out byte by byte (signature, IHDR, IDAT, IEND).
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a5f6d1b6"
    "0000000049454e44ae426082")


def test_kept_images_are_served_and_only_safe_types(demo_db: Path, tmp_path: Path) -> None:
    import base64

    db = tmp_path / "w.duckdb"
    shutil.copy(demo_db, db)
    rows = _rows(db, "SELECT run_id, qid, run_index, msg_idx, block_idx FROM images "
                     "ORDER BY ALL LIMIT 2")
    assert len(rows) == 2
    png, svg = rows
    with duckdb.connect(str(db)) as con:
        for row, media, data in ((png, "image/png", base64.b64encode(PNG).decode()),
                                 (svg, "image/svg+xml", base64.b64encode(
                                     b"<svg onload='alert(1)'/>").decode())):
            con.execute("UPDATE images SET media_type = ?, data = ? WHERE run_id = ? AND "
                        "qid = ? AND run_index = ? AND msg_idx = ? AND block_idx = ?",
                        [media, data, row["run_id"], row["qid"], row["run_index"],
                         row["msg_idx"], row["block_idx"]])
    with running_server(db) as base:
        key = {"run": png["run_id"], "qid": png["qid"], "index": png["run_index"]}
        page = get(f"{base}/trajectory?{urlencode(key)}")[2].decode()
        src = "/image?" + urlencode({**key, "msg": png["msg_idx"], "block": png["block_idx"]})
        assert f'src="{src.replace("&", "&amp;")}"' in page
        status, headers, body = get(base + src)
        assert status == 200 and headers["content-type"] == "image/png" and body == PNG
        bad = "/image?" + urlencode({"run": svg["run_id"], "qid": svg["qid"],
                                     "index": svg["run_index"], "msg": svg["msg_idx"],
                                     "block": svg["block_idx"]})
        assert get(base + bad)[0] == 404
