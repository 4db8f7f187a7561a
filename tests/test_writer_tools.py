"""Tool results paired with their calls, the tool that really ran, and the writer's error
texts, on records shaped like the ones UCSC-VLAA/ClinSeekAgent writes
(openresearcher_ehr/deploy_agent_mm.py run_one_native_mm, ehr_pool.py, image_pool.py)."""

from __future__ import annotations

import json
import uuid
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from etl.normalize import TOOL_ERROR_PREFIXES, is_tool_error, normalize_record


def call(call_id: str, name: str, args: dict | None = None) -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args or {})}}


def record(messages: list) -> dict:
    return {"qid": "q1", "run_index": 1, "status": "success", "task": "ehrxqa_image",
            "messages": messages}


def rows_of(rec: dict) -> list[dict]:
    rows, why = normalize_record(rec, line_no=1, rec_no=1)
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


@settings(max_examples=200, deadline=None)
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
             "browser.chest_xray_classifier", "ehr.visualizer"]
    msgs = [{"role": "assistant", "content": "",
             "tool_calls": [call(f"c{i}", n) for i, n in enumerate(names)]}]
    got = [(c["raw_tool"], c["tool"], c["name_fixed"]) for c in rows_of(record(msgs))]
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
        ("ehr.visualizer", "ehr.visualizer", False),  # fuzzy match not reproduced
    ]


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
}


def test_every_writer_error_text_is_recognised() -> None:
    for what, text in WRITER_ERROR_TEXTS.items():
        assert is_tool_error(text), what
        assert is_tool_error(text[:len(text) // 2 + 12]), what  # truncated results too
    # each prefix is needed by at least one writer text
    for prefix in TOOL_ERROR_PREFIXES:
        assert any(t.startswith(prefix) for t in WRITER_ERROR_TEXTS.values()), prefix


def test_successful_results_are_not_errors() -> None:
    for text in ("Loaded 12 tables for subject 10001", "browser.search completed",
                 "Finish (one-shot)", "", "  Error: leading space is a result", None,
                 '{\n  "Effusion": 0.81\n}', "No records found"):
        assert not is_tool_error(text), text
