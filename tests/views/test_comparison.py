"""Paired comparisons (paired_comparisons and the views of sql/70_comparison.sql) on
hand-made per-question scores with known answers, each number recomputed by the pure-Python
statement of docs/STATISTICS.md in tests/comparison_oracle.py."""

from __future__ import annotations

import duckdb
import pytest

from etl.comparison import RESAMPLES, SEED, build_comparisons
from tests import comparison_oracle as oracle
from tests.boards import make_warehouse


def comparison(con: duckdb.DuckDBPyConnection, a: str, b: str, view: str = "model_comparison"
               ) -> dict:
    cursor = con.execute(f"SELECT * FROM {view} WHERE model_a = ? AND model_b = ?", [a, b])
    names = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    assert len(rows) == 1, rows
    return dict(zip(names, rows[0], strict=True))


QIDS = [f"q{i:03d}" for i in range(40)]


def test_identical_models_diff_zero_p_one() -> None:
    same = {q: (i % 5) / 4 for i, q in enumerate(QIDS)}
    con = make_warehouse({("m1", "agentic"): same, ("m2", "agentic"): dict(same)})
    row = comparison(con, "m1", "m2")
    assert row["n_shared"] == 40
    assert row["diff"] == 0.0
    assert (row["ci_low"], row["ci_high"]) == (0.0, 0.0)
    assert row["p_value"] == 1.0 and row["p_adjusted"] == 1.0
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (0, 0, 40)


def test_better_on_every_question() -> None:
    low = {q: 0.2 + (i % 3) * 0.1 for i, q in enumerate(QIDS)}
    high = {q: s + 0.3 + (i % 4) * 0.05 for i, (q, s) in enumerate(low.items())}
    con = make_warehouse({("good", "agentic"): high, ("bad", "agentic"): low})
    row = comparison(con, "good", "bad")
    diffs = {q: high[q] - low[q] for q in QIDS}
    assert row["diff"] == pytest.approx(sum(diffs.values()) / 40, abs=1e-12)
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (40, 0, 0)
    assert row["p_value"] == pytest.approx(2 * 0.5**40, rel=1e-9)
    assert row["p_value"] == pytest.approx(oracle.sign_test(40, 0), rel=1e-9)
    low_ci, high_ci = oracle.bootstrap_interval(diffs, SEED, RESAMPLES)
    assert row["ci_low"] == pytest.approx(low_ci, abs=1e-9)
    assert row["ci_high"] == pytest.approx(high_ci, abs=1e-9)
    assert 0.3 < row["ci_low"] < row["diff"] < row["ci_high"] < 0.5
    mirror = comparison(con, "bad", "good")
    assert mirror["diff"] == pytest.approx(-row["diff"])
    assert (mirror["ci_low"], mirror["ci_high"]) == pytest.approx((-high_ci, -low_ci), abs=1e-9)


def test_tie_heavy_pair_and_partial_coverage() -> None:
    # 40 questions, 34 ties, A wins 5 and loses 1; B lacks 4 questions (not shared).
    a = {q: 0.5 for q in QIDS}
    b = dict(a)
    for q in QIDS[:5]:
        a[q] = 1.0
    b[QIDS[5]] = 1.0
    for q in QIDS[-4:]:
        del b[q]
    con = make_warehouse({("a", "oneshot"): a, ("b", "oneshot"): b})
    row = comparison(con, "a", "b")
    assert row["n_shared"] == 36
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (5, 1, 30)
    # 2 * P(X <= 1), X ~ Bin(6, 1/2) = 2 * 7/64, by hand.
    assert row["p_value"] == pytest.approx(14 / 64, rel=1e-12)
    diffs = {q: a[q] - b[q] for q in b}
    assert row["diff"] == pytest.approx(sum(diffs.values()) / 36, abs=1e-12)
    low_ci, high_ci = oracle.bootstrap_interval(diffs, SEED, RESAMPLES)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low_ci, high_ci), abs=1e-9)


