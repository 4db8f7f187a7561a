"""The views that tie the failure labels to the score, the cost and the repeats, on the
ingested demo warehouse: efficiency_frontier and attempt_consistency equal a recomputation
from the raw tables written without the warehouse's code (tests/efficiency_oracle.py), and
failure_profile's points add up to the leaderboard's loss."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests import efficiency_oracle as oracle


def test_the_frontier_equals_a_recomputation(con) -> None:
    want = oracle.frontier(con)
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, score, calls_per_attempt, on_frontier FROM efficiency_frontier"
    ).fetchall()}
    assert set(got) == set(want)
    for run_id, (score, calls, on_frontier) in got.items():
        w = want[run_id]
        assert score == pytest.approx(w["score"], abs=1e-12), run_id
        assert calls == pytest.approx(w["calls_per_attempt"], abs=1e-12), run_id
        assert on_frontier == w["on_frontier"], run_id
    # every board has a frontier, and the demo tree's boards are not all frontier
    assert 0 < sum(w["on_frontier"] for w in want.values()) < len(want)


def test_attempt_consistency_equals_a_recomputation(con) -> None:
    want = oracle.consistency(con)
    got = {(r[0], r[1]): r[2:] for r in con.execute(
        "SELECT run_id, task, n_questions, outcome_agreement, answer_agreement, "
        "tool_sequence_agreement FROM attempt_consistency").fetchall()}
    assert want, "the demo tree has a run with several attempts per question"
    assert set(got) == set(want)
    for cell, (n, outcome, answer, tools) in got.items():
        w = want[cell]
        assert n == w["n_questions"], cell
        assert (outcome, answer, tools) == pytest.approx(
            (w["outcome_agreement"], w["answer_agreement"], w["tool_sequence_agreement"])), cell


def test_the_points_lost_add_up_to_the_leaderboards_loss(con) -> None:
    """Every board result carries at least one label (none when clean): the points lost on
    the clean results plus those lost on the labelled ones are the run's whole loss, n x (1
    - score) of the leaderboard."""
    weights = defaultdict(float)
    for run_id, qid, run_index, score, n in con.execute(
            "SELECT s.run_id, s.qid, s.run_index, s.score, count(*) OVER (PARTITION BY "
            "s.run_id, s.qid) FROM leaderboard_result_scores AS s SEMI JOIN results AS r "
            "USING (run_id, qid, run_index)").fetchall():
        weights[(run_id, qid, run_index)] = (1.0 - score) / n
    labels = defaultdict(set)
    for run_id, qid, run_index, failure in con.execute(
            "SELECT run_id, qid, run_index, failure FROM result_failures").fetchall():
        labels[(run_id, qid, run_index)].add(failure)
    expected: dict[tuple[str, str], float] = defaultdict(float)
    loss_by_run: dict[str, float] = defaultdict(float)
    for key, loss in weights.items():
        loss_by_run[key[0]] += loss
        for failure in labels[key]:
            expected[(key[0], failure)] += loss
    got = {(r, f): p for r, f, p in con.execute(
        "SELECT run_id, failure, points_lost FROM failure_profile WHERE all_tasks").fetchall()}
    assert set(got) == set(expected)
    for cell, points in got.items():
        assert points == pytest.approx(expected[cell], abs=1e-9), cell
    boards = dict(con.execute("SELECT run_id, n_questions * (1 - score) FROM leaderboard "
                              "WHERE run_id IN (SELECT run_id FROM results)").fetchall())
    for run_id, loss in loss_by_run.items():
        assert loss == pytest.approx(boards[run_id], abs=1e-9), run_id


def test_the_per_task_profile_partitions_the_run(con) -> None:
    totals = dict(((r, f), (n, p)) for r, f, n, p in con.execute(
        "SELECT run_id, failure, n_results, points_lost FROM failure_profile WHERE all_tasks"
    ).fetchall())
    summed: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for r, f, n, p in con.execute("SELECT run_id, failure, n_results, points_lost FROM "
                                  "failure_profile WHERE NOT all_tasks").fetchall():
        summed[(r, f)][0] += n
        summed[(r, f)][1] += p
    assert set(summed) == set(totals)
    for cell, (n, p) in totals.items():
        assert summed[cell][0] == n and summed[cell][1] == pytest.approx(p), cell
    shares = con.execute("SELECT min(share), max(share) FROM failure_profile").fetchone()
    assert 0 < shares[0] <= shares[1] <= 1
