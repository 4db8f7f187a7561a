"""Words a reader trips on, checked in the explorer, the report's neighbours and the command
line alike: a run with fewer questions than its board said so in words (not a low_coverage
flag beside a coverage fraction), a board whose runs were scored by different scorers
marked, every scorer said in words with the leaderboard's one marked on a trajectory, the
prediction shown beside a prediction source the one that source scored, 'fixed' lineage
rows whose score went up, and no command-line option in a browser's error."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

from etl.glossary import SCORERS
from tests.conftest import run_etl
from tests.serving import get
from tests.serving import query_rows as _rows

pytest.importorskip("starlette")


def _usual(rows: list[dict]) -> str:
    """The scorer most runs of a board use (ties: first by name), written out here."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["score_source"]] = counts.get(r["score_source"], 0) + 1
    return sorted(counts, key=lambda s: (-counts[s], s))[0]


def test_cli_ranked_board_says_coverage_and_scorer_in_words(demo_db: Path) -> None:
    ranked = _rows(demo_db, "SELECT benchmark, mode, model, present, low_coverage, "
                            "score_source FROM leaderboard_ranked")
    out = run_etl("leaderboard", "--db", str(demo_db), "--board", "ranked",
                  "--format", "md").stdout
    lines = [[c.strip() for c in line.strip().strip("|").split("|")]
             for line in out.splitlines() if line.startswith("|")]
    header, body = lines[0], lines[2:]
    assert "low_coverage" not in header and "note" in header
    printed = {(r[header.index("benchmark")], r[header.index("mode")],
                r[header.index("model")]): r[header.index("note")] for r in body}
    notes = 0
    for (benchmark, mode) in {(r["benchmark"], r["mode"]) for r in ranked}:
        board = [r for r in ranked if (r["benchmark"], r["mode"]) == (benchmark, mode)]
        most, usual = max(r["present"] for r in board), _usual(board)
        for r in board:
            note = printed[(benchmark, mode, r["model"])]
            fewer = f"fewer questions ({r['present']} of {most})"
            assert (fewer in note) == bool(r["low_coverage"]), note
            other = f"other scorer: {r['score_source']} (board: {usual})"
            assert (other in note) == (r["score_source"] != usual), note
            notes += bool(r["low_coverage"]) + (r["score_source"] != usual)
    assert notes >= 2  # the demo plants both


def test_board_page_marks_a_board_of_mixed_scorers(server: str, demo_db: Path) -> None:
    boards = _rows(demo_db, "SELECT benchmark, mode, count(DISTINCT score_source) AS n "
                            "FROM leaderboard_ranked GROUP BY ALL")
    assert any(b["n"] > 1 for b in boards)
    for b in boards:
        page = get(f"{server}/board?{urlencode({'benchmark': b['benchmark'], 'mode': b['mode']})}"
                   )[2].decode()
        assert ('id="mixed-scorers"' in page) == (b["n"] > 1), b
        # the scorer in words, never only its key
        scorers = _rows(demo_db, "SELECT DISTINCT score_source FROM leaderboard_ranked WHERE "
                                 "benchmark = ? AND mode = ?", [b["benchmark"], b["mode"]])
        for s in scorers:
            assert SCORERS[s["score_source"]][0].replace("'", "&#39;") in page


def test_every_scorer_is_described_and_the_boards_one_marked(server: str,
                                                            demo_db: Path) -> None:
    scorers = {r["scorer"] for r in _rows(demo_db, "SELECT DISTINCT scorer FROM question_scores")}
    assert scorers <= set(SCORERS)  # no scorer the reader cannot look up
    row = _rows(demo_db, """
        SELECT r.run_id, r.qid, r.run_index, s.score_source FROM results r
        JOIN leaderboard_result_scores s USING (run_id, qid, run_index)
        WHERE EXISTS (SELECT 1 FROM question_scores q WHERE q.run_id = r.run_id
                      AND q.qid = r.qid AND q.run_index = r.run_index
                      AND q.scorer = 'authors_text_legacy')
        ORDER BY r.run_id, r.qid LIMIT 1""")[0]
    key = {"run": row["run_id"], "qid": row["qid"], "index": row["run_index"]}
    data = json.loads(get(f"{server}/trajectory?{urlencode(key)}&format=json")[2])
    by_scorer = {s["scorer"]: s for s in data["tables"]["scores"]}
    assert [k for k, s in by_scorer.items() if s["leaderboard"]] == [row["score_source"]]
    legacy = by_scorer["authors_text_legacy"]
    assert "never a leaderboard score" in legacy["what"]
    page = get(f"{server}/trajectory?{urlencode(key)}")[2].decode()
    assert "authors&#39; older text scorer (authors_text_legacy)" in page


