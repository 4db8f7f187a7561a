"""Scoring: every scorer of the warehouse, one home.

- registry.py  SCORERS, the one list: each scorer's name, title and description (the
               glossary of etl/glossary.py), the benchmarks it scores, its rules, how its
               rows are made, and the board rules the views read from table ``scorers``.
- rows.py      the one builder of question_scores and line_scores rows (called by
               etl/normalize.py, etl/extract/results.py and etl/extract/scores.py).
- base.py      what a rule is handed and returns.
- the rules, one module per scorer or family: normalized.py (set_f1), authors_text.py
  (authors_text, authors_text_fallback), authors_legacy.py (authors_text_legacy),
  authors_mm.py (authors_mm_set), paper.py (paper_text, paper_agentehr, ccs_helper),
  authors_files.py (scored, rescored, per_question, paper_mm: read from the authors' files);
  text_runs.py holds the authors' per-run tool statistics, which are no score.

A new scorer: its module, one entry in registry.SCORERS. Nothing else (tests/
test_scorer_registry.py adds one to a copy of the package and ingests with it).
"""

from __future__ import annotations

from etl.scoring.registry import BY_NAME, SCORERS, Scorer

__all__ = ["BY_NAME", "SCORERS", "Scorer"]
