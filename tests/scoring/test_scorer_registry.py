"""The scorer registry (etl/scoring/registry.py) is the one home of the scorers: every scorer
the warehouse holds rows of is registered and described, every scorer the SQL names is
registered, a broken entry is refused by name, and a new scorer needs its module plus one
registry entry and nothing else (a copy of the package with one added ingests it onto the
boards)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import duckdb
import pytest

from etl import glossary
from etl.scoring import registry
from etl.scoring.registry import SCORERS, RegistryError, Scorer
from tests.package_copy import copy_package, ingest_with

PROJECT = Path(__file__).resolve().parents[2]

# A comparison of a scorer column with string literals: scorer = 'x', scorer <> 'x',
# scorer IN ('x', 'y'), source_scorer ... (route, kind and the other columns are not scorers).
_SCORER_EQ = re.compile(r"\b(?:\w+\.)?(?:source_)?scorer\s*(?:=|<>|!=)\s*'([^']*)'", re.I)
_SCORER_IN = re.compile(r"\b(?:\w+\.)?(?:source_)?scorer\s+(?:NOT\s+)?IN\s*\(([^()]*)\)", re.I)
_LITERAL = re.compile(r"'([^']*)'")
_LINE_COMMENT = re.compile(r"--[^\n]*")
_COMMENT_ON = re.compile(r"COMMENT ON .*?';\s*$", re.I | re.M | re.S)


def _scorer_literals(sql: str) -> set[str]:
    """The string literals a scorer column is compared with, outside comments."""
    code = _COMMENT_ON.sub("", _LINE_COMMENT.sub("", sql))
    names = set(_SCORER_EQ.findall(code))
    for inside in _SCORER_IN.findall(code):
        if not inside.lstrip().upper().startswith("SELECT"):  # a list, not a subquery
            names.update(_LITERAL.findall(inside))
    return names


def test_every_scorer_named_in_the_sql_is_registered() -> None:
    files = sorted((PROJECT / "sql").rglob("*.sql"))
    named = {path.relative_to(PROJECT).as_posix(): _scorer_literals(path.read_text())
             for path in files}
    registered = {s.name for s in SCORERS}
    unknown = {path: names - registered for path, names in named.items() if names - registered}
    assert not unknown, f"scorer names in sql/ that etl/scoring/registry.py lacks: {unknown}"
    # the scan finds what it looks for (a comparison the views do make)
    assert "set_f1" in named["sql/60_lineage.sql"]


def test_the_scan_of_the_sql_sees_every_form_of_comparison() -> None:
    sql = ("SELECT 1 FROM q WHERE q.scorer = 'a' AND scorer <> 'b' OR s.source_scorer IN "
           "('c', 'd') AND scorer NOT IN ('e') AND route = 'f' -- scorer = 'g'\n"
           "AND scorer IN (SELECT scorer FROM scorers WHERE default_for = 'text')")
    assert _scorer_literals(sql) == {"a", "b", "c", "d", "e"}


def test_every_scorer_of_the_warehouse_is_registered_and_described(demo_db: Path) -> None:
    with duckdb.connect(str(demo_db), read_only=True) as con:
        held = {r[0] for r in con.execute(
            "SELECT scorer FROM question_scores UNION SELECT scorer FROM line_scores"
        ).fetchall()}
        table = {r[0]: r[1:] for r in con.execute(
            "SELECT scorer, title, description, question_rows, line_rows, file_kinds "
            "FROM scorers").fetchall()}
        kinds_loaded = {r[0] for r in con.execute("SELECT DISTINCT kind FROM files").fetchall()}
        question_rows = dict(con.execute(
            "SELECT scorer, count(*) FROM question_scores GROUP BY scorer").fetchall())
        line_rows = dict(con.execute(
            "SELECT scorer, count(*) FROM line_scores GROUP BY scorer").fetchall())
    assert set(table) == {s.name for s in SCORERS}
    assert held <= set(table), f"rows of unregistered scorers: {held - set(table)}"
    for name, (title, description, q_source, line_source, file_kinds) in table.items():
        assert title and description, name
        assert glossary.scorer_name(name) == title
        assert glossary.scorer_description(name) == description
        # a registered scorer makes rows wherever its input exists in the demo tree
        if q_source == "result" or line_source == "results_line":
            needed = True
        else:
            needed = bool(set(file_kinds.split(", ")) & kinds_loaded)
        if needed and q_source is not None:
            assert question_rows.get(name, 0) > 0, f"{name} made no question_scores rows"
        if needed and line_source is not None:
            assert line_rows.get(name, 0) > 0, f"{name} made no line_scores rows"


def _entry(name: str) -> Scorer:
    return next(s for s in SCORERS if s.name == name)


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: (*s, _entry("set_f1")), "registered twice"),
    (lambda s: tuple(dataclasses.replace(x, description="") if x.name == "scored" else x
                     for x in s), "needs a title and a description"),
    (lambda s: tuple(dataclasses.replace(x, score_result=None) if x.name == "set_f1" else x
                     for x in s), "makes no rows"),
    (lambda s: tuple(dataclasses.replace(x, default_rank=1) if x.name == "scored" else x
                     for x in s), "distinct default_rank"),
    (lambda s: tuple(dataclasses.replace(x, status_rule="sometimes") if x.name == "scored"
                     else x for x in s), "status_rule must be one of"),
])
def test_a_broken_registry_is_refused_by_name(change, message: str) -> None:
    registry.check(SCORERS)  # the real one passes
    with pytest.raises(RegistryError, match=message):
        registry.check(change(SCORERS))


# The new scorer of the test below: one module, as a contributor would write it.
_NEW_MODULE = '''"""Scorer always_half: a rule every result scores 0.5 under (a test's scorer)."""

from etl.scoring.base import ResultInput, ScoreColumns


def score_result(result: ResultInput) -> ScoreColumns:
    return {"f1": 0.5, "precision": 0.5, "recall": 0.5, "exact_match": 0.0}
'''
_NEW_ENTRY = '''    Scorer(
        "always_half", "always one half",
        "A test's scorer: every result scores 0.5 whatever its status.",
        score_result=always_half.score_result, extra=True, status_rule=AS_SCORED),
'''


def test_a_new_scorer_is_one_module_and_one_registry_entry(demo_tree, tmp_path: Path) -> None:
    """Copy the package, add a module and one entry to SCORERS, ingest the demo tree with the
    copy: the new scorer scores every result, is in table scorers with its words, and every
    leaderboard run shows it beside its default with the rule's number."""
    copy = copy_package(tmp_path)
    (copy / "etl" / "scoring" / "always_half.py").write_text(_NEW_MODULE)
    source = (copy / "etl" / "scoring" / "registry.py").read_text()
    head = "SCORERS: tuple[Scorer, ...] = (\n"
    assert source.count(head) == 1 and source.count("    authors_files,\n") == 1
    source = source.replace("    authors_files,\n", "    always_half,\n    authors_files,\n")
    (copy / "etl" / "scoring" / "registry.py").write_text(
        source.replace(head, head + _NEW_ENTRY))

    db = tmp_path / "warehouse.duckdb"
    ingest_with(copy, demo_tree[0], db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT title, description, module FROM scorers "
                           "WHERE scorer = 'always_half'").fetchall() == [(
            "always one half", "A test's scorer: every result scores 0.5 whatever its status.",
            "etl/scoring/always_half.py")]
        # one row per result record scored at parse time, as for the other per-result
        # scorers (set_f1 is computed for every result)
        per_result = ("SELECT file_id, line_no, qid, run_index FROM question_scores "
                      "WHERE scorer = ? ORDER BY ALL")
        new_rows = con.execute(per_result, ["always_half"]).fetchall()
        assert new_rows and new_rows == con.execute(per_result, ["set_f1"]).fetchall()
        # on the boards: beside every leaderboard run's default, 0.5 on every result; a
        # scored-only run has no results for a per-result scorer to score, so none is shown
        # beside its default
        runs = con.execute("SELECT count(*) FROM leaderboard_runs "
                           "WHERE NOT scored_elsewhere").fetchone()[0]
        shown = con.execute("SELECT count(*) FROM leaderboard_scorers "
                            "WHERE scorer = 'always_half' AND NOT is_default").fetchone()[0]
        assert runs > 0 and shown == runs
        # every board result has its row (0.5, as_scored whatever the status) exactly where
        # the per-result scorer set_f1 has one (a result without any parsed record scores 0
        # under every per-result scorer)
        got = con.execute("""
            SELECT n.source_score IS NOT NULL AS has_row, n.score, s.source_score IS NOT NULL
            FROM leaderboard_result_scores_all AS n
            JOIN leaderboard_result_scores_all AS s USING (run_id, qid, run_index)
            WHERE n.scorer = 'always_half' AND s.scorer = 'set_f1'""").fetchall()
        results = con.execute("SELECT count(*) FROM leaderboard_result_scores_all AS d "
                              "JOIN leaderboard_runs AS r USING (run_id) "
                              "WHERE d.is_default AND NOT r.scored_elsewhere").fetchone()[0]
    assert len(got) == results and sum(has_row for has_row, _, _ in got) > results / 2
    for has_row, score, set_f1_has_row in got:
        assert has_row == set_f1_has_row and score == (0.5 if has_row else 0.0)
