"""Phrase search (etl/search.py, sql/queries/search.sql) against a plain scan written here:
every message text and call argument of the warehouse read in Python and searched with
Python's own case-insensitive matching. Hypothesis plants generated phrases (regular
expression and LIKE metacharacters, accents, CJK, emoji, newlines) at generated places of
generated texts and checks that the search finds exactly the texts that hold them, at the
right character. The command line, the API and the /search page give the same matches."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.api import Warehouse, query_text
from etl.schema import create_schema
from etl.search import SearchError, SearchQuery, run_search
from tests.budgets import examples
from tests.conftest import run_etl
from tests.serving import get, running_server
from tests.serving import query_rows as _rows

SQL = {"runs": query_text("search_runs"), "search": query_text("search")}


def scan(db: Path, phrase: str, match_case: bool = False, where: str = "",
         params: list[Any] | None = None) -> list[tuple]:
    """The oracle: (run_id, qid, run_index, msg_idx, call_idx, field, match_at) of every
    match in the current runs, found by Python over texts read whole from the tables."""
    flags = 0 if match_case else re.IGNORECASE
    pattern = re.compile(re.escape(phrase.strip()), flags)
    found = []
    texts = _rows(db, f"""
        SELECT m.run_id, m.qid, m.run_index, m.msg_idx, m.role, m.content, m.reasoning,
               r.benchmark, r.mode, r.model, r.task
        FROM messages m JOIN results r USING (run_id, qid, run_index)
        JOIN runs u ON u.run_id = m.run_id
        WHERE NOT coalesce(u.is_archived, false) {where}""", params)
    for t in texts:
        for field in ("content", "reasoning"):
            hit = pattern.search(t[field] or "")
            if hit:
                found.append((t["run_id"], t["qid"], t["run_index"], t["msg_idx"], None,
                              field, hit.start()))
                break  # a message is listed once, for the first field that holds it
    calls = _rows(db, f"""
        SELECT m.run_id, m.qid, m.run_index, m.msg_idx, m.call_idx, m.arguments,
               'assistant' AS role, r.benchmark, r.mode, r.model, r.task
        FROM tool_calls m JOIN results r USING (run_id, qid, run_index)
        JOIN runs u ON u.run_id = m.run_id
        WHERE NOT coalesce(u.is_archived, false) {where}""", params)
    for c in calls:
        hit = pattern.search(c["arguments"] or "")
        if hit:
            found.append((c["run_id"], c["qid"], c["run_index"], c["msg_idx"], c["call_idx"],
                          "arguments", hit.start()))
    return sorted(found, key=str)


def searched(db: Path, query: SearchQuery) -> list[tuple]:
    with Warehouse(db, frames="arrow") as wh:
        result = wh.search_page(query)
    assert not result.more
    return sorted(((h["run_id"], h["qid"], h["run_index"], h["msg_idx"], h["call_idx"],
                    h["field"], h["match_at"]) for h in result.hits), key=str)


@pytest.mark.parametrize("phrase", ["Error executing", "kidney", "ACUTE KIDNEY", "ehr.finish",
                                    '{"query"', "50%", "_30day", "肺炎", "🤒", "(char 10)"])
def test_search_finds_what_a_scan_of_every_text_finds(demo_db: Path, phrase: str) -> None:
    expected = scan(demo_db, phrase)
    assert searched(demo_db, SearchQuery(phrase, limit=1000)) == expected
    if phrase in ("Error executing", "kidney", "ehr.finish"):
        assert expected, "the demo tree holds this phrase"


def test_match_case_and_filters(demo_db: Path) -> None:
    assert searched(demo_db, SearchQuery("Acute Kidney", match_case=True, limit=1000)) == scan(
        demo_db, "Acute Kidney", match_case=True)
    assert searched(demo_db, SearchQuery("acute kidney", match_case=True, limit=1000)) == scan(
        demo_db, "acute kidney", match_case=True)
    for column, value, query in (
            ("benchmark", "agent_ehr_bench", SearchQuery("ehr", benchmark="agent_ehr_bench",
                                                         limit=1000)),
            ("mode", "oneshot", SearchQuery("sepsis", mode="oneshot", limit=1000)),
            ("model", "glm_4_7", SearchQuery("error", model="GLM-4.7", limit=1000)),
            ("task", "labevents", SearchQuery("e", task="labevents", limit=1000))):
        expected = scan(demo_db, query.phrase, where=f"AND r.{column} = ?", params=[value])
        assert expected and searched(demo_db, query) == expected, column
    tool_only = [h for h in scan(demo_db, "error") if h[5] != "arguments"]
    roles = {(r["run_id"], r["qid"], r["run_index"], r["msg_idx"]): r["role"] for r in _rows(
        demo_db, "SELECT run_id, qid, run_index, msg_idx, role FROM messages")}
    tool_only = [h for h in tool_only if roles[h[:4]] == "tool"]
    assert tool_only and searched(demo_db, SearchQuery("error", role="tool", limit=1000)) == (
        tool_only)


def test_pages_follow_each_other(demo_db: Path) -> None:
    with Warehouse(demo_db, frames="arrow") as wh:
        every = wh.search_page(SearchQuery("patient", task="labevents", limit=1000))
        assert len(every.hits) > 30 and not every.more
        pages, offset = [], 0
        while True:
            page = wh.search_page(SearchQuery("patient", task="labevents", limit=13,
                                              offset=offset))
            pages += page.hits
            offset += 13
            if not page.more:
                break
    key = ("run_id", "qid", "run_index", "msg_idx", "call_idx", "field")
    assert [tuple(h[k] for k in key) for h in pages] == [tuple(h[k] for k in key)
                                                       for h in every.hits]


def test_bad_searches_say_what_to_change(demo_db: Path) -> None:
    with Warehouse(demo_db, frames="arrow") as wh:
        for query, words in ((SearchQuery("   "), "give a phrase"),
                             (SearchQuery("x", role="robot"), "unknown role"),
                             (SearchQuery("x" * 1001), "at most 1000"),
                             (SearchQuery("x", limit=0), "limit")):
            with pytest.raises(SearchError, match=words):
                wh.search_page(query)
    proc = run_etl("search", "", "--db", str(demo_db), check=False)
    assert proc.returncode == 1 and "give a phrase" in proc.stderr


# -- any phrase: Hypothesis ---------------------------------------------------------------
# Characters on which Python's re.IGNORECASE and RE2's (?i) agree (Unicode simple folding);
# regular-expression and LIKE metacharacters included on purpose.
ALPHABET = st.sampled_from(list(
    "abcxyzABCXYZ019 .*+?()[]{}|^$\\%_'\"-/:,\n\téÉüÜçÇñÑ日本語🤒∑"))
TEXT = st.text(ALPHABET, max_size=60)


def _toy_warehouse(texts: list[tuple[str, str, str | None]]) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse of one current run whose messages hold (role, content,
    reasoning) of texts, one result per text, and whose calls hold the same texts."""
    con = duckdb.connect()
    create_schema(con)
    con.execute("INSERT INTO runs (run_id, benchmark, mode, split, model, is_archived) "
                "VALUES ('b/agentic/full/m', 'b', 'agentic', 'full', 'm', false)")
    con.execute("INSERT INTO models VALUES ('m', 'Model M')")
    for i, (role, content, reasoning) in enumerate(texts):
        qid = f"q{i:03d}"
        con.execute("INSERT INTO results (run_id, benchmark, mode, model, task, qid, "
                    "run_index) VALUES ('b/agentic/full/m', 'b', 'agentic', 'm', 't', ?, 1)",
                    [qid])
        con.execute("INSERT INTO messages (run_id, qid, run_index, msg_idx, role, content, "
                    "reasoning) VALUES ('b/agentic/full/m', ?, 1, 0, ?, ?, ?)",
                    [qid, role, content, reasoning])
        con.execute("INSERT INTO tool_calls (run_id, qid, run_index, msg_idx, call_idx, "
                    "tool, arguments) VALUES ('b/agentic/full/m', ?, 1, 0, 0, 'x', ?)",
                    [qid, reasoning])
    return con


