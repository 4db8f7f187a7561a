"""Values the writer should not have written, kept readable: an integer beyond 64 bits keeps
every digit (orjson would have turned it into a float), the text of a `messages` value that
is not a list and of content blocks of types the reader does not know (input_text,
tool_result, ...) lands in messages.content where the trajectory viewer and search read it,
with the block (its type) kept whole in messages.extra."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etl.normalize import normalize_record
from etl.pipeline.ingest import IngestOptions, run_ingest
from etl.read import decode_line
from tests.budgets import examples

BIGINT_MAX = 2**63 - 1


def _load(record_text: str) -> tuple:
    """(rows, problems) of one JSON line as the ingest reads it."""
    (line,) = decode_line(record_text.encode(), 1)
    assert line.severity != "error", line.error
    rows, why = normalize_record(line.obj, line_no=1, rec_no=1)
    assert why is None and rows is not None
    return rows, rows.problems


@given(st.one_of(st.integers(), st.integers(min_value=2**63, max_value=10**60),
                 st.integers(max_value=-(2**63), min_value=-(10**60))))
@settings(max_examples=examples(300), deadline=None)
def test_any_integer_subject_id_keeps_its_digits(n: int) -> None:
    rows, _ = _load(json.dumps({"qid": "q1", "subject_id": n, "messages": []}))
    result = rows.results
    if -BIGINT_MAX <= n <= BIGINT_MAX:
        assert result["subject_id"] == n and result["subject_id_text"] is None
    else:  # beyond the BIGINT column: the text column holds every digit
        assert result["subject_id"] is None and result["subject_id_text"] == str(n)


@given(st.integers(min_value=2**64, max_value=10**40), st.integers(min_value=2**64))
@settings(max_examples=examples(100), deadline=None)
def test_big_integers_keep_their_digits_in_labels_and_qids(label: int, qid: int) -> None:
    rows, _ = _load(json.dumps({"qid": qid, "label": [label], "messages": []}))
    assert rows.results["qid"] == str(qid)
    assert json.loads(rows.results["label"]) == [label]


TEXT = st.text(max_size=30)
KNOWN_TYPES = ("text", "image", "image_url")


def _unknown_type() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(["input_text", "output_text", "tool_result", "document",
                                      "thinking", "refusal"]),
                     st.text(min_size=1, max_size=10)).filter(lambda t: t not in KNOWN_TYPES)


# Inside the trajectory an integer beyond 64 bits is read as orjson's nearest float (the reader
# looks for such integers only in a record's own fields, for speed: see docs/ARCHITECTURE.md),
# so values that land in messages draw integers that 64 bits hold.
INT64 = st.integers(min_value=-(2**63), max_value=2**64 - 1)

BLOCKS = st.one_of(
    TEXT,
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}),
    st.fixed_dictionaries({"type": _unknown_type(), "text": TEXT}),
    st.fixed_dictionaries({"type": _unknown_type(), "content": TEXT}),
    st.fixed_dictionaries({"type": _unknown_type(), "tool_use_id": TEXT,
                           "content": st.lists(st.one_of(
                               TEXT, st.fixed_dictionaries({"type": st.just("text"),
                                                            "text": TEXT})), max_size=3)}),
    st.fixed_dictionaries({"type": _unknown_type(), "source": st.dictionaries(TEXT, TEXT)}),
    st.fixed_dictionaries({"type": st.just("image"), "source": st.fixed_dictionaries(
        {"type": st.just("base64"), "media_type": st.just("image/png"), "data": TEXT})}),
    INT64,
)


def expected_text(block: object) -> str | None:
    """The documented rule, written again here: a string is text; an object's `text` when it
    is a string (an image block has none), else its `content` when a string, else the texts
    of the blocks of a `content` list joined with newlines."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict) or block.get("type") in ("image", "image_url"):
        return None
    if isinstance(block.get("text"), str):
        return block["text"]
    inner = block.get("content")
    if isinstance(inner, str):
        return inner
    if isinstance(inner, list):
        texts = [t for t in map(expected_text, inner) if t is not None]
        return "\n".join(texts) if texts else None
    return None