def test_groups_tasks_holm_and_mode_delta() -> None:
    tasks = {q: (("risk_prediction", f"r{i % 2}") if i < 20 else ("decision_making", "d0"))
             for i, q in enumerate(QIDS)}
    base = {q: (i * 7 % 11) / 10 for i, q in enumerate(QIDS)}
    plus = {q: min(1.0, s + (0.4 if i % 3 else 0.0)) for i, (q, s) in enumerate(base.items())}
    minus = {q: max(0.0, s - (0.2 if i % 2 else 0.0)) for i, (q, s) in enumerate(base.items())}
    con = make_warehouse({("x", "agentic"): plus, ("y", "agentic"): base,
                          ("z", "agentic"): minus, ("x", "oneshot"): base}, tasks)
    models = {"x": plus, "y": base, "z": minus}
    pairs = [("x", "y"), ("x", "z"), ("y", "z")]
    p_raw = []
    for a, b in pairs:
        d = {q: models[a][q] - models[b][q] for q in QIDS}
        wins = sum(v > 1e-12 for v in d.values()), sum(v < -1e-12 for v in d.values())
        p_raw.append(oracle.sign_test(*wins))
    for (a, b), p, p_adj in zip(pairs, p_raw, oracle.holm(p_raw), strict=True):
        row = comparison(con, a, b)
        assert row["p_value"] == pytest.approx(p, rel=1e-9)
        assert row["p_adjusted"] == pytest.approx(p_adj, rel=1e-9)
    # One task cell, recomputed on its questions only.
    cursor = con.execute("SELECT n_shared, diff, ci_low, ci_high, p_value, small_n "
                         "FROM model_comparison_by_task WHERE model_a = 'x' AND model_b = 'z' "
                         "AND task = 'r1'")
    n, diff, lo, hi, p, small = cursor.fetchone()
    d = {q: plus[q] - minus[q] for q in QIDS if tasks[q][1] == "r1"}
    assert n == 10 and small is True
    assert diff == pytest.approx(sum(d.values()) / 10, abs=1e-12)
    assert (lo, hi) == pytest.approx(oracle.bootstrap_interval(d, SEED, RESAMPLES), abs=1e-9)
    wins = sum(v > 1e-12 for v in d.values()), sum(v < -1e-12 for v in d.values())
    assert p == pytest.approx(oracle.sign_test(*wins), rel=1e-9)
    # Agentic minus one-shot of model x, per group.
    cursor = con.execute("SELECT n_shared, delta, ci_low, ci_high FROM mode_delta_paired "
                         "WHERE model = 'x' AND scope = 'group' AND task_group = 'decision_making'")
    n, delta, lo, hi = cursor.fetchone()
    d = {q: plus[q] - base[q] for q in QIDS if tasks[q][0] == "decision_making"}
    assert n == 20
    assert delta == pytest.approx(sum(d.values()) / 20, abs=1e-12)
    assert (lo, hi) == pytest.approx(oracle.bootstrap_interval(d, SEED, RESAMPLES), abs=1e-9)


def test_rebuild_gives_the_same_numbers() -> None:
    a = {q: (i % 4) / 3 for i, q in enumerate(QIDS)}
    b = {q: (i % 5) / 4 for i, q in enumerate(QIDS)}
    con = make_warehouse({("a", "agentic"): a, ("b", "agentic"): b})
    first = con.execute("SELECT * FROM paired_comparisons ORDER BY ALL").fetchall()
    build_comparisons(con)
    assert con.execute("SELECT * FROM paired_comparisons ORDER BY ALL").fetchall() == first


def rank_groups(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    return dict(con.execute("SELECT model, rank_group FROM leaderboard_ranked").fetchall())


def test_rank_groups_split_when_a_planted_model_is_clearly_better() -> None:
    qids = [f"q{i:03d}" for i in range(60)]
    # Three close models: every pair differs on a handful of questions only.
    a = {q: (i % 4) / 4 for i, q in enumerate(qids)}
    b = {q: s if i % 10 else max(0.0, s - 0.25) for i, (q, s) in enumerate(a.items())}
    c = {q: s if i % 12 else max(0.0, s - 0.25) for i, (q, s) in enumerate(b.items())}
    close = make_warehouse({("a", "agentic"): a, ("b", "agentic"): b, ("c", "agentic"): c})
    assert rank_groups(close) == {"a": 1, "b": 1, "c": 1}
    # Plant a model that beats each of them on 50 of 60 questions: it alone is group 1.
    star = {q: min(1.0, s + 0.5) if i % 6 else s for i, (q, s) in enumerate(a.items())}
    planted = make_warehouse({("a", "agentic"): a, ("b", "agentic"): b, ("c", "agentic"): c,
                              ("star", "agentic"): star})
    groups = rank_groups(planted)
    assert groups["star"] == 1
    assert groups["a"] == groups["b"] == groups["c"] == 2
    row = comparison(planted, "star", "a")
    assert row["p_adjusted"] < 0.05 and row["wins_a"] == 50


def test_low_coverage_flag_and_common_board() -> None:
    a = {q: 1.0 for q in QIDS}
    b = {q: 0.0 for q in QIDS[:30]}  # a damaged run: 30 of 40 questions
    con = make_warehouse({("a", "agentic"): a, ("b", "agentic"): b})
    flags = dict(con.execute("SELECT model, low_coverage FROM leaderboard_ranked").fetchall())
    assert flags == {"a": False, "b": True}
    common = con.execute("SELECT model, n_questions FROM leaderboard_common ORDER BY model")
    assert common.fetchall() == [("a", 30), ("b", 30)]