# Budget: a warehouse is built per example (0.1 s); 50 fixed examples in make test, 1000 random
# ones in make fuzz.
@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(phrase=st.text(ALPHABET, min_size=1, max_size=12).filter(lambda p: p.strip()),
       texts=st.lists(st.tuples(st.sampled_from(["user", "assistant", "tool"]), TEXT,
                                st.one_of(st.none(), TEXT)), min_size=1, max_size=6),
       plant=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 60),
                                st.sampled_from(["as is", "upper", "lower", "swap"])),
                      max_size=3),
       match_case=st.booleans())
def test_any_phrase_is_found_exactly_where_it_is(phrase: str, texts: list, plant: list,
                                                 match_case: bool) -> None:
    texts = [list(t) for t in texts]
    for index, at, case in plant:  # plant the phrase, in some case, at some place
        target = texts[index % len(texts)]
        variant = {"as is": phrase, "upper": phrase.upper(), "lower": phrase.lower(),
                   "swap": phrase.swapcase()}[case]
        at = min(at, len(target[1]))
        target[1] = target[1][:at] + variant + target[1][at:]
    con = _toy_warehouse([tuple(t) for t in texts])
    result = run_search(con, SearchQuery(phrase, match_case=match_case, limit=1000), SQL)
    needle = re.compile(re.escape(phrase.strip()), 0 if match_case else re.IGNORECASE)
    expected = []
    for i, (_, content, reasoning) in enumerate(texts):
        for field, text in (("content", content), ("reasoning", reasoning)):
            hit = needle.search(text or "")
            if hit:
                expected.append((f"q{i:03d}", field, hit.start(), hit.group()))
                break
    for i, (_, _, reasoning) in enumerate(texts):
        hit = needle.search(reasoning or "")
        if hit:
            expected.append((f"q{i:03d}", "arguments", hit.start(), hit.group()))
    got = [(h["qid"], h["field"], h["match_at"], h["matched"]) for h in result.hits]
    assert sorted(got) == sorted(expected)
    for h in result.hits:  # the context is the text around the match
        text = texts[int(h["qid"][1:])][1 if h["field"] == "content" else 2]
        assert text[:h["match_at"]].endswith(h["before"])
        assert text[h["match_at"] + len(h["matched"]):].startswith(h["after"])


