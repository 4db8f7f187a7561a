"""The registry of scorers: every scorer the warehouse knows, in one list (SCORERS).

An entry says what a scorer is (title, description: what the explorer, the report and
``etl leaderboard`` show), which results it scores, how its rows are made (the functions it
registers, see etl/scoring/base.py) and the board rules the views read from the table
``scorers`` (written from this list at every build: etl/views.py apply_views):

- ``extra``: shown beside the run's default on every leaderboard, never instead of it;
- ``default_for`` / ``default_rank``: the boards (text or multimodal benchmarks) whose
  default it can be. A run's default is the lowest-ranked default of its benchmark kind that
  the run has rows of; the highest-ranked one is taken whatever the run has;
- ``score_rule``: how a board reads one of its rows (F1, or the authors' unified
  multimodal score); ``status_rule``: whether error and incomplete results score 0
  (FAILED_ZERO) or the row counts as scored (AS_SCORED, the authors' rules never read it);
- ``paper_table_for``: the benchmark whose rows of the paper's tables it makes;
- ``marks_no_gold``: its rows say (route no_gold) which results have an empty gold by the
  authors' multimodal rule, which the authors' scorer skips: a board read from the authors'
  files leaves those questions out, as the authors' own leaderboard does.

A new scorer is one module (its rules, taking and returning the types of base.py) plus one
entry below. The dispatchers (etl/scoring/rows.py) and the views read this list;
tests/scoring/test_scorer_registry.py fails when a scorer name in sql/ is not registered, when a
scorer with rows in the warehouse is not registered and described or a registered one makes
no rows, and when an entry added to a copy of the package does not reach the boards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from etl.benchmarks import MULTIMODAL, TEXT
from etl.scoring import (
    authors_files,
    authors_legacy,
    authors_mm,
    authors_text,
    normalized,
    paper,
)
from etl.scoring.base import FileLineRule, FileRowsRule, LineRule, ResultRule

ALL = "all"  # benchmarks: every result (TEXT / MULTIMODAL: etl/benchmarks.py benchmark_kind)
BENCHMARK_SETS = (ALL, TEXT, MULTIMODAL)

# status_rule values
AS_SCORED = "as_scored"
FAILED_ZERO = "failed_zero"
STATUS_RULES = (AS_SCORED, FAILED_ZERO)
# score_rule values
F1 = "f1"
AUTHORS_UNIFIED = "authors_unified"
# question_scores.value: the scores read from Inspect AI logs (etl/inspect_board.py gives
# their scorers this rule; no registry entry has it)
VALUE = "value"
SCORE_RULES = (F1, AUTHORS_UNIFIED)

# The file whose every line the line rules score: a run directory's top-level results.jsonl,
# which the paper's chain and the authors' helper scripts read line by line.
LINE_SCORED_KIND = "results_top"


@dataclass(frozen=True, slots=True)
class Scorer:
    """One scorer: what it is, how its rows are made, and the board rules (module doc)."""

    name: str
    title: str
    description: str
    benchmarks: str = ALL
    score_result: ResultRule | None = None  # a question_scores row per result, at parse time
    score_line: LineRule | None = None  # a line_scores row per line of a results.jsonl
    read_rows: FileRowsRule | None = None  # question_scores rows read from the authors' files
    read_line: FileLineRule | None = None  # a line_scores row per line of those files
    file_kinds: tuple[str, ...] = ()  # the files read_rows / read_line read (files.kind)
    extra: bool = False
    default_for: str | None = None
    default_rank: int = 0
    score_rule: str = F1
    status_rule: str = FAILED_ZERO
    paper_table_for: str | None = None
    marks_no_gold: bool = False

    def applies_to(self, kind: str) -> bool:
        """True when the scorer makes rows for results of this benchmark kind."""
        return self.benchmarks in (ALL, kind)

    def rows_made(self) -> str:
        """How its rows are made, in words (scorers.rows_made)."""
        parts = []
        if self.score_result is not None:
            parts.append("per result at parse time"
                         + ("" if self.benchmarks == ALL else f" ({self.benchmarks} results)"))
        if self.score_line is not None:
            parts.append("per line of a run's results.jsonl")
        if self.read_rows is not None or self.read_line is not None:
            files = " / ".join(f"{kind}.jsonl" for kind in self.file_kinds)
            parts.append(f"read from the authors' {files}"
                         + ("" if self.read_rows is not None else ", per line"))
        return "; ".join(parts)

    def module(self) -> str:
        """The module of its rules, as a path (scorers.module)."""
        rule = self.score_result or self.score_line or self.read_rows or self.read_line
        return rule.__module__.replace(".", "/") + ".py" if rule is not None else ""


SCORERS: tuple[Scorer, ...] = (
    Scorer(
        "set_f1", "set F1 (normalized)",
        "This project's normalized rule: answer items stripped and lower-cased, non-string "
        "items as text, error and incomplete results 0, then set F1 against the gold.",
        score_result=normalized.score_result, extra=True,
        default_for=MULTIMODAL, default_rank=3),
    Scorer(
        "authors_text", "authors' text scorer",
        "The benchmark authors' own text scorer (score_text.py), rule for rule: the last "
        "finish call's answer list against the gold, items lower-cased, set F1. The score "
        "of the text leaderboards.",
        score_result=authors_text.score_result, extra=True, default_for=TEXT,
        default_rank=1, status_rule=AS_SCORED),
    Scorer(
        "authors_text_fallback", "authors' text scorer, answer from text",
        "The authors' text scorer with its --extract-text-answer-without-finish option: "
        "without a finish call, an answer is read from the last assistant text.",
        score_result=authors_text.score_result_fallback, extra=True, status_rule=AS_SCORED),
    Scorer(
        "paper_text", "the paper's text-table rule",
        "The rule of the paper's EHR-Bench tables (the authors' analysis scripts, not their "
        "scorer): gold is each object's name only, every item stripped and lower-cased, the "
        "last finish call with an answer decides, set F1. Shown beside the leaderboard's "
        "score; the paper's tables aggregate it.",
        benchmarks=TEXT, score_result=paper.paper_text_result, score_line=paper.paper_text_score,
        extra=True, status_rule=AS_SCORED, paper_table_for="ehr_bench"),
    Scorer(
        "paper_agentehr", "the paper's AgentEHR-table rule",
        "The rule of the paper's AgentEHR-Bench table: the authors' text scorer's prediction "
        "against each gold object's name, string items lower-cased and never stripped, F1.",
        benchmarks=TEXT, score_result=paper.paper_agentehr_result,
        score_line=paper.paper_agentehr_score, extra=True, status_rule=AS_SCORED,
        paper_table_for="agent_ehr_bench"),
    Scorer(
        "ccs_helper", "the authors' CCS helper rule",
        "The rule of the authors' helper score_diagnoses_ccs_results.py: only a list answer "
        "counts, gold the label's names; every line of a run's results.jsonl, to recompute "
        "the scores.json it writes. Never a leaderboard score.",
        score_line=paper.ccs_helper_score),
    Scorer(
        "authors_text_legacy", "authors' older text scorer",
        "The authors' earlier text scorer (evaluate_results.py before score_text.py): gold "
        "is every name AND atc_name, string answers do not count. Kept only to check the "
        "summary files it wrote; never a leaderboard score.",
        benchmarks=TEXT, score_result=authors_legacy.score_result),
    Scorer(
        "authors_mm_set", "authors' multimodal rule, recomputed",
        "The authors' multimodal scorer (score_multimodal.py) recomputed here: its "
        "prediction, gold and set-F1 rules; questions it sends to an LLM judge have no "
        "score.",
        benchmarks=MULTIMODAL, score_result=authors_mm.score_result, marks_no_gold=True),
    Scorer(
        "scored", "authors' multimodal scores",
        "The authors' per-question multimodal scores as written in scored.jsonl (set F1, or "
        "the LLM judge's verdict).",
        benchmarks=MULTIMODAL, read_rows=authors_files.scored_rows, file_kinds=("scored",),
        default_for=MULTIMODAL, default_rank=2, score_rule=AUTHORS_UNIFIED),
    Scorer(
        "rescored", "authors' multimodal scores, rescored",
        "The authors' per-question multimodal scores after their vocabulary rescoring "
        "(rescored.jsonl); used instead of scored.jsonl wherever a run has it.",
        benchmarks=MULTIMODAL, read_rows=authors_files.scored_rows, file_kinds=("rescored",),
        default_for=MULTIMODAL, default_rank=1, score_rule=AUTHORS_UNIFIED),
    Scorer(
        "per_question", "authors' text scorer, as written",
        "The authors' text scorer's own per-question rows (per_question.jsonl), as written.",
        benchmarks=TEXT, read_rows=authors_files.per_question_rows,
        file_kinds=("per_question",)),
    Scorer(
        "paper_mm", "the paper's multimodal rows",
        "The authors' own scored.jsonl (else rescored.jsonl) numbers, line by line, as the "
        "paper's multimodal table reads them (reorganize_results.py).",
        benchmarks=MULTIMODAL, read_line=authors_files.paper_mm_line,
        file_kinds=("scored", "rescored"), paper_table_for="mm_bench"),
)


class RegistryError(ValueError):
    """An entry of SCORERS breaks a rule the dispatchers or the views rely on."""


def check(scorers: tuple[Scorer, ...]) -> None:
    """Raise RegistryError naming the entry when the list cannot be dispatched or tabled."""
    names = [s.name for s in scorers]
    for s in scorers:
        where = f"scorer {s.name!r} (etl/scoring/registry.py)"
        if names.count(s.name) > 1:
            raise RegistryError(f"{where} is registered twice")
        if not (s.title and s.description):
            raise RegistryError(f"{where} needs a title and a description")
        if s.benchmarks not in BENCHMARK_SETS:
            raise RegistryError(f"{where}: benchmarks must be one of {BENCHMARK_SETS}")
        if s.status_rule not in STATUS_RULES or s.score_rule not in SCORE_RULES:
            raise RegistryError(f"{where}: status_rule must be one of {STATUS_RULES}, "
                                f"score_rule one of {SCORE_RULES}")
        if not any((s.score_result, s.score_line, s.read_rows, s.read_line)):
            raise RegistryError(f"{where} makes no rows: give it a rule")
        if bool(s.file_kinds) != (s.read_rows is not None or s.read_line is not None):
            raise RegistryError(f"{where}: file_kinds go with read_rows / read_line")
        on_board = s.extra or s.default_for is not None
        if on_board and s.score_result is None and s.read_rows is None:
            raise RegistryError(f"{where} is on the boards but makes no question_scores rows")
        if s.default_for is not None and s.default_for not in (TEXT, MULTIMODAL):
            raise RegistryError(f"{where}: default_for must be {TEXT!r} or {MULTIMODAL!r}")
    for kind in (TEXT, MULTIMODAL):
        ranks = [s.default_rank for s in scorers if s.default_for == kind]
        if len(ranks) != len(set(ranks)) or not ranks:
            raise RegistryError(f"the {kind} boards need defaults of distinct default_rank "
                                f"(etl/scoring/registry.py): {ranks}")
    tables = [s.paper_table_for for s in scorers if s.paper_table_for is not None]
    if len(tables) != len(set(tables)):
        raise RegistryError(f"one scorer per benchmark of the paper's tables: {tables}")


check(SCORERS)
BY_NAME: dict[str, Scorer] = {s.name: s for s in SCORERS}


def result_scorers(kind: str) -> tuple[Scorer, ...]:
    """The scorers computed for every result of a benchmark kind (benchmark_kind), in
    registry order."""
    return tuple(s for s in SCORERS if s.score_result is not None and s.applies_to(kind))


def scorers_of_kind(kind: str) -> tuple[Scorer, ...]:
    """The scorers reading the authors' files of a file kind (scored, rescored, ...)."""
    return tuple(s for s in SCORERS if kind in s.file_kinds)


