"""normalize_record on hand-written records of every shape FORMATS.md §2 describes."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import orjson
import pytest

from etl.normalize import (
    RESULT_COLUMNS,
    content_parts,
    normalize_record,
    normalize_status,
    normalize_tool,
    parse_arguments,
    task_group,
)
from etl.scoring.normalized import gold_items, prediction_items
from etl.values import to_int, to_timestamp

B64 = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHR8e"


def set_f1_rows(rows):
    """The project's normalized-rule rows (each result also gets authors_text rows)."""
    return [s for s in rows.question_scores if s["scorer"] == "set_f1"]


def call(call_id: str, name: str, arguments: object) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name,
                                                            "arguments": arguments}}


def oneshot_ok() -> dict:
    return {
        "qid": "q-001", "run_index": 1, "runs_per_question": 1, "session_id": "s1",
        "status": "ok", "stop_reason": "finish_tool_call", "completed": True, "error": None,
        "backend_region": "us-east-1", "backend_model_id": "moonshotai.kimi-k2.5",
        "task": "ICU_Mortality_7day", "task_type": "risk_prediction", "label": "Yes",
        "subject_id": 10001, "hadm_id": 20002, "stay_id": None,
        "prediction_time": "2150-03-04 05:06:07", "question": "Will the patient die?",
        "messages": [
            {"role": "user", "content": "Will the patient die?"},
            {"role": "assistant", "content": "",
             "tool_calls": [call("c0", "ehr.finish", json.dumps({"response": ["yes"]}))]},
            {"role": "tool", "content": "Finish (one-shot)", "tool_call_id": "c0"},
        ],
    }


def agentic() -> dict:
    sql_args = json.dumps({"query": "select 1"})
    return {
        "qid": "q-002", "run_index": 2, "status": "success", "completed": True,
        "stop_reason": "finish_tool_call", "task": "labevents",
        "label": ["Glucose", "Sodium", "Potassium"], "subject_id": "12345",
        "messages": [
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "Which labs?"},
            {"role": "assistant", "content": "Loading.", "reasoning_content": "think first",
             "tool_calls": [call("a1", "ehr_load_ehr", {"subject_id": 12345}),
                            call("a2", "ehr.run_sql_query", sql_args)]},
            {"role": "tool", "content": "loaded", "tool_call_id": "a1"},
            {"role": "tool", "content": "Error executing ehr.run_sql_query: boom",
             "tool_call_id": "a2"},
            {"role": "user", "content": "Reminder: call a tool."},
            {"role": "assistant", "content": "",
             "tool_calls": [call("a3", "browser_search", "{not json"),
                            call("a4", "image_chest_xray_classifier", "{}")]},
            {"role": "tool", "content": "results", "tool_call_id": "a3", "name": "browser.search"},
            {"role": "assistant", "content": "done", "tool_calls": [
                call("a5", "ehr.finish", json.dumps({"response": ["glucose", " SODIUM ", "x"]}))]},
            {"role": "tool", "content": "Finish", "tool_call_id": "a5"},
        ],
    }


def test_oneshot_ok_record() -> None:
    rec = oneshot_ok()
    rows, why = normalize_record(rec, line_no=3, rec_no=4)
    assert why is None and rows is not None
    res = rows.results
    assert res["qid"] == "q-001" and res["run_index"] == 1
    assert res["status"] == "success" and res["raw_status"] == "ok"
    assert res["line_no"] == 3 and res["rec_no"] == 4
    assert res["label"] == json.dumps(rec["label"])
    assert res["prediction"] == '["yes"]'
    assert json.loads(res["prediction_items"]) == ["yes"]
    assert json.loads(res["gold"]) == gold_items(rec["label"])
    assert res["prediction_time"] == dt.datetime(2150, 3, 4, 5, 6, 7)
    assert res["task_group"] == "risk_prediction"
    assert (res["subject_id"], res["subject_id_text"], res["hadm_id"], res["stay_id"]) == (
        10001, None, 20002, None)
    assert (res["n_messages"], res["n_tool_calls"], res["n_images"]) == (3, 1, 0)
    for column, source, _ in RESULT_COLUMNS:
        if isinstance(rec.get(source), str) and column != "prediction_time":
            assert res[column] == rec[source]
    [score] = set_f1_rows(rows)
    assert score["scorer"] == "set_f1" and score["f1"] == 1.0 and score["exact_match"] == 1.0
    assert [m["role"] for m in rows.messages] == ["user", "assistant", "tool"]
    [tc] = rows.tool_calls
    assert tc["tool"] == "ehr.finish" and tc["result_chars"] == len("Finish (one-shot)")
    assert tc["is_error"] is False and tc["is_synthetic"] is False


