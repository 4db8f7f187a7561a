"""No rule of Python's typed again in SQL: the names the Python homes own (benchmarks:
etl/benchmarks.py; statuses: etl/statuses.py; tasks and their groups: etl/tasks.py; scorers:
etl/scoring/registry.py) reach sql/ as tables (benchmarks, result_statuses, tasks,
paper_taxonomy, paper_task_names, scorers), not as string literals. A literal is allowed only
where this file's allow-list names the file, the literal and the reason it is not a copy of
a rule (a count by status, a reconciliation checking one scorer's own numbers, the paper's
chain that treats its benchmarks apart, a spelling that means something else in its column).

Comments and COMMENT ON statements are documentation, not rules: they are not read."""

from __future__ import annotations

import re
from pathlib import Path

from sqlglot.dialects.duckdb import DuckDB
from sqlglot.tokens import TokenType

from etl import tasks
from etl.benchmarks import FULL_SPLITS
from etl.schema import SQL_DIR
from etl.scoring.registry import SCORERS
from etl.statuses import STATUS_MAP

# (file relative to sql/, literal) -> why it is not a rule typed again
ALLOWED: dict[tuple[str, str], str] = {
    # counts by the status vocabulary of results.status (DESIGN.md): what is counted is the
    # status itself, not a rule about it
    ("10_leaderboard.sql", "error"): "n_error_runs counts the attempts whose status is error",
    ("30_coverage.sql", "error"): "coverage counts results and questions with status error",
    ("30_coverage.sql", "incomplete"): "coverage counts results with status incomplete",
    ("72_error_class.sql", "success"): "the error kind of a result without one: none for a "
                                       "success (a fallback for a warehouse filled another way)",
    ("72_error_class.sql", "incomplete"): "the error kind of a result without one: no final "
                                          "answer for an incomplete result",
    ("load/error_kind.sql", "success"): "the error kind of a result: none for a success",
    ("load/error_kind.sql", "incomplete"): "the error kind of a result: no final answer for "
                                           "an incomplete result",
    ("86_failures.sql", "error"): "label run_error marks the results whose status is error "
                                  "(the label is the status itself, not a rule about it)",
    ("60_lineage.sql", "success"): "fixed / broke: a retry that now succeeds or no longer does "
                                   "(the lineage's own words for a change of status)",
    # the same spelling, another vocabulary
    ("10_leaderboard.sql", "incomplete"): "route incomplete of the authors' multimodal score "
                                          "rows (score_multimodal.py), not a result status",
    ("50_reconciliation.sql", "incomplete"): "the authors' route incomplete and their summary "
                                             "metrics named incomplete (score_multimodal.py)",
    ("50_reconciliation.sql", "error"): "rejects.severity error of a score file, not a status",
    ("50_reconciliation.sql", "set_f1"): "route set_f1 of the authors' multimodal score rows",
    ("queries/report_reject_lines.sql", "error"): "rejects.severity error, not a status",
    ("redact/redact.sql", "error"): "the column named error of results and rejects",
    ("82_paper.sql", "scored"): "the file kind scored (files.kind) the paper's chain prefers",
    ("82_paper.sql", "rescored"): "the file kind rescored (files.kind), its fallback",
    # raw spellings the writers of a version wrote: the rule is about the spelling itself
    ("48_helper_recompute.sql", "success"): "the helper scripts' status filter as they read "
                                            "raw_status (success only), not the status map",
    ("48_helper_recompute.sql", "incomplete"): "the helper scripts' raw_status test "
                                               "(repair_diagnoses_ccs_results.py)",
    ("60_lineage.sql", "ok"): "which writer version wrote a run: one-shot writers spell "
                              "success ok (archive_match's writer rule)",
    ("60_lineage.sql", "incomplete"): "which writer version wrote a run (raw spellings)",
    # a reconciliation checking one scorer's own numbers, or a view about one scorer
    ("48_helper_recompute.sql", "ccs_helper"): "recomputes the numbers of the helper "
                                               "scorer's own scores.json",
    ("50_reconciliation.sql", "scored"): "reconciles the authors' summary.json with their "
                                         "own scored rows",
    ("50_reconciliation.sql", "rescored"): "reconciles the authors' summary_vocab.json with "
                                           "their own rescored rows",
    ("50_reconciliation.sql", "per_question"): "reconciles scores.json with the text "
                                               "scorer's own per_question rows",
    ("50_reconciliation.sql", "authors_text_legacy"): "reconciles the older scorer's "
                                                      "summaries with its own rows",
    ("45_text_scorer_rows.sql", "set_f1"): "the stand-in rows summary_reconciliation reads "
                                           "for a run without authors_text rows",
    ("10_leaderboard.sql", "set_f1"): "scorer_disagreements is by definition the default "
                                      "against the normalized set_f1 rule",
    ("60_lineage.sql", "set_f1"): "archive lineage compares attempts by set F1, its "
                                  "documented measure (result_answers)",
    ("dialect/spark/result_answers.sql", "set_f1"): "the Spark form of result_answers",
    ("dialect/trino/result_answers.sql", "set_f1"): "the Trino form of result_answers",
    # the paper's chain: reorganize_results.py / compute_ci / build_report.py treat each of
    # the paper's benchmarks by its own rules, which sql/82_paper.sql ports rule for rule
    ("82_paper.sql", "ehr_bench"): "the paper's EHR-Bench rules (its groups and semantic "
                                   "cells printed, hierarchy layer 1 node text_only)",
    ("82_paper.sql", "agent_ehr_bench"): "the paper's AgentEHR rules (every line a sample, "
                                         "no one-shot table, no taxonomy)",
    ("82_paper.sql", "mm_bench"): "the paper's multimodal rules (scored else rescored rows, "
                                  "the classifier's fine tasks, layer 1 node multimodal)",
}


