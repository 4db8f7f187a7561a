"""Tool results paired with their calls, the tool that really ran, and the writer's error
texts, on records shaped like the ones UCSC-VLAA/ClinSeekAgent writes
(openresearcher_ehr/deploy_agent_mm.py run_one_native_mm, ehr_pool.py, image_pool.py)."""

from __future__ import annotations

import json
import uuid
from collections import deque

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from etl.extract import FileInfo
from etl.extract.results import extract_results
from etl.normalize import (
    FUNCTION_KEYS_MAPPED,
    IMAGE_TOOL_NAMES,
    MESSAGE_KEYS_MAPPED,
    RESULT_KEYS_MAPPED,
    TOOL_CALL_KEYS_MAPPED,
    is_tool_error,
    normalize_record,
)
from tests.budgets import examples
from tests.recording import RecordingEmitter


def call(call_id: str, name: str, args: dict | None = None) -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args or {})}}


def record(messages: list) -> dict:
    return {"qid": "q1", "run_index": 1, "status": "success", "task": "ehrxqa_image",
            "messages": messages}


def rows_of(rec: dict, multimodal: bool = False) -> list[dict]:
    rows, why = normalize_record(rec, line_no=1, rec_no=1, multimodal=multimodal)
    assert why is None and rows is not None
    return rows.tool_calls


def test_fresh_uuid_tool_messages_pair_by_order() -> None:
    # is_openseeker_repo_like branch: tool_message["name"] = function_name and a new uuid
    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "tool_calls": [
            call("call_a", "ehr.load_ehr", {"subject_id": 1}),
            call("call_b", "ehr.chest_xray_classifier", {"image_path": "/x.jpg"})]},
        {"role": "tool", "name": "ehr.load_ehr", "tool_call_id": str(uuid.uuid4()),
         "content": "Loaded 12 tables"},
        {"role": "tool", "name": "image.chest_xray_classifier",
         "tool_call_id": str(uuid.uuid4()),
         "content": "Error calling image tool 'chest_xray_classifier': ReadTimeout"},
        {"role": "assistant", "content": "", "tool_calls": [
            call("call_c", "ehr.finish", {"response": ["effusion"]})]},
        {"role": "tool", "name": "ehr.finish", "tool_call_id": str(uuid.uuid4()),
         "content": "Finish"},
    ]
    calls = rows_of(record(msgs))
    got = [(c["call_id"], c["paired_by"], c["result_msg_idx"], c["result_chars"], c["is_error"])
           for c in calls]
    assert got == [
        ("call_a", "order", 3, len("Loaded 12 tables"), False),
        ("call_b", "order", 4, len(msgs[4]["content"]), True),
        ("call_c", "order", 6, len("Finish"), False),
    ]


def test_id_pairs_first_then_order_fills_the_rest() -> None:
    msgs = [
        {"role": "assistant", "content": "", "tool_calls": [
            call("c1", "ehr.run_sql_query"), call("c2", "ehr.get_table_names"),
            call("c3", "browser.search")]},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},       # by id (not the head)
        {"role": "tool", "tool_call_id": "zzz", "content": "first!"},   # oldest open: c1
        {"role": "tool", "tool_call_id": "c2", "content": "again"},     # c2 already answered
        {"role": "tool", "tool_call_id": "c3", "content": "three"},
        {"role": "tool", "tool_call_id": "c9", "content": "orphan"},    # nothing left open
    ]
    calls = {c["call_id"]: c for c in rows_of(record(msgs))}
    assert (calls["c1"]["paired_by"], calls["c1"]["result_chars"]) == ("order", 6)
    assert (calls["c2"]["paired_by"], calls["c2"]["result_chars"]) == ("id", 3)
    assert (calls["c3"]["paired_by"], calls["c3"]["result_chars"]) == ("id", 5)


def test_unanswered_call_keeps_nulls_and_synthetic_finish_pairs_by_id() -> None:
    msgs = [
        {"role": "assistant", "content": "", "tool_calls": [call("c1", "ehr.think")]},
        {"role": "assistant", "content": "A", "tool_calls": [
            call("synthetic_finish_ab12cd34", "ehr.finish", {"response": ["A"]})]},
        {"role": "tool", "content": "Finish (synthesized from plain-text answer)",
         "tool_call_id": "synthetic_finish_ab12cd34"},
    ]
    c1, fin = rows_of(record(msgs))
    assert c1.get("paired_by") is None and c1.get("result_chars") is None
    assert c1.get("is_error") is None
    assert fin["paired_by"] == "id" and fin["is_error"] is False