def test_oneshot_error_record_has_no_children_but_a_zero_score() -> None:
    rec = {"qid": "q-003", "status": "error", "stop_reason": "exception", "completed": False,
           "error": "ThrottlingException", "messages": [], "label": ["a"], "task": "omr"}
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    assert rows.results["status"] == "error" and rows.results["error"] == "ThrottlingException"
    assert rows.results["run_index"] == 1  # missing run_index is run 1
    assert rows.results["prediction"] is None and rows.results["prediction_items"] == "[]"
    assert rows.messages == [] and rows.tool_calls == [] and rows.images == []
    [score] = set_f1_rows(rows)
    assert (score["f1"], score["precision"], score["recall"], score["n_gold"]) == (0, 0, 0, 1)
    assert score["status"] == "error"


def test_agentic_record_tool_calls() -> None:
    rec = agentic()
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    calls = {tc["call_id"]: tc for tc in rows.tool_calls}
    assert calls["a1"]["tool"] == "ehr.load_ehr" and calls["a1"]["raw_tool"] == "ehr_load_ehr"
    # dict arguments are serialized; JSON string arguments are kept as written
    assert json.loads(calls["a1"]["arguments"]) == {"subject_id": 12345}
    assert calls["a2"]["arguments"] == rec["messages"][2]["tool_calls"][1]["function"][
        "arguments"]
    assert calls["a1"]["arguments_valid"] and calls["a2"]["arguments_valid"]
    assert calls["a3"]["tool"] == "browser.search" and calls["a3"]["arguments"] == "{not json"
    assert calls["a3"]["arguments_valid"] is False
    assert calls["a4"]["tool"] == "image.chest_xray_classifier"
    assert calls["a2"]["is_error"] is True and calls["a1"]["is_error"] is False
    assert calls["a1"]["result_chars"] == len("loaded")
    assert "result_chars" not in calls["a4"]  # nobody answered it: NULL
    assert [(tc["msg_idx"], tc["call_idx"]) for tc in rows.tool_calls] == [
        (2, 0), (2, 1), (6, 0), (6, 1), (8, 0)]
    assert rows.results["n_tool_calls"] == 5
    msgs = rows.messages
    assert msgs[2]["n_tool_calls"] == 2 and msgs[2]["reasoning"] == "think first"
    assert msgs[7]["name"] == "browser.search" and msgs[7]["tool_call_id"] == "a3"
    assert all(m["content_chars"] == len(m["content"]) for m in msgs)
    assert [m["msg_idx"] for m in msgs] == list(range(len(rec["messages"])))
    # score: P = {glucose, sodium, x}, G = {glucose, sodium, potassium}
    pred = set(prediction_items(["glucose", " SODIUM ", "x"]))
    gold = set(gold_items(rec["label"]))
    hits = len(pred & gold)
    [score] = set_f1_rows(rows)
    assert score["precision"] == pytest.approx(hits / len(pred))
    assert score["recall"] == pytest.approx(hits / len(gold))
    assert rows.results["subject_id"] == 12345  # a string of digits
    assert rows.results["task_group"] == "decision_making"  # from the task list
    for child in (*rows.messages, *rows.tool_calls, *rows.question_scores):
        assert (child["qid"], child["run_index"], child["rec_no"]) == ("q-002", 2, 1)


