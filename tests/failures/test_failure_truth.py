"""The failure labels of the ingested demo warehouse are exactly the failures `etl synth`
planted (its truth file, "failures"): every call's labels and kinds, every result's labels
(the calls' labels counted on their result, the run's own error, none for a clean one)."""

from __future__ import annotations

from collections import defaultdict


def test_every_planted_call_label_and_no_other(con, demo_tree) -> None:
    _, truth = demo_tree
    want = {tuple(c) for c in truth["failures"]["calls"]}
    got = set(con.execute("SELECT run_id, qid, run_index, msg_idx, call_idx, failure, detail "
                          "FROM call_failures").fetchall())
    assert got == want
    assert {c[5] for c in want} >= {"invalid_arguments", "unknown_tool", "tool_error",
                                    "empty_result", "infrastructure"}


def test_every_result_carries_exactly_its_planted_labels(con, demo_tree) -> None:
    _, truth = demo_tree
    want: dict[tuple, set] = defaultdict(set)
    for run_id, qid, run_index, *_, failure, _detail in truth["failures"]["calls"]:
        want[(run_id, qid, run_index)].add(failure)
    for run_id, qid, run_index, failure, _detail, _n in truth["failures"]["results"]:
        want[(run_id, qid, run_index)].add(failure)
    got: dict[tuple, set] = defaultdict(set)
    for run_id, qid, run_index, failure in con.execute(
            "SELECT run_id, qid, run_index, failure FROM result_failures").fetchall():
        got[(run_id, qid, run_index)].add(failure)
    keys = set(con.execute("SELECT run_id, qid, run_index FROM results").fetchall())
    assert set(got) == keys
    for key in keys:
        assert got[key] == (want.get(key) or {"none"}), key
    labels = {f for v in got.values() for f in v}
    assert labels == {f for f, in con.execute("SELECT failure FROM failures").fetchall()}, \
        "the demo tree plants every label"


def test_the_whole_result_labels_with_their_kinds(con, demo_tree) -> None:
    _, truth = demo_tree
    parse_time = {tuple(r) for r in truth["failures"]["results"]
                  if r[3] not in ("infrastructure", "run_error")}
    assert set(con.execute("SELECT run_id, qid, run_index, failure, detail, n_calls "
                           "FROM result_checks").fetchall()) == parse_time
    # the run's own error: its kind is the error_kind the load decides from the error text
    run_level = {tuple(r[:5]) for r in truth["failures"]["results"]
                 if r[3] in ("infrastructure", "run_error")}
    got = set(con.execute(
        "SELECT f.run_id, f.qid, f.run_index, f.failure, f.detail FROM result_failures AS f "
        "JOIN results AS r USING (run_id, qid, run_index) "
        "WHERE r.status = 'error' AND f.failure IN ('infrastructure', 'run_error')").fetchall())
    assert got == run_level


def test_per_run_counts_match_the_truth(con, demo_tree) -> None:
    _, truth = demo_tree
    got: dict[str, dict[str, int]] = defaultdict(dict)
    for run_id, failure, n in con.execute(
            "SELECT run_id, failure, count(*) FROM result_failures GROUP BY ALL").fetchall():
        got[run_id][failure] = n
    assert dict(got) == truth["failures"]["results_per_run"]
