"""Deciding how each question of a run turns out, so that task means track the paper.

Outcomes are allocated by systematic sampling inside each task (one random offset, evenly
spaced thresholds): a task of n questions with quality p gets round(p * n) right give or
take one, so even the tiny demo tree ranks models as the paper does."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from etl.synth.content import Question, stream
from etl.synth.records import Plan

# variants used for runs that came out wrong, cycled so every shape appears in every run
AGENTIC_ZERO = ("list", "error", "no_answer", "text_answer", "missing", "malformed", "number",
                "error_early", "list", "text_answer_reasoning", "list", "string")
ONESHOT_ZERO = ("list", "list", "invoke_error", "list", "list", "error_early", "list")
# Writer habits planted on SHAPE_RATE of the "list" records of text runs (records.Plan.shape)
SHAPES = {"agentic": ("padded", "python_args", "functions_finish", "incomplete_finish",
                      "nonstring_items"),
          "oneshot": ("padded", "nonstring_items")}
SHAPE_RATE = 0.05


@dataclass(frozen=True, slots=True)
class Sizes:
    """Payload sizes in characters (bench scale sets realistic ones)."""

    agentic: int
    oneshot: int
    mm_agentic: int
    mm_oneshot: int
    heavy_tail: bool

    def draw(self, rng: random.Random, mean: int) -> int:
        if not self.heavy_tail:
            return int(mean * (0.5 + rng.random()))
        # lognormal with sigma 1.3 (mean = median * e^0.845): a few lines run to megabytes
        return int(min(mean * 60, mean / math.exp(0.845) * math.exp(rng.gauss(0.0, 1.3))))


def plan_run(seed: int, key: str, questions: Sequence[Question],
             quality: Callable[[Question], float], mode: str, payload: Callable[[], int],
             runs_per_question: int = 1, zero_variants: Sequence[str] | None = None,
             finish_style: str = "list", shapes: bool = False
             ) -> list[tuple[Question, int, Plan]]:
    """Plans for every (question, run_index) of a run, in input order. With shapes, a few %
    of the "list" plans get a planted writer habit (SHAPES), drawn from a stream of its own
    so the outcomes stay those of the plan stream."""
    rng = stream(seed, "plan", key)
    shape_rng = stream(seed, "shape", key)
    zero = list(zero_variants or (AGENTIC_ZERO if mode == "agentic" else ONESHOT_ZERO))
    by_task: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        by_task[q.task].append(i)
    out: dict[tuple[int, int], Plan] = {}
    z = rng.randrange(len(zero))
    for task in sorted(by_task):
        for run_index in range(1, runs_per_question + 1):
            idx = by_task[task]
            order = list(range(len(idx)))
            rng.shuffle(order)
            offset = rng.random()
            for pos, i in zip(order, idx, strict=True):
                q = questions[i]
                u = (pos + offset) / len(idx)
                p = quality(q)
                if len(q.gold) == 1:
                    outcome = "exact" if u < p else "zero"
                else:
                    b = min(0.3, 2 * p, 2 * (1 - p))
                    a = p - b / 2
                    outcome = "exact" if u < a else "partial" if u < a + b else "zero"
                if outcome == "zero":
                    variant = zero[z % len(zero)]
                    z += 1
                elif mode == "agentic" and rng.random() < 0.1:
                    variant = "synthetic" if finish_style != "anthropic" else "list"
                elif mode == "agentic" and finish_style == "dict" and rng.random() < 0.4:
                    variant = "dict_args"
                elif mode == "agentic" and len(q.gold) == 1 and rng.random() < 0.15:
                    variant = "string"
                else:
                    variant = "list"
                shape = None
                if shapes and shape_rng.random() < SHAPE_RATE and variant == "list":
                    shape = shape_rng.choice(SHAPES[mode])
                out[(i, run_index)] = Plan(outcome, variant, payload(), shape)
    return [(questions[i], ri, out[(i, ri)]) for (i, ri) in sorted(out)]