def authors_order_pairs(messages: list[dict]) -> list[tuple[int, int]]:
    """(assistant msg_idx, call_idx) of the call each tool message answers, exactly as
    collect_official_candidate_names walks messages: a deque, popleft per tool message."""
    pending: deque = deque()
    out = []
    for i, msg in enumerate(messages):
        if msg["role"] == "assistant":
            pending.extend((i, j) for j, _ in enumerate(msg.get("tool_calls") or []))
            continue
        if msg["role"] == "tool":
            tc = pending.popleft() if pending else None
            if tc is not None:
                out.append((tc, i))
    return out


@st.composite
def fresh_uuid_trajectories(draw: st.DrawFn) -> list[dict]:
    msgs: list[dict] = [{"role": "user", "content": "q"}]
    n = 0
    for _ in range(draw(st.integers(0, 6))):
        k = draw(st.integers(0, 3))
        msgs.append({"role": "assistant", "content": "",
                     "tool_calls": [call(f"c{n + j}", "ehr.think") for j in range(k)] or None})
        n += k
        for _ in range(draw(st.integers(0, k + 1))):
            msgs.append({"role": "tool", "tool_call_id": str(uuid.uuid4()),
                         "content": "x" * draw(st.integers(0, 9))})
    return msgs


@settings(max_examples=examples(200), deadline=None)
@given(fresh_uuid_trajectories())
def test_order_pairing_agrees_with_the_authors_deque(msgs: list[dict]) -> None:
    calls = {(c["msg_idx"], c["call_idx"]): c for c in rows_of(record(msgs))}
    expected = authors_order_pairs(msgs)
    for (key, tool_idx) in expected:
        assert calls[key]["paired_by"] == "order"
        assert calls[key]["result_msg_idx"] == tool_idx
        assert calls[key]["result_chars"] == len(msgs[tool_idx]["content"])
    answered = {key for key, _ in expected}
    assert all(c.get("paired_by") is None for k, c in calls.items() if k not in answered)


def test_kimi_ehr_prefixed_image_tools_record_the_executed_tool() -> None:
    # normalize_tool_call_name_mm writes ehr.<bare>; _resolve_tool_namespace runs image.<bare>
    names = ["ehr.chest_xray_classifier", "chest_xray_report_generator",
             "ehr_xray_phrase_grounding", "ehr.image_visualizer", "ehr.dicom_processor",
             "ehr.chest_xray_segmentation", "image.chest_xray_classifier", "ehr.load_ehr",
             "browser.chest_xray_classifier", "ehr.visualizer", "ehr.sql_query", "ehr.search",
             "visualizer", "ehr.no_such_thing"]
    msgs = [{"role": "assistant", "content": "",
             "tool_calls": [call(f"c{i}", n) for i, n in enumerate(names)]}]
    got = [(c["raw_tool"], c["tool"], c["name_fixed"])
           for c in rows_of(record(msgs), multimodal=True)]
    assert got == [
        ("ehr.chest_xray_classifier", "image.chest_xray_classifier", True),
        ("chest_xray_report_generator", "image.chest_xray_report_generator", True),
        ("ehr_xray_phrase_grounding", "image.xray_phrase_grounding", True),
        ("ehr.image_visualizer", "image.image_visualizer", True),
        ("ehr.dicom_processor", "image.dicom_processor", True),
        ("ehr.chest_xray_segmentation", "image.chest_xray_segmentation", True),
        ("image.chest_xray_classifier", "image.chest_xray_classifier", False),
        ("ehr.load_ehr", "ehr.load_ehr", False),
        ("browser.chest_xray_classifier", "image.chest_xray_classifier", True),
        # the executor's fuzzy suffix match (deploy_agent_mm.py _fuzzy_match_suffix)
        ("ehr.visualizer", "image.image_visualizer", True),
        ("ehr.sql_query", "ehr.run_sql_query", True),
        ("ehr.search", "browser.search", True),  # a suffix registered under browser.
        ("visualizer", "image.image_visualizer", True),
        ("ehr.no_such_thing", "ehr.no_such_thing", False),
    ]
    # a text run's executor has no such routing: only a misplaced image tool name moves
    text = {(c["raw_tool"], c["tool"]) for c in rows_of(record(msgs)) if c["name_fixed"]}
    assert text == {(n, "image." + n.split(".", 1)[-1].removeprefix("ehr_"))
                    for n in names if n.split(".", 1)[-1].removeprefix("ehr_") in
                    IMAGE_TOOL_NAMES and not n.startswith("image.")}