def file_kinds_read() -> tuple[str, ...]:
    """The file kinds of the authors' score files some scorer reads (etl/extract/scores.py
    registers its extractor for them)."""
    return tuple(dict.fromkeys(kind for s in SCORERS for kind in s.file_kinds))


def line_scorers() -> tuple[Scorer, ...]:
    """The scorers computed for every line of a run's results.jsonl, in registry order."""
    return tuple(s for s in SCORERS if s.score_line is not None)


def table_rows(scorers: tuple[Scorer, ...] | None = None) -> list[dict[str, Any]]:
    """Rows of table scorers (schema/12_scorers.sql); SCORERS as it is when called."""
    scorers = SCORERS if scorers is None else scorers
    last_rank = {kind: max(s.default_rank for s in scorers if s.default_for == kind)
                 for kind in {s.default_for for s in scorers} - {None}}
    return [{
        "scorer": s.name, "title": s.title, "description": s.description,
        "benchmarks": s.benchmarks, "rows_made": s.rows_made(),
        "question_rows": ("result" if s.score_result is not None
                          else "authors_file" if s.read_rows is not None else None),
        "line_rows": ("results_line" if s.score_line is not None
                      else "authors_file" if s.read_line is not None else None),
        "file_kinds": ", ".join(s.file_kinds) or None,
        "extra": s.extra, "default_for": s.default_for,
        "default_rank": s.default_rank if s.default_for is not None else None,
        "default_needs_rows": (s.default_rank != last_rank[s.default_for]
                               if s.default_for is not None else None),
        "score_rule": s.score_rule, "status_rule": s.status_rule,
        "paper_table_for": s.paper_table_for, "marks_no_gold": s.marks_no_gold,
        "module": s.module(),
    } for s in scorers]
