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


# The names of the two intervals every surface shows, beside each whisker and column: the
# default (board_cells.ci_low / ci_high) and the naive one (ci_naive_low / ci_naive_high).
DEFAULT_INTERVAL = "95% CI, clustered by patient"
NAIVE_INTERVAL = "95% CI, naive"


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


def board_marks(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """run_id -> the warnings its leaderboard row needs, in words, from the mark columns of
    board_rows (low_coverage, present, most_present, other_scorer, scorer, usual_scorer,
    scored_elsewhere):

    - fewer questions than another run of the board: its score is over another question
      set; the mark says how many it has against the board's most;
    - scored by another scorer than most runs of the board (named after "board:"): the two
      numbers are not computed the same way;
    - scored elsewhere: a scored-only run, whose results are not in this tree."""
    marks: dict[str, list[str]] = {}
    for row in rows:
        out = []
        if row.get("low_coverage"):
            out.append(f"fewer questions ({row.get('present')} of {row.get('most_present')})")
        if row.get("other_scorer"):
            out.append(f"other scorer: {row.get('scorer')} (board: {row.get('usual_scorer')})")
        if row.get("scored_elsewhere"):
            out.append("scored elsewhere")
        marks[row["run_id"]] = out
    return marks


def interval_words(rows: Iterable[Mapping[str, Any]]) -> str:
    """What the default interval is against the naive one on these rows, as their design
    effects say (above 1: wider; below 1: narrower)."""
    effects = [r["design_effect"] for r in rows if r.get("design_effect") is not None]
    single = sum(bool(r.get("single_cluster")) for r in rows)
    head = (f"{DEFAULT_INTERVAL}: questions about one patient are not independent, so their "
            "deviations are summed per patient (docs/STATISTICS.md). ")
    if not effects:
        text = head + "No run here has a design effect to compare it with the naive interval."
    elif all(e > 1 for e in effects):
        text = (head + "Here the patients' questions move together (design effect "
                f"{min(effects):.3f} to {max(effects):.3f}, above 1): the clustered interval "
                "is wider than the naive one.")
    elif all(e <= 1 for e in effects):
        text = (head + f"Here the design effect is {min(effects):.3f} to {max(effects):.3f}, "
                "at most 1 (no patient's questions move together; every patient asking one "
                "question gives (n - 1) / n): the clustered interval is as wide as the naive "
                "one or a little narrower.")
    else:
        wider = sum(e > 1 for e in effects)
        text = (head + f"Here it is wider than the naive one for {wider} of {len(effects)} "
                "runs (design effect above 1) and as wide or narrower for the others.")
    if single:
        text += (f" {single} run(s) have every question from one patient: no clustered "
                 "interval.")
    return text


def mixed_scorers_note(rows: list[Mapping[str, Any]], column: str = "scorer"
                       ) -> str | None:
    """A sentence for a board whose runs were scored by different scorers, else None."""
    counts = Counter(r[column] for r in rows if r.get(column) is not None)
    if len(counts) < 2:
        return None
    parts = ", ".join(f"{n} by the {scorer_name(s)} ({s})"
                      for s, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return (f"This board mixes scorers: {parts}. Scores made by different scorers are not "
            "computed the same way; compare them with care.")