# Every failure text the writer produces, built with the writer's own f-strings.
WRITER_ERROR_TEXTS = {
    # deploy_agent.py / deploy_agent_mm.py / run_text.py / run_multimodal.py executors
    "executor exception": "Error executing ehr.run_sql_query: Expecting value: line 1 column 1",
    "executor, pool init": "Error executing image.chest_xray_classifier: Failed to initialize "
                           "image MCP session: All connection attempts failed",
    "ehr tools off": "Error: EHR tools not available. Start with --enable_ehr flag.",
    "image tools off": "Error: Image tools not available. Start with --enable_image.",
    "no namespace": "Unknown tool namespace: foo.bar",
    "browser": "Unknown browser tool: click",
    # ehr_pool.py / ehr_tool_pool.py _call_mcp_tool / call_tool
    "mcp exception (timeout)": "Error calling MCP tool 'run_sql_query': ReadTimeout('')",
    "ehr call_tool": "Error executing load_ehr: boom",
    "mcp error": "MCP Error -32602: Invalid params",
    "tool error": "Tool Error: [{'type': 'text', 'text': 'no such table'}]",
    "http": "HTTP Error 502: Bad Gateway",
    "invalid": "Invalid MCP response: {'jsonrpc': '2.0', 'id': 1}",
    "sse": "No data in SSE response",
    # image_pool.py / image_tool_pool.py
    "image exception": "Error calling image tool 'chest_xray_classifier': timed out",
    # the EHR MCP server's own failure texts (src/agentlite/mcp_tools/record_tools.py
    # run_sql_query, table_tools.py, src/run_mcp_server.py load_ehr), which an "Error:"
    # prefix list missed
    "sql": "SQL Execution Error: Execution failed on sql 'SELECT x FROM labevents': no such "
           "column: x",
    "table description": "Table 'labs' not found in category'",
    "load_ehr": "An error occurred while loading EHR database: Database file not found: x.db",
    # the image MCP server (src/mcp_image/tools/*.py): a JSON object marked failed
    "image tool failed": '{"output": {"error": "Image not found at \'a.jpg\'"}, '
                         '"metadata": {"image_path": "a.jpg", "analysis_status": "failed"}}',
}


def test_every_writer_error_text_is_recognised() -> None:
    for what, text in WRITER_ERROR_TEXTS.items():
        assert is_tool_error(text), what
        if not text.startswith("{"):  # a cut JSON object keeps its start, not its status
            assert is_tool_error(text[:len(text) // 2 + 12]), what  # truncated results too


def test_successful_results_are_not_errors() -> None:
    for text in ("Loaded 12 tables for subject 10001", "browser.search completed",
                 "Finish (one-shot)", "", "  Error: leading space is a result", None,
                 '{\n  "Effusion": 0.81\n}', "No records found",
                 "Query executed successfully but returned no results.",
                 '{"output": {}, "metadata": {"analysis_status": "completed_no_finding"}}'):
        assert not is_tool_error(text), text


# --- nothing the writer wrote is dropped ------------------------------------------------


# Fields the writer puts in records that no column maps (FORMATS.md §2 and the writer:
# deploy_agent.py attach_source_fields copies every input field, run_one_query_mm adds
# multimodal_summary): they must be leftovers, whatever the mapped lists say.
WRITER_ONLY_KEYS = ("multimodal_summary", "candidates", "ground_truth", "task_info",
                    "image_paths", "report_paths", "judge_reason", "answer_type")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=5), children, max_size=3), max_leaves=8)


