"""Uncertainty views (sql/77_uncertainty.sql, the moments of paired_comparisons) against the
pure-Python statement of docs/STATISTICS.md in tests/uncertainty_oracle.py: clustered
standard errors, paired moments, minimum detectable effect, Benjamini-Hochberg, and
reliability over repeated runs; on Hypothesis-generated boards and on cases worked by hand."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.views import apply_schema, apply_views
from tests import uncertainty_oracle as oracle
from tests.boards import (
    TASKS,
    Meta,
    Runs,
    load,
    single_runs,
)
from tests.budgets import examples


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect()
    apply_schema(connection)
    apply_views(connection)
    yield connection
    connection.close()


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None
         ) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def cluster_of(qid: str, meta: Meta) -> tuple[str, Any]:
    patient = meta[qid][1]
    return ("patient", patient) if patient is not None else ("question", qid)


def assert_matches(row: dict[str, Any], expected: dict[str, Any]) -> None:
    for name, want in expected.items():
        got = row[name]
        if want is None or isinstance(want, bool):
            assert got == want, (name, got, want)
        elif name == "n_needed":
            _assert_ceil(got, expected)
        else:
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (name, got, want)


def _assert_ceil(got: int, expected: dict[str, Any]) -> None:
    # ceil() of a value within rounding of an integer may land on either side of it
    raw = ((oracle.Z_975 + oracle.Z_80) * expected["sd_diff"] / abs(expected["diff"])) ** 2
    if abs(raw - round(raw)) <= 1e-9 * max(1.0, raw):
        assert got in (round(raw), round(raw) + 1), (got, raw)
    else:
        assert got == expected["n_needed"], (got, expected["n_needed"])


# -- generated boards ---------------------------------------------------------------------

SCORES = st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 2 / 3, 1.0])


@st.composite
def boards(draw: st.DrawFn) -> tuple[Meta, dict[str, float], dict[str, float]]:
    """Questions with patients shared in clusters of any size (some with no patient id),
    tasks, and the scores of two runs A and B (ties, constant runs, B missing some)."""
    n = draw(st.integers(1, 24))
    n_patients = draw(st.integers(1, n))
    meta: Meta = {}
    for i in range(n):
        patient = draw(st.integers(0, n_patients - 1))
        known = draw(st.integers(0, 5)) > 0
        meta[f"q{i:02d}"] = (draw(st.sampled_from(sorted(TASKS))),
                             10_000 + patient if known else None)
    qids = sorted(meta)

    def scores() -> dict[str, float]:
        if draw(st.integers(0, 4)) == 0:  # a run that scores every question the same
            constant = draw(SCORES)
            return dict.fromkeys(qids, constant)
        return {q: draw(SCORES) for q in qids}

    a, b = scores(), scores()
    dropped = draw(st.sets(st.sampled_from(qids), max_size=n - 1))
    return meta, a, {q: s for q, s in b.items() if q not in dropped}


def expected_clustered(meta: Meta, scores: dict[str, float], qids: list[str]
                       ) -> dict[str, Any]:
    return oracle.clustered_row([scores[q] for q in qids], [cluster_of(q, meta) for q in qids])


def expected_paired(meta: Meta, a: dict[str, float], b: dict[str, float], qids: list[str]
                    ) -> dict[str, Any]:
    return oracle.paired_row([a[q] for q in qids], [b[q] for q in qids],
                             [cluster_of(q, meta) for q in qids])


@settings(max_examples=examples(35), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(board=boards())
def test_generated_boards_match_the_oracle(con: duckdb.DuckDBPyConnection,
                                           board: tuple[Meta, dict[str, float],
                                                        dict[str, float]]) -> None:
    meta, a, b = board
    load(con, {"a": single_runs(a), "b": single_runs(b)}, meta)
    qids = sorted(a)

    # Clustered standard errors of run A: overall, per task group, per task.
    (overall,) = rows(con, "SELECT * FROM leaderboard_clustered WHERE model = 'a'")
    assert_matches(overall, expected_clustered(meta, a, qids))
    leaderboard = rows(con, "SELECT score FROM leaderboard WHERE model = 'a'")
    assert overall["score"] == pytest.approx(leaderboard[0]["score"], abs=1e-12)
    for row in rows(con, "SELECT * FROM leaderboard_clustered_by_group WHERE model = 'a'"):
        cell = [q for q in qids if TASKS[meta[q][0]] == row["task_group"]]
        assert_matches(row, expected_clustered(meta, a, cell))
    by_task = rows(con, "SELECT * FROM leaderboard_clustered_by_task WHERE model = 'a'")
    assert {r["task"] for r in by_task} == {meta[q][0] for q in qids}
    for row in by_task:
        cell = [q for q in qids if meta[q][0] == row["task"]]
        assert_matches(row, expected_clustered(meta, a, cell))

    # Paired moments of A against B on the shared questions (clusters: A's patients), and
    # the mirror row with the same moments.
    shared = sorted(set(a) & set(b))
    (ab,) = rows(con, "SELECT * FROM model_comparison WHERE model_a = 'a'")
    assert ab["n_shared"] == len(shared)
    assert_matches(ab, expected_paired(meta, a, b, shared))
    (ba,) = rows(con, "SELECT * FROM model_comparison WHERE model_a = 'b'")
    for name in ("correlation", "sd_diff", "se_diff_clustered", "n_clusters", "mde_80",
                 "n_needed", "not_detectable"):
        assert ba[name] == ab[name], name
    cells = rows(con, "SELECT * FROM model_comparison_by_task WHERE model_a = 'a'")
    for row in cells:
        cell = [q for q in shared if meta[q][0] == row["task"]]
        assert_matches(row, expected_paired(meta, a, b, cell))
    # Benjamini-Hochberg across the tasks of the pair.
    adjusted = oracle.benjamini_hochberg([row["p_value"] for row in cells])
    for row, want in zip(cells, adjusted, strict=True):
        assert row["p_bh"] == pytest.approx(want, rel=1e-12)
        assert row["p_value"] <= row["p_bh"] + 1e-15


# -- hand-computed cases ------------------------------------------------------------------

def one_run(scores: list[float], patients: list[int | None]) -> tuple[Runs, Meta]:
    meta = {f"q{i:03d}": ("t1", p) for i, p in enumerate(patients)}
    return {"a": single_runs(dict(zip(meta, scores, strict=True)))}, meta


def test_every_question_its_own_cluster(con: duckdb.DuckDBPyConnection) -> None:
    scores = [0.0, 0.25, 1.0, 0.5, 1.0, 0.0, 1 / 3]
    n = len(scores)
    load(con, *one_run(scores, list(range(n))))
    (row,) = rows(con, "SELECT * FROM leaderboard_clustered")
    assert row["n_clusters"] == n
    assert row["se_clustered"] == pytest.approx(row["se_naive"] * math.sqrt((n - 1) / n),
                                                rel=1e-12)
    assert row["design_effect"] == pytest.approx((n - 1) / n, rel=1e-12)


@pytest.mark.parametrize("n_clusters", [2, 3, 10])
def test_clusters_of_two_equal_questions(con: duckdb.DuckDBPyConnection,
                                         n_clusters: int) -> None:
    # C patients, each with two questions scored alike: design effect (2C - 1) / C.
    per_patient = [(c * 7 % 5) / 4 for c in range(n_clusters)]
    scores = [s for s in per_patient for _ in range(2)]
    patients = [c for c in range(n_clusters) for _ in range(2)]
    load(con, *one_run(scores, patients))
    (row,) = rows(con, "SELECT * FROM leaderboard_clustered")
    assert row["n_clusters"] == n_clusters and row["n_questions"] == 2 * n_clusters
    assert row["design_effect"] == pytest.approx((2 * n_clusters - 1) / n_clusters, rel=1e-12)
    assert row["ci_high"] - row["ci_low"] == pytest.approx(2 * 1.959964 * row["se_clustered"])


def test_one_patient_is_flagged_not_certain(con: duckdb.DuckDBPyConnection) -> None:
    load(con, *one_run([0.0, 1.0, 0.5, 1.0, 0.25], [7, 7, 7, 7, 7]))
    (row,) = rows(con, "SELECT * FROM leaderboard_clustered")
    assert row["se_clustered"] == 0.0 and row["single_cluster"] is True
    assert row["se_naive"] > 0  # the scores do vary: zero is the formula's, not the data's
    assert (row["ci_low"], row["ci_high"], row["design_effect"]) == (None, None, None)


def test_questions_without_patient_are_their_own_clusters(con: duckdb.DuckDBPyConnection
                                                          ) -> None:
    load(con, *one_run([1.0, 1.0, 0.0, 0.0], [None, None, 5, 5]))
    (row,) = rows(con, "SELECT * FROM leaderboard_clustered")
    assert row["n_clusters"] == 3
    # clusters {q0}, {q1}, {q2, q3}; mean 1/2: (1/2)^2 + (1/2)^2 + (-1)^2 = 3/2, / n = 4
    assert row["se_clustered"] == pytest.approx(math.sqrt(1.5) / 4, rel=1e-12)


def test_mde_and_questions_needed_by_hand(con: duckdb.DuckDBPyConnection) -> None:
    # 40 questions of 40 patients: A ahead by 0.5 on 8 of them. d = 0.5 on 8, 0 on 32:
    # diff 0.1, sd_diff = sqrt(8 * 0.4^2 + 32 * 0.1^2) / sqrt(39) = sqrt(1.6 / 39).
    meta = {f"q{i:02d}": ("t1", i) for i in range(40)}
    b = {q: 0.5 for q in meta}
    a = {q: 1.0 if i < 8 else 0.5 for i, q in enumerate(meta)}
    load(con, {"a": single_runs(a), "b": single_runs(b)}, meta)
    (row,) = rows(con, "SELECT * FROM model_comparison WHERE model_a = 'a'")
    sd = math.sqrt(1.6 / 39)
    assert row["sd_diff"] == pytest.approx(sd, rel=1e-12)
    assert row["mde_80"] == pytest.approx(2.801585 * sd / math.sqrt(40), rel=1e-12)
    assert row["n_needed"] == math.ceil((2.801585 * sd / 0.1) ** 2) == 33
    assert row["not_detectable"] is False  # 0.1 > mde_80 = 0.0897
    assert row["correlation"] is None  # B scores every question 0.5
    load(con, {"a": single_runs(b), "b": single_runs(dict(b))}, meta)
    (same,) = rows(con, "SELECT * FROM model_comparison WHERE model_a = 'a'")
    assert same["n_needed"] is None and same["not_detectable"] is True
    assert (same["sd_diff"], same["mde_80"], same["se_diff_clustered"]) == (0.0, 0.0, 0.0)


# -- reliability over repeated runs -------------------------------------------------------

def test_pass_hat_k_as_tau_bench_defines_it(con: duckdb.DuckDBPyConnection) -> None:
    """tau-bench (Yao et al. 2024, arXiv 2406.12045; sierra-research/tau-bench
    tau_bench/run.py display_metrics): pass^k = mean over tasks of C(c, k) / C(n, k).
    Three questions of four runs, c = 4, 2, 0 exactly right; a run with F1 0.8 is not."""
    runs = {"a": {
        "q0": [(1.0, 1.0)] * 4,
        "q1": [(1.0, 1.0), (0.8, 0.0), (1.0, 1.0), (0.0, 0.0)],
        "q2": [(0.5, 0.0), (0.8, 0.0), (0.0, 0.0), (0.25, 0.0)],
    }}
    load(con, runs, {"q0": ("t1", 1), "q1": ("t1", 2), "q2": ("t3", 3)})
    got = {r["k"]: r for r in rows(con, "SELECT * FROM leaderboard_reliability")}
    # By hand: k=1 (1 + 2/4 + 0) / 3; k=2 (1 + 1/6 + 0) / 3; k=3, 4: (1 + 0 + 0) / 3.
    by_hand = {1: 0.5, 2: 7 / 18, 3: 1 / 3, 4: 1 / 3}
    assert sorted(got) == [1, 2, 3, 4]
    outcomes = [[exact == 1.0 for _, exact in attempts] for attempts in runs["a"].values()]
    scores = [[score for score, _ in attempts] for attempts in runs["a"].values()]
    for k, want in by_hand.items():
        assert got[k]["pass_hat_k"] == pytest.approx(want, rel=1e-12)
        assert got[k]["pass_hat_k"] == pytest.approx(oracle.pass_hat_k(outcomes, k), rel=1e-12)
        assert got[k]["worst_of_k"] == pytest.approx(oracle.worst_of_k(scores, k), rel=1e-12)
        assert got[k]["n_questions"] == 3
        # two runs of q1 disagree in 4 of its 6 pairs; q0 and q2 never
        assert got[k]["flip_rate"] == pytest.approx((0 + 4 / 6 + 0) / 3, rel=1e-12)
    # k = 1: the mean score (worst of one run is the run)
    assert got[1]["worst_of_k"] == pytest.approx((4 + 2.8 + 1.55) / 12, rel=1e-12)


@st.composite
def repeated_runs(draw: st.DrawFn) -> list[list[tuple[float, float]]]:
    """Questions with 1 to 5 runs each, at least one with 2 or more; scores with ties."""
    questions = draw(st.lists(st.lists(SCORES, min_size=1, max_size=5), min_size=1,
                              max_size=6))
    if all(len(q) == 1 for q in questions):
        questions[0] = questions[0] * 2
    return [[(s, float(s == 1.0)) for s in q] for q in questions]


@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(questions=repeated_runs())
def test_generated_repeated_runs_match_enumeration(con: duckdb.DuckDBPyConnection,
                                                   questions: list[list[tuple[float, float]]]
                                                   ) -> None:
    meta = {f"q{i}": ("t1", i) for i in range(len(questions))}
    load(con, {"a": dict(zip(meta, questions, strict=True))}, meta, compare=False)
    got = {r["k"]: r for r in rows(con, "SELECT * FROM leaderboard_reliability")}
    outcomes = [[exact == 1.0 for _, exact in q] for q in questions]
    scores = [[score for score, _ in q] for q in questions]
    assert sorted(got) == list(range(1, max(len(q) for q in questions) + 1))
    for k, row in got.items():
        assert row["n_questions"] == sum(len(q) >= k for q in questions)
        assert row["pass_hat_k"] == pytest.approx(oracle.pass_hat_k(outcomes, k), abs=1e-12)
        assert row["worst_of_k"] == pytest.approx(oracle.worst_of_k(scores, k), abs=1e-12)
        assert row["flip_rate"] == pytest.approx(oracle.flip_rate(outcomes), abs=1e-12)


def test_runs_with_one_run_per_question_have_no_reliability_rows(
        con: duckdb.DuckDBPyConnection) -> None:
    load(con, *one_run([1.0, 0.0, 0.5], [1, 2, 3]))
    assert rows(con, "SELECT * FROM leaderboard_reliability") == []