@given(st.lists(BLOCKS, min_size=1, max_size=6))
@settings(max_examples=examples(300), deadline=None)
def test_every_block_that_carries_text_lands_in_content(blocks: list) -> None:
    record = {"qid": "q1", "messages": [{"role": "user", "content": blocks}]}
    rows, _ = _load(json.dumps(record))
    (message,) = rows.messages
    texts = [t for t in map(expected_text, blocks) if t is not None]
    assert message["content"] == "\n".join(texts)
    assert message["content_chars"] == len(message["content"])
    # Every block that is neither a text block nor an image with data stays whole in
    # extra, its type with it.
    kept = json.loads(message["extra"] or "{}").get("$unread_blocks", [])
    plain = {i for i, b in enumerate(blocks) if isinstance(b, str) or (
        isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))}
    images = {i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("type") == "image"}
    assert {k["block_idx"] for k in kept} == set(range(len(blocks))) - plain - images
    for entry in kept:
        assert entry["block"] == json.loads(json.dumps(blocks[entry["block_idx"]]))


NOT_A_LIST = st.one_of(TEXT, INT64, st.booleans(),
                       st.floats(allow_nan=False, allow_infinity=False),
                       st.dictionaries(TEXT, st.one_of(TEXT, INT64), max_size=3))


@given(NOT_A_LIST)
@settings(max_examples=examples(200), deadline=None)
def test_a_messages_value_that_is_not_a_list_is_message_0(value: object) -> None:
    rows, problems = _load(json.dumps({"qid": "q1", "messages": value}))
    (message,) = rows.messages
    assert message["msg_idx"] == 0 and rows.results["n_messages"] == 1
    if isinstance(value, str):
        assert message["content"] == value
    else:
        assert json.loads(message["content"]) == value
    assert any("not a list" in p for p in problems)  # and so a repaired reject
    assert json.loads(rows.results["extra"])["messages"] == value  # kept as written too


def test_the_trajectory_viewer_shows_them(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from tests.serving import get, running_server

    run = tmp_path / "tree" / "ehr_bench" / "agentic" / "full1800" / "some_model"
    run.mkdir(parents=True)
    records = [
        {"qid": "q_blocks", "subject_id": 2**64 + 1, "task": "labevents", "messages": [
            {"role": "user", "content": [{"type": "input_text", "text": "BLOCKTEXT1"},
                                         {"type": "tool_result", "tool_use_id": "t1",
                                          "content": [{"type": "text", "text": "BLOCKTEXT2"}]}]}]},
        {"qid": "q_string", "task": "labevents", "messages": "WHOLETRAJECTORYTEXT"},
    ]
    (run / "results.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    db = tmp_path / "w.duckdb"
    run_ingest(tmp_path / "tree", db, IngestOptions(jobs=1))
    with duckdb.connect(str(db), read_only=True) as con:
        subject = con.execute("SELECT subject_id_text FROM results WHERE qid = 'q_blocks'"
                              ).fetchone()[0]
        searched = con.execute("SELECT qid FROM messages WHERE content LIKE '%BLOCKTEXT2%' "
                               "OR content LIKE '%WHOLETRAJECTORYTEXT%' ORDER BY qid"
                               ).fetchall()
    assert subject == str(2**64 + 1)
    assert searched == [("q_blocks",), ("q_string",)]
    with running_server(db) as base:
        for qid, texts in (("q_blocks", ["BLOCKTEXT1", "BLOCKTEXT2"]),
                           ("q_string", ["WHOLETRAJECTORYTEXT"])):
            key = {"run": "ehr_bench/agentic/full1800/some_model", "qid": qid, "index": 1}
            html = get(f"{base}/trajectory?{urlencode(key)}")[2].decode()
            for text in texts:
                assert text in html, (qid, text)