def full_record() -> dict:
    rec = {
        "qid": "mm-1", "run_index": 1, "runs_per_question": 1, "session_id": "s",
        "status": "success", "completed": True, "stop_reason": "finish_tool_call",
        "error": None, "task": "ehrxqa_image", "task_type": None, "task_family": "ehrxqa",
        "scope": "patient", "source_benchmark": "ehrxqa", "label": [{"name": "effusion"}],
        "subject_id": 1, "hadm_id": 2, "stay_id": None, "prediction_time": "2150-01-01 00:00:00",
        "backend_model_id": "moonshotai.kimi-k2.5", "backend_region": "us-east-1",
        "question": "?",
        "multimodal_summary": {"num_images": 1, "num_reports": 0,
                               "resolved_image_paths": ["/a.jpg"]},
        "candidates": ["effusion", "edema"], "ground_truth": ["effusion"],
        "task_info": {"family": "cxr"}, "image_paths": ["a.jpg"], "report_paths": [],
        "judge_reason": "same finding", "answer_type": "list",
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                             "data": "AAAA"}},
                {"type": "tool_result", "tool_use_id": "t1", "content": "kept text"},
                {"type": "image", "source": "not-an-object"},
                42]},
            {"role": "assistant", "content": "", "reasoning_content": "hm",
             "bedrock_content_blocks": [{"type": "text", "text": "x"}],
             "tool_calls": [{"id": "c1", "type": "function", "index": 0,
                             "function": {"name": "ehr.finish", "arguments": "{}",
                                          "parsed": True}}]},
            {"role": "tool", "content": "Finish", "tool_call_id": "c1", "name": "ehr.finish",
             "status": "ok"},
        ],
    }
    return rec


def check_nothing_dropped(rec: dict) -> None:
    rows, why = normalize_record(rec, line_no=1, rec_no=1)
    assert why is None and rows is not None
    extra = json.loads(rows.results["extra"] or "{}")
    assert set(extra) | (set(rec) & RESULT_KEYS_MAPPED) == set(rec)
    for k in extra:
        if k != "messages":
            assert k not in RESULT_KEYS_MAPPED
        assert extra[k] == json.loads(json.dumps(rec[k])), k
    for k in WRITER_ONLY_KEYS:
        if k in rec:
            assert k in extra, k
    msgs = rec.get("messages")
    if not isinstance(msgs, list):
        if msgs is not None:
            assert extra["messages"] == json.loads(json.dumps(msgs))
            assert rows.problems  # and the extractor turns this into a reject
        return
    for msg, row in zip(msgs, rows.messages, strict=True):
        if not isinstance(msg, dict):
            continue
        m_extra = json.loads(row["extra"] or "{}")
        unread = m_extra.pop("$unread_blocks", [])
        assert set(m_extra) | (set(msg) & MESSAGE_KEYS_MAPPED) == set(msg)
        if isinstance(msg.get("content"), list):
            text_blocks = [i for i, b in enumerate(msg["content"]) if isinstance(b, str) or (
                isinstance(b, dict) and b.get("type") == "text"
                and isinstance(b.get("text"), str))]
            image_blocks = [i for i, b in enumerate(msg["content"]) if isinstance(b, dict)
                            and b.get("type") in ("image", "image_url")]
            read = set(text_blocks) | {im["block_idx"] for im in rows.images
                                       if im["msg_idx"] == row["msg_idx"]}
            assert {u["block_idx"] for u in unread} == (
                set(range(len(msg["content"]))) - read)
            assert read >= set(text_blocks) and set(image_blocks) >= read - set(text_blocks)
    for call_row in rows.tool_calls:
        call = msgs[call_row["msg_idx"]]["tool_calls"][call_row["call_idx"]]
        if not isinstance(call, dict):
            continue
        c_extra = json.loads(call_row["extra"] or "{}")
        fn = call.get("function")
        if isinstance(fn, dict):
            want = {k for k in call if k not in TOOL_CALL_KEYS_MAPPED} | {
                f"function.{k}" for k in fn if k not in FUNCTION_KEYS_MAPPED}
        else:
            want = {k for k in call if k not in {"id", "type", "name", "arguments"}}
        assert set(c_extra) == want


def test_every_writer_field_is_kept() -> None:
    rec = full_record()
    check_nothing_dropped(rec)
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    user_extra = json.loads(rows.messages[0]["extra"])
    assert [u["block_idx"] for u in user_extra["$unread_blocks"]] == [2, 3, 4]
    assert user_extra["$unread_blocks"][0]["block"]["content"] == "kept text"
    assert "bedrock_content_blocks" in json.loads(rows.messages[1]["extra"])
    assert json.loads(rows.tool_calls[0]["extra"]) == {"index": 0, "function.parsed": True}
    assert rows.tool_calls[0]["call_type"] == "function"
    assert json.loads(rows.messages[2]["extra"]) == {"status": "ok"}


