"""Over trajectories the synthetic generator writes (any model, benchmark kind, trajectory
shape, plan, writer habit and failure rates Hypothesis draws), the labels the parse gives
every call and result are exactly the failures the generator planted: each planted label
found with its kind, nothing labelled that was not planted."""

from __future__ import annotations

import random
from functools import lru_cache
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.failures.rows import failure_rows
from etl.failures.tools import tools_of
from etl.normalize import normalize_record
from etl.synth import failures, spec
from etl.synth.content import Filler, Images, mm_questions, text_questions
from etl.synth.plan import AGENTIC_ZERO, ONESHOT_ZERO, SHAPES
from etl.synth.records import Plan, RecordMaker, planted_key
from tests.budgets import examples

MODELS = sorted(failures.CALL_RATES)
KINDS = ("sql_error", "unknown_table", "missing_argument", "unknown_tool", "empty_result",
         "infrastructure", "image_failed", "not_loaded", "truncated")


@lru_cache(maxsize=1)
def _world() -> tuple[Filler, Images, list, list]:
    texts = text_questions(3, 2, ("labevents", "ICU_Mortality_1day", "prescriptions_atc"),
                           "ehr_bench")
    return Filler(3), Images(3, 64), texts, mm_questions(3, (2, 2, 2, 2, 2, 2))


@st.composite
def call_rates(draw: st.DrawFn) -> dict[str, float]:
    """Rates that make every kind common (they sum to at most 0.9)."""
    weights = [draw(st.integers(0, 4)) for _ in KINDS]
    total = sum(weights) or 1
    scale = draw(st.sampled_from((0.3, 0.6, 0.9)))
    return {k: scale * w / total for k, w in zip(KINDS, weights, strict=True)}


@st.composite
def trajectories(draw: st.DrawFn) -> dict:
    filler, images, text_qs, mm_qs = _world()
    model = draw(st.sampled_from(MODELS))
    oneshot = draw(st.booleans())
    multimodal = draw(st.booleans())
    q = draw(st.sampled_from(mm_qs if multimodal else text_qs))
    outcome = draw(st.sampled_from(("exact", "partial", "zero")))
    variant = draw(st.sampled_from(sorted(set(ONESHOT_ZERO if oneshot else
                                              (*AGENTIC_ZERO, "synthetic", "dict_args")))))
    shape = draw(st.none() | st.sampled_from(SHAPES["oneshot" if oneshot else "agentic"]))
    if variant != "list":
        shape = None
    plan = Plan(outcome, variant, draw(st.integers(40, 400_000)), shape)
    shapes = sorted(spec.TRAJECTORY_SHAPES)
    maker = RecordMaker(filler, images, spec.TRAJECTORY_SHAPES[draw(st.sampled_from(shapes))])
    rng = random.Random(draw(st.integers(0, 2**32)))
    rates = draw(call_rates())
    result_rates = {k: draw(st.sampled_from((0.0, 0.5, 1.0)))
                    for k in ("repeat", "empty_answer", "outside", "run_error")}
    with patch.dict(failures.CALL_RATES, {model: rates}), \
            patch.dict(failures.RESULT_RATES, {model: result_rates}):
        if oneshot:
            rec = maker.oneshot(q, model, plan, rng, region="us-east-1")
        else:
            old_style = not multimodal and draw(st.booleans())
            rec = maker.agentic(q, model, plan, rng, run_index=1, runs_per_question=1,
                                q_index=1, old_style=old_style,
                                with_names=draw(st.booleans()), multimodal=multimodal)
    return {"record": rec, "planted": maker.planted.get(planted_key(rec)),
            "multimodal": multimodal}


# 200: an example is one trajectory normalized and labelled (about 10 ms), and the draws
# must meet every kind on both benchmark kinds and both modes.
@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(trajectories())
def test_the_labels_are_exactly_the_planted_failures(case: dict) -> None:
    rec = case["record"]
    rows, why = normalize_record(rec, line_no=1, rec_no=1, multimodal=case["multimodal"])
    assert rows is not None, why
    kind = "multimodal" if case["multimodal"] else "text"
    calls, results = failure_rows(rows, candidates=rec.get("candidates"),
                                  known_tools=tools_of(kind))
    planted = case["planted"]
    want_calls = sorted(planted.calls) if planted is not None else []
    want_results = sorted(planted.results) if planted is not None else []
    assert sorted((c["msg_idx"], c["call_idx"], c["failure"], c["detail"]) for c in calls) \
        == want_calls
    assert sorted((r["failure"], r["detail"], r["n_calls"]) for r in results) == want_results
    # the parse marks as errors exactly the calls planted with an error label
    errors = {(c[0], c[1]) for c in want_calls
              if c[2] in ("invalid_arguments", "unknown_tool", "tool_error", "infrastructure")}
    assert {(c["msg_idx"], c["call_idx"]) for c in rows.tool_calls if c.get("is_error")} \
        == errors


def test_the_generator_plants_every_label_and_kind_it_knows() -> None:
    """The strategy above reaches every label: one draw per kind at rate 1."""
    filler, images, text_qs, mm_qs = _world()
    seen: set[tuple[str, str]] = set()
    for kind in KINDS:
        for multimodal, qs in ((False, text_qs), (True, mm_qs)):
            maker = RecordMaker(filler, images)
            rates = {k: (1.0 if k == kind else 0.0) for k in KINDS}
            with patch.dict(failures.CALL_RATES, {"glm_4_7": rates}):
                for seed in range(6):
                    rec = maker.agentic(qs[seed % len(qs)], "glm_4_7",
                                        Plan("exact", "list", 300_000), random.Random(seed),
                                        run_index=1, runs_per_question=1, q_index=1,
                                        multimodal=multimodal)
                    seen.update((c[2], c[3]) for c in maker.planted[planted_key(rec)].calls)
    assert {label for label, _ in seen} == {"invalid_arguments", "unknown_tool", "tool_error",
                                           "empty_result", "truncated_result",
                                           "infrastructure"}
