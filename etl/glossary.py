"""What the warehouse's words mean to a reader, in one place for the explorer, the report and
the command line: each scorer and each failure label named in words (the titles and
descriptions of the scorer and failure registries), and the marks a leaderboard row needs
so that its number is not misread (a run with fewer questions than the others of its board,
a board whose runs were scored by different scorers)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from etl.failures.registry import FAILURES as FAILURE_REGISTRY
from etl.scoring import SCORERS as REGISTRY

# scorer (question_scores.scorer, leaderboard score_source) -> (short name, what it is): the
# title and description of each entry of the scorer registry (etl/scoring/registry.py).
SCORERS: dict[str, tuple[str, str]] = {s.name: (s.title, s.description) for s in REGISTRY}


# The scores of an Inspect AI log (etl/extract/inspect_logs.py), whatever its scorer is
# called: how a value becomes a number, in words (Inspect's value_to_float).
INSPECT_VALUE_RULE = (
    "Each sample's score as the log holds it, made a number as Inspect's value_to_float "
    "does: C (correct) 1, P (partial) 0.5, I (incorrect) and N (no answer) 0, yes / true 1, "
    "no / false 0, numbers and numeric text as they are, anything else 0; the board "
    "averages them per question over its epochs, then over questions, as Inspect's "
    "accuracy does with its default mean reducer.")


def inspect_scorer_words(scorer: str) -> tuple[str, str]:
    """(title, description) of a scorer of an Inspect log (table scorers)."""
    return (f"Inspect scorer {scorer}",
            f"The scores Inspect's scorer {scorer} wrote into the log. " + INSPECT_VALUE_RULE)


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


# failure label (call_failures.failure, result_failures.failure) -> (short name, what it
# means): the title and description of each entry of the failure registry
# (etl/failures/registry.py).
FAILURES: dict[str, tuple[str, str]] = {f.name: (f.title, f.description)
                                        for f in FAILURE_REGISTRY}


def failure_name(failure: str | None) -> str:
    """The label in a few words (the key itself for a label this module does not know)."""
    if failure is None:
        return "no label"
    return FAILURES.get(failure, (failure, ""))[0]


def failure_description(failure: str | None) -> str:
    """What the label means, in a sentence or two."""
    if failure is None:
        return ""
    return FAILURES.get(failure, ("", f"Results labelled {failure}."))[1]


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
