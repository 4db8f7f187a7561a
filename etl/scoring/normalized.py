"""Scorer ``set_f1``: the project's normalized rule, kept beside the authors' scorers so the
cost of each rule stays visible (view scorer_disagreements). Its items are also the
normalized reading of every result (results.gold, results.prediction_items: etl/normalize.py).

set_f1 rules (DESIGN.md "Scores", FORMATS.md §4): every item becomes ``str(x).strip().lower()``;
precision = |P∩G|/|P|, recall = |P∩G|/|G|, F1 their harmonic mean, exact match = set
equality. Edge cases this module settles (the authors' docs are silent on them):

- An empty prediction scores 0 on every measure, exact match included: a run that gave no
  answer never matches, even a question whose gold is empty too.
- Empty gold with a non-empty prediction: nothing can match, so precision, recall and F1
  are 0 (recall is defined as 0 rather than 0/0).
- Items that are blank after stripping, and null items, are dropped from both sets.
- Nested lists are flattened: ``[["a", "b"], "c"]`` is the set {a, b, c}.
- An object item is reduced to its ``name`` (gold: ``atc_name`` when any object of the list
  has one, falling back to ``name`` for an object without it); an object with neither key
  becomes its compact JSON text, so it still counts as one (unmatched) item.
- Booleans and numbers become their Python text (``True`` -> "true", ``2`` -> "2").
- A prediction that is a single object is one item under the same object rule.
- Error rows score 0 whatever their messages hold (the caller passes ``status``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from etl.scoring.base import ResultInput, ScoreColumns
from etl.values import json_text

NAME = "set_f1"


@dataclass(slots=True, frozen=True)
class SetScore:
    precision: float
    recall: float
    f1: float
    exact_match: float
    n_pred: int
    n_gold: int


def _item_text(item: Any, object_key: str | None) -> str | None:
    """One item as a normalized string, or None when it contributes nothing."""
    if item is None:
        return None
    if isinstance(item, str):
        text = item
    elif isinstance(item, dict):
        value = None
        if object_key is not None:
            value = item.get(object_key)
        if value is None:
            value = item.get("name")
        if value is None:
            text = orjson.dumps(item, option=orjson.OPT_SORT_KEYS).decode()
        elif isinstance(value, str):
            text = value
        else:
            text = str(value)
    else:
        text = str(item)
    text = text.strip().lower()
    return text or None


def _flatten(items: Iterable[Any]) -> Iterable[Any]:
    for item in items:
        if isinstance(item, list):
            yield from _flatten(item)
        else:
            yield item


def _items(value: Any, object_key: str | None) -> list[str]:
    """Normalized, de-duplicated items in first-seen order (order kept for readable JSON)."""
    if value is None:
        return []
    if not isinstance(value, list):
        one = _item_text(value, object_key)
        return [one] if one is not None else []
    seen: dict[str, None] = {}
    for item in _flatten(value):
        text = _item_text(item, object_key)
        if text is not None:
            seen[text] = None
    return list(seen)


def gold_items(label: Any) -> list[str]:
    """Gold from ``label``: a string, a list of strings, or a list of objects reduced to
    ``name`` (to ``atc_name`` when any object of the list has one)."""
    object_key = None
    if isinstance(label, list) and any(
        isinstance(x, dict) and x.get("atc_name") is not None for x in label
    ):
        object_key = "atc_name"
    return _items(label, object_key)


def prediction_items(response: Any) -> list[str]:
    """Prediction from the finish call's ``response``: a list (each item as text), a
    string (one item), a number (its text); None (missing / unparsable) -> []."""
    return _items(response, None)


def set_f1(pred: Iterable[str], gold: Iterable[str], status: str | None = None) -> SetScore:
    """Score normalized prediction items against normalized gold items."""
    p = set(pred)
    g = set(gold)
    if status == "error" or not p:
        return SetScore(0.0, 0.0, 0.0, 0.0, len(p), len(g))
    hits = len(p & g)
    precision = hits / len(p)
    recall = hits / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return SetScore(precision, recall, f1, 1.0 if p == g else 0.0, len(p), len(g))


def score_result(result: ResultInput) -> ScoreColumns:
    """set_f1 of one result over its normalized items (results.gold, results.prediction_items);
    every number NULL when either cannot be read (etl/normalize.py names the problem)."""
    pred, gold = result.prediction_items, result.gold_items
    if pred is None or gold is None:
        numbers: ScoreColumns = dict.fromkeys(
            ("precision", "recall", "f1", "exact_match", "correct", "n_pred", "n_gold"))
    else:
        score = set_f1(pred, gold, result.status)
        numbers = {"precision": score.precision, "recall": score.recall, "f1": score.f1,
                   "exact_match": score.exact_match, "correct": score.exact_match,
                   "n_pred": score.n_pred, "n_gold": score.n_gold}
    return {"route": NAME, **numbers, "status": result.status, "predictions": json_text(pred)}
