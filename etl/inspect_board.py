"""The scorers of Inspect AI logs in table scorers, a post-load step: every score name the
loaded logs hold (inspect_scorers, and the named values of a scorer of several values in
question_scores) becomes a row saying what it is (etl/glossary.py) and how its boards read
it: score_rule value (question_scores.value, Inspect's value_to_float), status as scored,
and default_for inspect (each log's headline scorer is its run's default, inspect_scorers
.is_default, read by leaderboard_runs). The registry's rows (etl/views.py write_rule_tables)
stay as they are; these are replaced whole at every load (a few rows)."""

from __future__ import annotations

import duckdb

from etl.glossary import inspect_scorer_words
from etl.rows import insert_rows
from etl.scoring.registry import AS_SCORED, VALUE

# scorers.question_rows / file_kinds / default_for of an Inspect scorer
INSPECT_ROWS = "inspect_log"
INSPECT_BOARDS = "inspect"
MODULE = "etl/extract/inspect_logs.py"


def add_inspect_scorers(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DELETE FROM scorers WHERE question_rows = ?", [INSPECT_ROWS])
    names = [row[0] for row in con.execute(
        "SELECT scorer FROM inspect_scorers UNION "
        "SELECT scorer FROM question_scores WHERE raw_value IS NOT NULL "
        "ORDER BY 1").fetchall()]
    rows = []
    for name in names:
        title, description = inspect_scorer_words(name)
        rows.append({"scorer": name, "title": title, "description": description,
                     "rows_made": "read from Inspect AI logs", "question_rows": INSPECT_ROWS,
                     "file_kinds": INSPECT_ROWS, "extra": False,
                     "default_for": INSPECT_BOARDS, "score_rule": VALUE,
                     "status_rule": AS_SCORED, "module": MODULE})
    insert_rows(con, "scorers", rows)
