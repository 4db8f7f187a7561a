"""The alignment of two trajectories' steps (etl/serve/steps.py), for any two step lists
(Hypothesis): every step of each side appears once and in its order, facing steps marked
same are the same call, and as many calls are paired as a longest common subsequence
(computed here by dynamic programming) pairs; the rows before the first difference are the
common start of the two trajectories."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from etl.serve.steps import align_steps, answer_items
from tests.budgets import examples

TOOLS = st.sampled_from(["ehr.load_ehr", "ehr.run_sql_query", "browser.search", "ehr.finish"])
ARGS = st.sampled_from(['{"a": 1, "b": 2}', '{"b": 2, "a": 1}', '{"a": 1}', "not json",
                        " not json ", ""])
STEP = st.fixed_dictionaries({"tool": TOOLS, "arguments": ARGS, "is_error": st.booleans()})


def _key(step: dict) -> tuple:
    try:
        args = json.dumps(json.loads(step["arguments"]), sort_keys=True)
    except ValueError:
        args = step["arguments"].strip()
    return (step["tool"], args)


def _lcs(a: list, b: list) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = (table[i + 1][j + 1] + 1 if a[i] == b[j]
                           else max(table[i + 1][j], table[i][j + 1]))
    return table[0][0]


@settings(max_examples=examples(300), deadline=None)
@given(a=st.lists(STEP, max_size=8), b=st.lists(STEP, max_size=8))
def test_alignment_keeps_every_step_and_pairs_a_longest_common_run(a: list, b: list) -> None:
    rows = align_steps(a, b)
    assert [r.a for r in rows if r.a is not None] == a
    assert [r.b for r in rows if r.b is not None] == b
    paired = [r for r in rows if r.a is not None and r.b is not None
              and _key(r.a) == _key(r.b)]
    assert len(paired) == _lcs([_key(s) for s in a], [_key(s) for s in b])
    for row in rows:
        if row.kind == "same":
            assert _key(row.a) == _key(row.b) and row.a["is_error"] == row.b["is_error"]
        elif row.kind == "only_a":
            assert row.b is None
        elif row.kind == "only_b":
            assert row.a is None
    # the rows before the first difference are the common start of both trajectories
    first = next((i for i, r in enumerate(rows) if r.kind != "same"), len(rows))
    prefix = 0
    while (prefix < min(len(a), len(b)) and _key(a[prefix]) == _key(b[prefix])
           and a[prefix]["is_error"] == b[prefix]["is_error"]):
        prefix += 1
    assert first == prefix


def test_an_answer_against_the_gold() -> None:
    said, missed = answer_items('["Sepsis", "ANEMIA", 3]', '["sepsis", "anemia", "shock"]')
    assert said == [("Sepsis", True), ("ANEMIA", True), ("3", False)]
    assert missed == ["shock"]
    assert answer_items(None, '["yes"]') == ([], ["yes"])
    assert answer_items("Yes", '["yes"]') == ([("Yes", True)], [])
