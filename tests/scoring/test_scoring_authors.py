"""authors_text (etl/scoring/authors_text.py): the benchmark authors' text scorer.

Hand arithmetic for each rule, the shapes the authors' code would crash on (decided and
documented in etl/scoring/authors_text.py), and a Hypothesis comparison of the production
extraction + F1 against a clean-room re-implementation written here from the written rules
(DESIGN.md "Scores"), sharing no code with etl/scoring/. The comparison with the authors' code
itself is tests/scoring/test_fidelity_text.py (golden files made by their scorer)."""

from __future__ import annotations

import ast
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etl.scoring.authors_text import (
    authors_f1,
    authors_text_score,
    fallback_prediction,
    finish_prediction,
    true_best_at_k,
)
from tests.budgets import examples


def call(name: Any, arguments: Any, call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name,
                                                            "arguments": arguments}}


def finish_msgs(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": "", "tool_calls": list(calls)}]


# ---------------------------------------------------------------- hand arithmetic


def test_f1_partial_overlap_is_not_stripped() -> None:
    # P = {"a", " b", "c"} (the padded " b" is its own item), G = {"a", "b"}:
    # |P∩G| = 1 -> precision 1/3, recall 1/2, F1 = 2 * (1/3)(1/2) / (1/3 + 1/2) = 2/5.
    p, r, f1, em, n_pred, n_gold = authors_f1(["A", " b", "c"], ["a", "B"])
    assert (p, r, em, n_pred, n_gold) == (1 / 3, 1 / 2, 0.0, 3, 2)
    assert f1 == pytest.approx(2 / 5, abs=1e-15)


def test_f1_only_strings_count_and_case_folds_before_the_set() -> None:
    # 3, None and {"name": ...} are dropped; "X" and "x" are one item: P = {x}, G = {x, y}
    p, r, f1, em, n_pred, _ = authors_f1(["X", "x", 3, None, {"name": "y"}], ["x", "y"])
    assert (p, r, n_pred) == (1.0, 0.5, 1)
    assert f1 == pytest.approx(2 / 3, abs=1e-15) and em == 0.0


def test_f1_empty_prediction_is_zero_even_against_empty_gold() -> None:
    assert authors_f1([], []) == (0.0, 0.0, 0.0, 0.0, 0, 0)
    assert authors_f1([1, None], ["a"])[:4] == (0.0, 0.0, 0.0, 0.0)
    # a prediction against an empty gold: recall defined as 0, F1 0, not an exact match
    assert authors_f1(["a"], None)[:4] == (0.0, 0.0, 0.0, 0.0)


def test_gold_atc_name_when_any_object_has_one() -> None:
    label = [{"name": "Aspirin", "atc_name": "B01AC06"}, {"name": "Heparin"}, "Extra"]
    # has_atc -> {"b01ac06", "extra"}; Heparin (no atc_name) adds nothing
    assert authors_f1(["b01ac06", "extra"], label)[:4] == (1.0, 1.0, 1.0, 1.0)
    assert authors_f1(["Heparin"], label)[:3] == (0.0, 0.0, 0.0)
    # no object has a truthy atc_name ("" is falsy): names are the gold
    assert authors_f1(["aspirin"], [{"name": "Aspirin", "atc_name": ""}])[2] == 1.0
    # one truthy atc_name makes the empty one a gold item "" too: G = {"", "x"}
    p, r, f1, *_ = authors_f1(["x"], [{"name": "A", "atc_name": ""}, {"atc_name": "X"}])
    assert (p, r) == (1.0, 0.5)
    # a string label is one item; other label types give an empty gold
    assert authors_f1(["yes"], "Yes")[2] == 1.0
    assert authors_f1(["yes"], {"name": "yes"})[2] == 0.0


def test_unicode_lower_is_pythons() -> None:
    # str.lower: final sigma and the dotted capital I (DuckDB lower() differs)
    assert "ΟΔΟΣ".lower() == "οδος"
    assert authors_f1(["ΟΔΟΣ"], ["οδος"])[2] == 1.0
    assert authors_f1(["İ"], ["i̇"])[2] == 1.0


def test_extraction_rules() -> None:
    assert finish_prediction(finish_msgs(call("functions.finish", '{"response": ["a"]}'))) == (
        ["a"], "finish_tool_call")
    assert finish_prediction(finish_msgs(call("EHR_FINISH", "{'response': ['a', 2]}"))) == (
        ["a", 2], "finish_tool_call")  # Python literal, items kept as they are
    assert finish_prediction(finish_msgs(call("ehr.finish", {"response": " b "}))) == (
        ["b"], "finish_tool_call")  # a non-empty string response is stripped
    assert finish_prediction(finish_msgs(call("ehr.finish", '["x", "y"]'))) == (
        ["x", "y"], "finish_tool_call")  # a list argument is the prediction
    assert finish_prediction(finish_msgs(call("ehr.finish", '{"response": "  "}'))) == (
        [], "finish_tool_call_non_list")
    assert finish_prediction(finish_msgs(call("ehr.finish", '{"response": 0}'))) == (
        [], "finish_tool_call_non_list")
    assert finish_prediction(finish_msgs(call("ehr.finish", '{"other": 1}'))) == (
        [], "finish_tool_call")  # no response key: the empty list
    assert finish_prediction(finish_msgs(call("ehr.finish", '{"response": ['))) == (
        [], "finish_parse_error")
    assert finish_prediction(finish_msgs(call("ehr.finish", None))) == (
        [], "finish_parse_error")  # null arguments: TypeError in the authors' parser
    assert finish_prediction(finish_msgs({"id": "c", "function": {"name": "finish"}})) == (
        [], "finish_tool_call")  # missing arguments default to {}
    # Python's json refuses a 5000-digit integer with ValueError, which is not a
    # JSONDecodeError: the authors' parser does not try literal_eval then -> parse error
    assert finish_prediction(finish_msgs(call("finish", '{"response": [' + "9" * 5000 + "]}"))
                             ) == ([], "finish_parse_error")
    assert finish_prediction([]) == ([], None)


def test_last_finish_call_decides_walking_backwards() -> None:
    msgs = [*finish_msgs(call("ehr.finish", '{"response": ["early"]}')),
            {"role": "assistant", "content": "", "tool_calls": [
                call("ehr.finish", '{"response": ["first of two"]}', "c2"),
                call("ehr.finish", '{"response": ["second of two"]}', "c3"),
                call("ehr.load_ehr", "{}", "c4")]}]
    assert finish_prediction(msgs) == (["second of two"], "finish_tool_call")
    # a later malformed finish hides the earlier good one
    msgs.append(finish_msgs(call("ehr.finish", "{oops", "c5"))[0])
    assert finish_prediction(msgs) == ([], "finish_parse_error")


def test_status_is_not_consulted() -> None:
    score = authors_text_score(finish_msgs(call("ehr.finish", '{"response": ["a"]}')), ["a"])
    assert (score.f1, score.prediction_source) == (1.0, "finish_tool_call")


def test_shapes_the_authors_code_would_crash_on() -> None:
    # decided in etl/scoring/authors_text.py: the odd message / call is skipped, never a crash
    good = call("ehr.finish", '{"response": ["a"]}')
    for messages in (None, "text", {"role": "assistant"}, 5):
        assert finish_prediction(messages) == ([], None)
    odd_messages = ["not an object", None, {"role": "assistant", "tool_calls": "finish"},
                    {"role": "assistant", "tool_calls": {"function": good["function"]}}]
    assert finish_prediction(odd_messages) == ([], None)
    odd_calls = ["finish", None, 7, {"function": None}, {"function": "finish"},
                 {"function": {"name": None, "arguments": "{}"}},
                 {"function": {"name": 5, "arguments": "{}"}},
                 {"name": "finish", "arguments": '{"response": ["flat"]}'}]  # flat shape
    assert finish_prediction(finish_msgs(*odd_calls)) == ([], None)
    # ... and they do not hide a real finish call before them
    assert finish_prediction([*finish_msgs(good), *odd_messages, *finish_msgs(*odd_calls)]
                             ) == (["a"], "finish_tool_call")
    score = authors_text_score("garbage", ["a"])
    assert (score.prediction_source, score.f1) == ("no_prediction", 0.0)
    assert authors_text_score("garbage", ["a"], allow_text=True).prediction_source == (
        "no_prediction")


def test_best_at_k_arithmetic() -> None:
    # values sorted [0, .5, 1], n = 3. k = 2: C(3,2) = 3 draws; the max is .5 in C(1,1) = 1
    # of them and 1 in C(2,1) = 2 -> (.5 + 2) / 3 = 5/6.
    assert true_best_at_k([1.0, 0.0, 0.5], 2) == pytest.approx(5 / 6, abs=1e-15)
    assert true_best_at_k([1.0, 0.0, 0.5], 1) == pytest.approx(0.5, abs=1e-15)  # the mean
    assert true_best_at_k([1.0, 0.0, 0.5], 3) == 1.0  # the max
    assert true_best_at_k([0.25], 5) == 0.25  # k > n counts as n
    assert true_best_at_k([], 2) == 0.0


def test_text_fallback_sources() -> None:
    cands = {"id": "k1", "type": "function", "function": {
        "name": "ehr.get_candidates_by_keyword", "arguments": '{"table": "x_candidates"}'}}
    listing = "candidate\nAcute kidney failure\nSepsis\n"
    base = [{"role": "assistant", "content": "", "tool_calls": [cands]},
            {"role": "tool", "content": listing, "tool_call_id": "k1"}]

    def last(text: str) -> list[dict[str, Any]]:
        return [*base, {"role": "assistant", "content": text, "tool_calls": None}]

    # an explicit quoted list, aligned to the official candidates (substring either way)
    assert fallback_prediction(last('Final: ["sepsis", "kidney failure"]')) == (
        ["Sepsis", "Acute kidney failure"], "fallback_explicit_string_list")
    # bullets after a cue, kept only when they align to a candidate
    assert fallback_prediction(last("Final answer:\n- sepsis\n- zzz\n")) == (
        ["Sepsis", "zzz"], "fallback_bullet_list")
    # an answer-like text mentioning candidates, in order of appearance
    assert fallback_prediction(last("Thus, the answer is acute kidney failure, then sepsis.")
                               ) == (["Acute kidney failure", "Sepsis"],
                                     "fallback_official_candidate_mentions")
    assert fallback_prediction(last("No idea.")) == ([], None)
    assert fallback_prediction([]) == ([], None)
    # a finish call wins over any text
    msgs = [*finish_msgs(call("ehr.finish", '{"response": ["x"]}')),
            *last('Final: ["sepsis"]')]
    assert authors_text_score(msgs, ["x"], allow_text=True).prediction_source == (
        "finish_tool_call")


# ---------------------------------------------------------------- clean-room comparison


def ref_parse(raw: Any) -> tuple[bool, Any]:
    """(ok, value): dict/list as is; text as JSON, else as a Python literal."""
    if isinstance(raw, dict | list):
        return True, raw
    if not isinstance(raw, str):
        return False, None
    try:
        return True, json.loads(raw)
    except json.JSONDecodeError:
        pass
    except Exception:  # noqa: BLE001 - not a syntax error: no second attempt
        return False, None
    try:
        return True, ast.literal_eval(raw)
    except Exception:  # noqa: BLE001
        return False, None


def ref_score(messages: Any, label: Any) -> tuple[list[Any], str, float, float, float, float]:
    """The written rules, forward scan: the last finish-named call seen decides."""
    last = None
    if isinstance(messages, list):
        for msg in messages:
            calls = msg.get("tool_calls") if isinstance(msg, dict) else None
            if not isinstance(calls, list):
                continue
            for c in calls:
                fn = (c["function"] if "function" in c else {}) if isinstance(c, dict) else None
                if not isinstance(fn, dict):
                    continue
                name = fn["name"] if "name" in fn else ""
                if isinstance(name, str) and "finish" in name.lower():
                    last = fn
    if last is None:
        preds, source = [], "no_prediction"
    else:
        ok, args = ref_parse(last["arguments"] if "arguments" in last else {})
        if not ok:
            preds, source = [], "finish_parse_error"
        else:
            response = (args["response"] if "response" in args else []) if isinstance(
                args, dict) else args
            if isinstance(response, list):
                preds, source = response, "finish_tool_call"
            elif isinstance(response, str) and response.strip() != "":
                preds, source = [response.strip()], "finish_tool_call"
            else:
                preds, source = [], "finish_tool_call_non_list"
    pred = {p.lower() for p in preds if isinstance(p, str)}
    if isinstance(label, str):
        gold = {label.lower()}
    elif isinstance(label, list):
        objects = [x for x in label if isinstance(x, dict)]
        key = "atc_name" if any(bool(o.get("atc_name")) for o in objects) else "name"
        gold = {x.lower() for x in label if isinstance(x, str)}
        gold |= {o[key].lower() for o in objects if isinstance(o.get(key), str)}
    else:
        gold = set()
    if not pred:
        return preds, source, 0.0, 0.0, 0.0, 0.0
    hits = len(pred & gold)
    p = hits / len(pred)
    r = hits / len(gold) if gold else 0.0
    f1 = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    return preds, source, p, r, f1, float(pred == gold)


TEXT = st.sampled_from(["a", "A", " a", "a ", "b", "B", "İ", "i̇", "ΟΔΟΣ", "οδος", "", "  ",
                        "Sodium chloride", "sodium chloride"])
ITEM = st.one_of(TEXT, st.integers(-3, 3), st.none(), st.booleans(),
                 st.builds(lambda t: {"name": t}, TEXT))
RESPONSE = st.one_of(st.lists(ITEM, max_size=5), TEXT, st.integers(0, 2), st.none(),
                     st.floats(allow_nan=False, allow_infinity=False))
ARGS_OBJECT = st.one_of(
    st.builds(lambda r: {"response": r}, RESPONSE),
    st.builds(lambda r: {"rationale": "x", "response": r}, RESPONSE),
    st.just({"rationale": "no answer"}),
    st.lists(ITEM, max_size=4),
)


def encode(args: Any, how: str) -> Any:
    if how == "json":
        return json.dumps(args)
    if how == "python":
        return repr(args)
    if how == "raw":
        return args
    if how == "malformed":
        return json.dumps(args)[:-1]
    return {"none": None, "number": 3, "text": "not json"}[how]


ARGUMENTS = st.builds(encode, ARGS_OBJECT, st.sampled_from(
    ["json", "json", "python", "raw", "malformed", "none", "number", "text"]))
NAME = st.sampled_from(["ehr.finish", "functions.finish", "ehr_finish", "FINISH", "Finish_Task",
                        "ehr.load_ehr", "browser.search", "", None, 5])
CALL = st.one_of(
    st.builds(lambda n, a: {"id": "c", "type": "function", "function": {"name": n,
                                                                        "arguments": a}},
              NAME, ARGUMENTS),
    st.builds(lambda n: {"id": "c", "function": {"name": n}}, NAME),  # no arguments
    st.sampled_from(["finish", None, {"function": None}, {"name": "finish", "arguments": "{}"},
                     {}]),
)
MESSAGE = st.one_of(
    st.builds(lambda calls, role: {"role": role, "content": "", "tool_calls": calls},
              st.one_of(st.lists(CALL, max_size=3), st.none()),
              st.sampled_from(["assistant", "assistant", "tool", "user"])),
    st.sampled_from(["text", None, {"role": "tool", "content": "ok", "tool_call_id": "c"},
                     {"role": "assistant", "tool_calls": "finish"}]),
)
LABEL = st.one_of(
    TEXT, st.none(), st.integers(0, 1),
    st.lists(st.one_of(TEXT, st.builds(lambda n: {"name": n}, TEXT),
                       st.builds(lambda n, a: {"name": n, "atc_name": a}, TEXT,
                                 st.one_of(TEXT, st.none())),
                       st.integers(0, 2)), max_size=4),
)


@settings(max_examples=examples(600), deadline=None)
@given(messages=st.one_of(st.lists(MESSAGE, max_size=5), st.none(), st.just("x")),
       label=LABEL)
def test_production_equals_the_clean_room_rules(messages: Any, label: Any) -> None:
    got = authors_text_score(messages, label)
    preds, source, p, r, f1, em = ref_score(messages, label)
    assert got.prediction_source == source
    assert got.predictions == preds
    for ours, theirs in ((got.precision, p), (got.recall, r), (got.f1, f1),
                         (got.exact_match, em)):
        assert math.isclose(ours, theirs, abs_tol=1e-12)
    assert 0.0 <= got.f1 <= 1.0