# -- the three ways in ----------------------------------------------------------------------
def test_command_line_api_and_page_agree(demo_db: Path) -> None:
    with Warehouse(demo_db, frames="arrow") as wh:
        api = wh.search("Error executing", role="tool", limit=20).to_pylist()
    assert api
    proc = run_etl("search", "Error executing", "--db", str(demo_db), "--role", "tool",
                   "--limit", "20", "--format", "json")
    assert json.loads(proc.stdout) == json.loads(json.dumps(api))
    table = run_etl("search", "Error executing", "--db", str(demo_db), "--role", "tool",
                    "--limit", "20").stdout
    assert "»Error executing«" in table
    with running_server(demo_db) as base:
        status, _, body = get(f"{base}/search?{urlencode({'q': 'error EXECUTING', 'role': 'tool'})}"
                              "&format=json")
        assert status == 200
        hits = json.loads(body)["tables"]["hits"][:20]
        assert [(h["run_id"], h["qid"], h["msg_idx"]) for h in hits] == [
            (h["run_id"], h["qid"], h["msg_idx"]) for h in api]
        first = hits[0]
        assert first["href"].startswith("/trajectory?") and first["href"].endswith(
            f"#m{first['msg_idx']}")
        page = get(base + first["href"].split("#")[0])[2].decode()
        assert "<mark>Error executing</mark>" in page
        assert get(f"{base}/search?q=x&role=robot")[0] == 400
