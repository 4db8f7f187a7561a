"""Any record shape: the authors' rules re-implemented here (etl/scoring/authors_mm.py,
etl/scoring/text_runs.py, etl/scoring/authors_legacy.py) never raise, and their numbers stay
where the rules put them."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from etl.scoring import authors_legacy, authors_mm, text_runs
from etl.scoring.base import ResultInput
from etl.values import gold_label
from tests.budgets import examples

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                    st.floats(allow_nan=True, allow_infinity=False),
                    st.sampled_from(["", " ", "yes", "No", "A", " a ", "1", "2150-01-01",
                                     "ehr.finish", "finish", "browser_search",
                                     '{"response": ["A", "b"]}', "{'response': ['A']}",
                                     '{"response": "A"}', "{bad", "[1, 2]"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.sampled_from(["name", "value", "text", "answer", "atc_name",
                                     "response", "function", "arguments", "role",
                                     "tool_calls", "content"]), inner, max_size=4)),
    max_leaves=12)
calls = st.one_of(json_values, st.fixed_dictionaries(
    {"id": st.text(max_size=3), "type": st.just("function"),
     "function": st.fixed_dictionaries({"name": json_values, "arguments": json_values})}),
    st.fixed_dictionaries({"name": json_values, "arguments": json_values}))
messages = st.lists(st.one_of(json_values, st.fixed_dictionaries(
    {"role": st.sampled_from(["assistant", "tool", "user", None]),
     "tool_calls": st.one_of(st.none(), st.lists(calls, max_size=3), json_values)})),
    max_size=5)
records = st.fixed_dictionaries(
    {"qid": st.just("q"), "messages": st.one_of(messages, json_values),
     "label": json_values, "question": json_values, "task": json_values,
     "status": json_values})

ROUTES = {"no_gold", "incomplete", "set_f1", "llm_judge"}
NOTES = {"ok", "no_finish_call", "bad_json_args", "no_response_key"}


@settings(max_examples=examples(200), deadline=None)
@given(records)
def test_mm_scorer_total_on_any_record(record: dict[str, Any]) -> None:
    row = authors_mm.score_record(record)
    assert row["route"] in ROUTES and row["note"] in NOTES
    assert row["scorer"] == authors_mm.NAME
    if row["route"] == "set_f1":
        assert row["len_gold"] >= 2
        for key in ("precision", "recall", "f1", "accuracy", "exact_match"):
            assert 0.0 <= row[key] <= 1.0
        assert row["f1"] <= max(row["precision"], row["recall"]) + 1e-12
        assert row["tp"] <= min(row["n_pred"], row["n_gold"])
    elif row["route"] == "llm_judge":
        assert row["len_gold"] == 1 and "f1" not in row  # the verdict needs the LLM
    elif row["route"] == "incomplete":
        assert row["note"] != "ok" or authors_mm.extract_prediction(record)[0] is None
        assert row["f1"] == 0.0
    else:
        assert row["len_gold"] == 0


@settings(max_examples=examples(200), deadline=None)
@given(records)
def test_text_run_stats_and_legacy_rule_on_any_record(record: dict[str, Any]) -> None:
    total, browser, turns = text_runs.run_stats(record)
    assert 0 <= browser <= total
    msgs = record["messages"] if isinstance(record["messages"], list) else []
    assert turns == sum(isinstance(m, dict) and m.get("role") == "assistant" for m in msgs)
    row = authors_legacy.score_result(ResultInput(record, gold_label(record)[0], "success",
                                                  None, None))
    assert row["note"] in {"finish_tool_call", "finish_tool_call_non_list",
                           "finish_parse_error", "no_prediction"}
    for key in ("precision", "recall", "f1", "exact_match"):
        assert 0.0 <= row[key] <= 1.0
    if row["note"] != "finish_tool_call":
        assert row["f1"] == 0.0