def test_last_finish_wins_and_malformed_last_finish_gives_no_prediction() -> None:
    rec = agentic()
    rec["messages"].append({"role": "assistant", "content": "", "tool_calls": [
        call("a6", "ehr_finish", {"response": "Single Answer"})]})
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    assert rows.results["prediction"] == '"Single Answer"'
    assert json.loads(rows.results["prediction_items"]) == ["single answer"]
    rec["messages"].append({"role": "assistant", "content": "", "tool_calls": [
        call("a7", "ehr.finish", '{"response": [')]})
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    assert rows.results["prediction"] is None and rows.results["prediction_items"] == "[]"
    assert set_f1_rows(rows)[0]["f1"] == 0.0


def test_synthetic_finish_is_flagged_and_scored() -> None:
    rec = {"qid": "mm-1", "status": "success", "completed": True,
           "label": [{"name": "Pneumonia"}], "task": "ehrxqa_image",
           "messages": [
               {"role": "assistant", "content": "pneumonia",
                "tool_calls": [call("synthetic_finish_1a2b3c4d", "ehr.finish",
                                    json.dumps({"response": ["pneumonia"]}))]},
               {"role": "tool", "content": "Finish (synthesized from plain-text answer)",
                "tool_call_id": "synthetic_finish_1a2b3c4d"}]}
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    [tc] = rows.tool_calls
    assert tc["is_synthetic"] is True and tc["is_error"] is False
    assert set_f1_rows(rows)[0]["f1"] == 1.0
    assert rows.results["task_group"] == "ehrxqa"  # from the task prefix


def test_multimodal_blocks_make_image_rows() -> None:
    other = B64[::-1]
    rec = {"qid": "mm-2", "run_index": "3", "status": "incomplete", "completed": False,
           "stop_reason": "no_final_answer", "task": "medmod_phenotyping",
           "task_family": "medmod_phenotyping", "scope": "patient", "source_benchmark": "medmod",
           "multimodal_summary": {"num_images": 2},
           "label": [{"name": "Sepsis", "value": 1}, {"name": "Shock"}],
           "messages": [
               {"role": "system", "content": "sys"},
               {"role": "user", "content": [
                   {"type": "text", "text": "Look at these."},
                   {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                                "data": B64}},
                   {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                "data": other}},
                   {"type": "text", "text": "Report."}]}]}
    rows, _ = normalize_record(rec, line_no=1, rec_no=1)
    assert rows is not None
    assert rows.results["run_index"] == 3 and rows.results["status"] == "incomplete"
    assert rows.results["task_group"] == "medmod"
    assert json.loads(rows.results["gold"]) == ["sepsis", "shock"]
    user = rows.messages[1]
    assert user["content"] == "Look at these.\nReport." and B64 not in user["content"]
    assert user["n_images"] == 2 and rows.results["n_images"] == 2
    first, second = rows.images
    assert (first["msg_idx"], first["block_idx"], first["media_type"]) == (1, 1, "image/jpeg")
    assert first["data_sha256"] == hashlib.sha256(B64.encode()).hexdigest()
    assert first["data_chars"] == len(B64) and first["data"] is None
    assert second["block_idx"] == 2 and second["data_sha256"] != first["data_sha256"]
    kept, _ = normalize_record(rec, line_no=1, rec_no=1, keep_images=True)
    assert kept is not None and kept.images[0]["data"] == B64


def test_identity_rejects() -> None:
    for bad_qid in (None, "", "  ", 1.5, ["q"], True):
        rows, why = normalize_record({"qid": bad_qid}, line_no=1, rec_no=1)
        assert rows is None and why == "record has no qid"
    rows, why = normalize_record({"run_index": 1}, line_no=1, rec_no=1)
    assert rows is None and why == "record has no qid"
    rows, _ = normalize_record({"qid": 17}, line_no=1, rec_no=1)
    assert rows is not None and rows.results["qid"] == "17"
    for bad_run in ("two", 0, -1, 1.5, [1], True):
        rows, why = normalize_record({"qid": "q", "run_index": bad_run}, line_no=1, rec_no=1)
        assert rows is None and why is not None and "run_index" in why and "q" in why


