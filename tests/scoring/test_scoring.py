"""set_f1 scorer: small examples with the arithmetic written out, plus property checks."""

from __future__ import annotations

import itertools
import random

import pytest

from etl.scoring.normalized import gold_items, prediction_items, set_f1


def test_partial_overlap_arithmetic() -> None:
    # P = {a, b, c}, G = {b, c, d, e}: |P∩G| = 2 -> precision 2/3, recall 2/4,
    # F1 = 2 * (2/3) * (1/2) / (2/3 + 1/2) = (2/3) / (7/6) = 4/7.
    score = set_f1(["a", "b", "c"], ["b", "c", "d", "e"])
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(2 / 4)
    assert score.f1 == pytest.approx(4 / 7)
    assert score.exact_match == 0.0
    assert (score.n_pred, score.n_gold) == (3, 4)


def test_equal_sets_score_one_and_order_does_not_matter() -> None:
    score = set_f1(["x", "y"], ["y", "x"])
    assert (score.precision, score.recall, score.f1, score.exact_match) == (1, 1, 1, 1)


def test_no_overlap_scores_zero() -> None:
    score = set_f1(["a"], ["b"])
    assert (score.precision, score.recall, score.f1, score.exact_match) == (0, 0, 0, 0)


def test_empty_prediction_scores_zero_even_against_empty_gold() -> None:
    assert set_f1([], ["a"]).f1 == 0.0
    empty = set_f1([], [])
    assert (empty.precision, empty.recall, empty.f1, empty.exact_match) == (0, 0, 0, 0)


def test_empty_gold_with_an_answer_scores_zero() -> None:
    score = set_f1(["a"], [])
    assert (score.precision, score.recall, score.f1, score.exact_match) == (0, 0, 0, 0)
    assert score.n_gold == 0


def test_error_status_scores_zero_whatever_the_answer() -> None:
    score = set_f1(["a"], ["a"], status="error")
    assert (score.precision, score.recall, score.f1, score.exact_match) == (0, 0, 0, 0)
    assert set_f1(["a"], ["a"], status="incomplete").f1 == 1.0


def test_gold_shapes() -> None:
    assert gold_items("  Sepsis ") == ["sepsis"]
    assert gold_items(["A", "b ", "a"]) == ["a", "b"]
    assert gold_items([{"name": "Aspirin"}, {"name": "Heparin", "value": 1}]) == [
        "aspirin", "heparin"]
    # atc_name wins for the whole list once any object has one; an object without it
    # falls back to its name.
    assert gold_items([{"name": "Aspirin", "atc_name": "B01AC06"}, {"name": "Heparin"}]) == [
        "b01ac06", "heparin"]
    assert gold_items(None) == []
    assert gold_items(1) == ["1"]


def test_prediction_shapes() -> None:
    assert prediction_items(["X ", " y", 3]) == ["x", "y", "3"]
    assert prediction_items("Only One") == ["only one"]
    assert prediction_items(2.5) == ["2.5"]
    assert prediction_items(True) == ["true"]
    assert prediction_items(None) == []


def test_prediction_edge_items() -> None:
    # blank strings and nulls are dropped; nested lists are flattened
    assert prediction_items(["a", "  ", "", None, ["b", ["c"]]]) == ["a", "b", "c"]
    # an object item counts by its name, or as its JSON text when it has none
    assert prediction_items([{"name": "Foo"}, {"code": 1}]) == ["foo", '{"code":1}']
    assert prediction_items("   ") == []


def test_properties_on_random_sets() -> None:
    rng = random.Random(7)
    universe = ["a", "b", "c", "d", "e", "f"]
    for _ in range(300):
        pred = rng.sample(universe, rng.randint(0, 6))
        gold = rng.sample(universe, rng.randint(0, 6))
        score = set_f1(pred, gold)
        for value in (score.precision, score.recall, score.f1, score.exact_match):
            assert 0.0 <= value <= 1.0
        # F1 is the harmonic mean, so it never exceeds either side
        assert score.f1 <= max(score.precision, score.recall) + 1e-12
        assert score.f1 >= min(score.precision, score.recall) - 1e-12 or score.f1 == 0
        assert (score.exact_match == 1.0) == (bool(pred) and set(pred) == set(gold))
        # symmetric in the sense that swapping swaps precision and recall
        if pred and gold:
            swapped = set_f1(gold, pred)
            assert swapped.precision == pytest.approx(score.recall)
            assert swapped.f1 == pytest.approx(score.f1)


def test_equal_non_empty_sets_always_give_one() -> None:
    for size in range(1, 5):
        for items in itertools.combinations("abcdef", size):
            assert set_f1(items, reversed(items)).f1 == 1.0
