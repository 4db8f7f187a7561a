"""What the warehouse's words mean to a reader, in one place for the explorer, the report and
the command line: each scorer named in words, and the marks a leaderboard row needs so that
its number is not misread (a run with fewer questions than the others of its board, a board
whose runs were scored by different scorers)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

# scorer (question_scores.scorer, leaderboard score_source) -> (short name, what it is)
SCORERS: dict[str, tuple[str, str]] = {
    "authors_text": (
        "authors' text scorer",
        "The benchmark authors' own text scorer (score_text.py), rule for rule: the last "
        "finish call's answer list against the gold, items lower-cased, set F1. The score "
        "of the text leaderboards."),
    "authors_text_fallback": (
        "authors' text scorer, answer from text",
        "The authors' text scorer with its --extract-text-answer-without-finish option: "
        "without a finish call, an answer is read from the last assistant text."),
    "authors_text_legacy": (
        "authors' older text scorer",
        "The authors' earlier text scorer (evaluate_results.py before score_text.py): gold "
        "is every name AND atc_name, string answers do not count. Kept only to check the "
        "summary files it wrote; never a leaderboard score."),
    "set_f1": (
        "set F1 (normalized)",
        "This project's normalized rule: answer items stripped and lower-cased, non-string "
        "items as text, error and incomplete results 0, then set F1 against the gold."),
    "authors_mm_set": (
        "authors' multimodal rule, recomputed",
        "The authors' multimodal scorer (score_multimodal.py) recomputed here: its "
        "prediction, gold and set-F1 rules; questions it sends to an LLM judge have no "
        "score."),
    "scored": (
        "authors' multimodal scores",
        "The authors' per-question multimodal scores as written in scored.jsonl (set F1, or "
        "the LLM judge's verdict)."),
    "rescored": (
        "authors' multimodal scores, rescored",
        "The authors' per-question multimodal scores after their vocabulary rescoring "
        "(rescored.jsonl); used instead of scored.jsonl wherever a run has it."),
    "paper_text": (
        "the paper's text-table rule",
        "The rule of the paper's EHR-Bench tables (the authors' analysis scripts, not their "
        "scorer): gold is each object's name only, every item stripped and lower-cased, the "
        "last finish call with an answer decides, set F1. Shown beside the leaderboard's "
        "score; the paper's tables aggregate it."),
    "paper_agentehr": (
        "the paper's AgentEHR-table rule",
        "The rule of the paper's AgentEHR-Bench table: the authors' text scorer's prediction "
        "against each gold object's name, string items lower-cased and never stripped, F1."),
    "per_question": (
        "authors' text scorer, as written",
        "The authors' text scorer's own per-question rows (per_question.jsonl), as written."),
}


def scorer_name(scorer: str | None) -> str:
    """The scorer in a few words (the key itself for a scorer this module does not know)."""
    if scorer is None:
        return "no scorer"
    return SCORERS.get(scorer, (scorer, ""))[0]


def scorer_description(scorer: str | None) -> str:
    """One or two sentences saying what the scorer computes."""
    if scorer is None:
        return ""
    return SCORERS.get(scorer, ("", f"Scores read or computed as {scorer}."))[1]


def board_scorer(rows: Iterable[Mapping[str, Any]], column: str = "score_source") -> str | None:
    """The scorer most runs of one board were scored by (ties: the first by name)."""
    counts = Counter(r[column] for r in rows if r.get(column) is not None)
    if not counts:
        return None
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def board_marks(rows: list[Mapping[str, Any]], column: str = "score_source"
                ) -> dict[str, list[str]]:
    """run_id -> the warnings its leaderboard row needs, in words, for the rows of ONE board
    (leaderboard_ranked rows: run_id, present, low_coverage, and the scorer column):

    - fewer questions than another run of the board (low_coverage): its score is over
      another question set; the mark says how many it has against the board's most;
    - scored by another scorer than most runs of the board: the two numbers are not
      computed the same way."""
    most = max((r.get("present") or 0 for r in rows), default=0)
    usual = board_scorer(rows, column)
    marks: dict[str, list[str]] = {}
    for row in rows:
        out = []
        if row.get("low_coverage"):
            out.append(f"fewer questions than another run ({row.get('present')} of {most})")
        if row.get(column) is not None and usual is not None and row[column] != usual:
            out.append(f"other scorer: {row[column]}, the board's is {usual}")
        marks[row["run_id"]] = out
    return marks


def mixed_scorers_note(rows: list[Mapping[str, Any]], column: str = "score_source"
                       ) -> str | None:
    """A sentence for a board whose runs were scored by different scorers, else None."""
    counts = Counter(r[column] for r in rows if r.get(column) is not None)
    if len(counts) < 2:
        return None
    parts = ", ".join(f"{n} by the {scorer_name(s)} ({s})"
                      for s, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return (f"This board mixes scorers: {parts}. Scores made by different scorers are not "
            "computed the same way; compare them with care.")