def test_oddly_shaped_records_load_what_they_can() -> None:
    shapes = [
        {"qid": "o1", "messages": "not a list"},
        {"qid": "o2", "messages": [None, 3, "text", {"role": "assistant", "tool_calls": 5}]},
        {"qid": "o3", "messages": [{"role": "assistant", "tool_calls": [
            "x", {"id": "c", "function": "nope"}, {"id": 9, "function": {"name": None}},
            call("d", "ehr.finish", 42), call("e", "finish", ["list"])]}]},
        {"qid": "o4", "messages": [{"role": "user", "content": {"weird": True}},
                                   {"role": "user", "content": [1, None, {"type": "image"}]}]},
        {"qid": "o5", "label": {"name": "x"}, "subject_id": "P-12", "prediction_time": "soon",
         "status": "weird", "error": {"code": 1}, "completed": "yes"},
    ]
    for rec in shapes:
        rows, why = normalize_record(rec, line_no=1, rec_no=1)
        assert why is None and rows is not None, rec
        # one row per per-result scorer of a text result, whatever the shape
        assert sorted(s["scorer"] for s in rows.question_scores) == [
            "authors_text", "authors_text_fallback", "authors_text_legacy", "paper_agentehr",
            "paper_text", "set_f1"]
        orjson.dumps(rows.results, option=orjson.OPT_NAIVE_UTC)  # all scalar, serializable
    o1, _ = normalize_record(shapes[0], line_no=1, rec_no=1)
    # Its text is message 0 (readable in the trajectory viewer), and a problem says why.
    assert o1 is not None and o1.problems and o1.results["n_messages"] == 1
    assert o1.messages[0]["content"] == "not a list"
    o3, _ = normalize_record(shapes[2], line_no=1, rec_no=1)
    assert o3 is not None and len(o3.tool_calls) == 5
    assert [tc["arguments_valid"] for tc in o3.tool_calls] == [False] * 5
    assert o3.tool_calls[4]["tool"] == "ehr.finish"
    o5, _ = normalize_record(shapes[4], line_no=1, rec_no=1)
    assert o5 is not None
    res = o5.results
    assert (res["subject_id"], res["subject_id_text"]) == (None, "P-12")
    assert res["prediction_time"] is None and res["raw_status"] == "weird"
    assert res["status"] == "success"  # unknown status, completed "yes" -> success
    assert json.loads(res["error"]) == {"code": 1}
    assert json.loads(res["gold"]) == ["x"]


def test_small_rules() -> None:
    assert normalize_tool("ehr_get_table_names") == "ehr.get_table_names"
    assert normalize_tool("ehr.think") == "ehr.think"
    assert normalize_tool("browser_open") == "browser.open"
    assert normalize_tool("find") == "browser.find"
    assert normalize_tool("finish") == "ehr.finish"
    assert normalize_tool("custom.tool_x") == "custom.tool_x"
    assert normalize_status("OK", None, None, None) == "success"
    assert normalize_status(None, False, "boom", None) == "error"
    assert normalize_status("timeout", False, None, "exception_before_completion") == "error"
    assert normalize_status(None, False, None, "no_final_answer") == "incomplete"
    assert to_int("  42 ") == 42 and to_int("4x") is None and to_int(2**70) is None
    assert to_int(True) is None and to_int(7.0) == 7
    assert to_timestamp("2150-01-01 00:00:00") == dt.datetime(2150, 1, 1)
    assert to_timestamp("2150-13-01 00:00:00") is None and to_timestamp(5) is None
    assert parse_arguments('{"a": 1}') == ('{"a": 1}', {"a": 1})
    assert parse_arguments("[1]") == ("[1]", None)
    assert parse_arguments(None) == (None, None)
    assert task_group("ED_Hospitalization", None, None, None) == "risk_prediction"
    assert task_group("labevents", "decision_making", None, None) == "decision_making"
    assert task_group("x", None, None, "ehrxqa") == "ehrxqa"
    assert task_group("unknown_task", None, None, None) is None
    text, images = content_parts([{"type": "image_url", "image_url": {
        "url": "data:image/png;base64,QUJD"}}, {"type": "text", "text": "t"}])
    assert text == "t" and images == [(0, "image/png", "QUJD")]