def vocabulary() -> dict[str, str]:
    """Every name a Python home owns -> what it is."""
    names: dict[str, str] = {}
    for benchmark in FULL_SPLITS:
        names[benchmark] = "benchmark"
    for written, status in STATUS_MAP.items():
        names[written] = names[status] = "status"
    for task, group in tasks.TEXT_TASK_GROUPS.items():
        names[task] = "task"
        names[group] = "task group"
    for family in tasks.MULTIMODAL_FAMILIES:
        names[family] = "task group"
    for task in tasks.PAPER_TASKS:
        names.setdefault(task.task, "task")
    for task, fine in tasks.MM_COARSE_STAND_INS.items():
        names.setdefault(task, "task")
        names.setdefault(fine, "task")
    for fine in tasks.MM_CLASSIFIER_RENAMES.values():
        if fine is not None:
            names.setdefault(fine, "task")
    for scorer in SCORERS:
        names[scorer.name] = "scorer"
    return names


def literals(path: Path) -> list[str]:
    """The string literals of a SQL file, outside comments and COMMENT ON statements."""
    text = re.sub(r"\s+USING\s+COMPRESSION\s+\w+", "", path.read_text(encoding="utf-8"))
    found, statement_start, in_comment = [], True, False
    for token in DuckDB().tokenizer().tokenize(text):
        if statement_start:
            in_comment = token.text.upper() == "COMMENT"
            statement_start = False
        if token.token_type == TokenType.SEMICOLON:
            statement_start = True
        elif token.token_type == TokenType.STRING and not in_comment:
            found.append(token.text)
    return found


def found_names() -> dict[tuple[str, str], str]:
    names = vocabulary()
    return {(path.relative_to(SQL_DIR).as_posix(), text): names[text]
            for path in sorted(SQL_DIR.rglob("*.sql")) for text in literals(path)
            if text in names}


def test_no_python_owned_name_is_typed_into_sql_outside_the_allow_list() -> None:
    found = found_names()
    refused = {key: kind for key, kind in found.items() if key not in ALLOWED}
    assert not refused, (
        "names a Python home owns, typed into sql/: read them from their table (scorers, "
        "benchmarks, result_statuses, tasks, paper_taxonomy, paper_task_names) or add an "
        "allow-list entry with its reason: "
        + ", ".join(f"{file}: {kind} {text!r}" for (file, text), kind in sorted(refused.items())))


def test_every_allowed_literal_is_still_there_and_has_a_reason() -> None:
    found = found_names()
    stale = sorted(key for key in ALLOWED if key not in found)
    assert not stale, f"allow-list entries no SQL file needs any more: {stale}"
    assert all(len(reason) > 20 for reason in ALLOWED.values())


def test_the_check_reads_what_it_should(tmp_path: Path) -> None:
    # a literal in a comment or a COMMENT ON statement is documentation; one in a query is
    # seen (so the tests above cannot pass by reading nothing)
    probe = tmp_path / "probe.sql"
    probe.write_text("-- 'ehr_bench' in a comment\n"
                     "COMMENT ON VIEW x IS 'the authors_text board';\n"
                     "CREATE VIEW y AS SELECT 1 FROM results WHERE status = 'error';\n",
                     encoding="utf-8")
    assert literals(probe) == ["error"]