@settings(max_examples=examples(150), deadline=None)
@given(unknown=st.dictionaries(st.text(min_size=1, max_size=12), json_values, max_size=6),
       msg_unknown=st.dictionaries(st.text(min_size=1, max_size=8), json_values, max_size=3),
       blocks=st.lists(json_values, max_size=4))
def test_any_unknown_fields_stay_queryable(unknown: dict, msg_unknown: dict,
                                           blocks: list) -> None:
    rec = full_record()
    assume(not (set(unknown) & RESULT_KEYS_MAPPED))
    rec.update(unknown)
    msg = rec["messages"][2]
    msg.update({k: v for k, v in msg_unknown.items() if k not in MESSAGE_KEYS_MAPPED})
    rec["messages"][0]["content"].extend(blocks)
    check_nothing_dropped(rec)


@pytest.mark.parametrize("messages", [{"role": "user"}, "a trajectory", 3, True])
def test_messages_that_are_not_a_list_are_kept_and_named(messages: object) -> None:
    rec = full_record()
    rec["messages"] = messages
    check_nothing_dropped(rec)
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    # Named in a problem, and its text readable as message 0 (the viewer and search read
    # messages.content).
    assert rows is not None and len(rows.messages) == 1 and rows.problems
    assert rows.messages[0]["content"] == (messages if isinstance(messages, str)
                                           else json.dumps(messages, separators=(",", ":")))


def test_extractor_names_what_it_could_not_read(tmp_path) -> None:
    rec = full_record()
    rec["messages"] = {"role": "user", "content": "not a list"}
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(full_record()) + "\n" + json.dumps(rec) + "\n")
    emit = RecordingEmitter()
    extract_results(FileInfo(file_id="f" * 16, path="r/results.jsonl", abs_path=path,
                             real_path=str(path), kind="results_top", run_id="r"), emit)
    results = [r for t, r in emit.rows if t == "results"]
    assert len(results) == 2
    assert json.loads(results[1]["extra"])["messages"] == rec["messages"]
    [(line_no, severity, error, _)] = emit.rejects
    assert (line_no, severity) == (2, "repaired") and "messages is dict" in error


def test_score_rows_keep_the_fields_no_column_maps(tmp_path) -> None:
    from etl.extract.scores import extract_scores
    from etl.scoring.authors_files import SCORED_KEYS_MAPPED

    # a rescored vocab row and a judge row as the authors' scorer writes them
    vocab = {"qid": "q1", "run_index": 1, "task": "medmod_phenotyping", "route": "set_f1",
             "gold_names": ["sepsis"], "prediction_strs": ["Sepsis"], "status": "success",
             "prediction_strs_mapped": ["sepsis"], "mapping_similarity": [0.93],
             "precision": 1.0, "recall": 1.0, "f1": 1.0, "tp": 1, "n_pred": 1, "n_gold": 1}
    judge = {"qid": "q2", "run_index": 1, "task": "ehrxqa_image", "route": "llm_judge",
             "correct": 1, "judge_reason": "same finding", "judge_subtype": "presence",
             "future_field": {"a": [1, 2]}}
    per_q = {"qid": "q3", "task": "labevents", "avg_f1": 0.5, "gold": ["a"],
             "runs": [{"run_index": 1, "predictions": ["a", "b"], "f1": 0.5,
                       "prediction_source": "finish_tool_call", "stop_reason": "x"}]}
    for kind, row in (("rescored", vocab), ("scored", judge), ("per_question", per_q)):
        path = tmp_path / f"{kind}.jsonl"
        path.write_text(json.dumps(row) + "\n")
        emit = RecordingEmitter()
        extract_scores(FileInfo(file_id="f" * 16, path=f"s/{kind}.jsonl", abs_path=path,
                                real_path=str(path), kind=kind, run_id="r"), emit)
        [(_, out)] = [(t, r) for t, r in emit.rows if t == "question_scores"]
        extra = json.loads(out["extra"])
        if kind == "per_question":
            assert extra == {"predictions": ["a", "b"], "stop_reason": "x",
                             "question.gold": ["a"]}
            continue
        assert set(extra) | (set(row) & SCORED_KEYS_MAPPED) == set(row)
        assert all(extra[k] == row[k] for k in extra)
        assert {"judge_reason", "future_field"} <= set(extra) or kind != "scored"
        assert {"mapping_similarity", "gold_names"} <= set(extra) or kind != "rescored"