def test_the_prediction_beside_a_prediction_source_is_the_one_it_scored(
        server: str, demo_db: Path) -> None:
    a, b = "ehr_bench/agentic/full1800/claude_opus_4_6", "ehr_bench/agentic/full1800/kimi_k2_5"
    scored = {(r["run_id"], r["qid"]): r["predictions"] for r in _rows(
        demo_db, "SELECT run_id, qid, predictions FROM question_scores WHERE scorer = "
                 "'authors_text' AND run_id IN (?, ?) AND run_index = 1", [a, b])}
    # the writer shapes the demo plants make the result's own prediction column NULL
    assert _rows(demo_db, "SELECT count(*) AS n FROM question_scores q JOIN results r "
                          "USING (run_id, qid, run_index) WHERE q.scorer = 'authors_text' "
                          "AND q.prediction_source = 'finish_tool_call' "
                          "AND r.prediction IS NULL")[0]["n"] > 0
    out = json.loads(run_etl("compare", a, b, "--db", str(demo_db), "--format",
                             "json").stdout)
    page = json.loads(get(f"{server}/compare?{urlencode({'a': a, 'b': b})}&format=json")[2])
    def items(text: str) -> list:
        # the answer as a list of items, as results() gives lists: text items as they are,
        # any other item as its JSON text
        return [i if isinstance(i, str) or i is None else json.dumps(i, separators=(",", ":"))
                for i in json.loads(text)]

    for rows in (out, page["tables"]["questions"]):
        for r in rows:
            for side, run in (("a", a), ("b", b)):
                if r[f"prediction_source_{side}"] is not None:
                    assert r[f"prediction_{side}"] == items(scored[(run, r["qid"])]), r


def test_lineage_fixed_means_the_score_went_up(demo_db: Path) -> None:
    rows = _rows(demo_db, "SELECT change, archived_status, current_status, archived_f1, "
                          "current_f1 FROM archive_diff WHERE change IN ('fixed', 'broke')")
    for r in rows:
        if r["change"] == "fixed":
            assert r["current_status"] == "success" and r["current_f1"] > r["archived_f1"]
        else:
            assert r["archived_status"] == "success" and r["current_f1"] < r["archived_f1"]
    # what the demo calls a fix that left the score at 0.0 is a change, not a fix
    same_score = _rows(demo_db, "SELECT count(*) AS n FROM archive_diff WHERE archived_status "
                                "<> 'success' AND current_status = 'success' AND "
                                "round(current_f1, 9) = round(archived_f1, 9)")[0]["n"]
    assert same_score > 0
    assert _rows(demo_db, "SELECT count(*) AS n FROM archive_diff WHERE change = 'changed' "
                          "AND archived_status <> 'success' AND current_status = 'success' "
                          "AND round(current_f1, 9) = round(archived_f1, 9)")[0]["n"] == (
        same_score)


def test_an_ambiguous_name_in_the_browser_offers_its_runs(server: str, demo_db: Path) -> None:
    pair = urlencode({"a": "kimi_k2_5", "b": "claude_opus_4_6"})
    status, _, body = get(f"{server}/compare?{pair}")
    page = body.decode()
    assert status == 400 and "--benchmark" not in page and "--mode" not in page
    runs = [r["run_id"] for r in _rows(demo_db, "SELECT run_id FROM leaderboard WHERE "
                                                "model = 'kimi_k2_5' ORDER BY run_id")]
    links = [line.split('href="')[1].split('"')[0].replace("&amp;", "&")
             for line in page.split("<li>")[1:] if 'href="/compare' in line]
    assert len(links) == len(runs)
    for link in links:  # each picks one run and its board, so B resolves too
        assert get(server + link)[0] == 200, link
    cli = run_etl("compare", "kimi_k2_5", "claude_opus_4_6", "--db", str(demo_db), check=False)
    assert cli.returncode == 1 and "name the benchmark and mode" in cli.stderr
