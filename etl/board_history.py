"""What moved on the leaderboard since the previous ingest.

Each ingest builds a new database file, so the boards of earlier ingests survive only if
they are carried over: `record_leaderboard_history` copies the table leaderboard_history of
the database being replaced (attached read-only) into the new one and appends this ingest's
overall boards. The view leaderboard_changes (sql/77_uncertainty.sql) compares the last two
ingests; `board_change_lines` turns it into the lines `etl ingest` prints.

When the engine builds the new file from a copy of the published one, the table is already
there: call with previous_db=None and only this ingest's rows are appended."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb

from etl.connection import WarehouseUnavailable, open_warehouse
from etl.schema import load_sql

# The schema name the replaced database is attached under (a fixed name, never data).
PREVIOUS = "previous_warehouse"
# Ingests whose boards are kept; older ones are dropped as new ones come.
KEEP_INGESTS = 1000
# Changed runs named on one board's line; the rest are counted.
ITEMS_PER_LINE = 6


def record_leaderboard_history(con: duckdb.DuckDBPyConnection, previous_db: Path | None,
                               ingest_id: str) -> str | None:
    """Fill leaderboard_history of the new database `con` (after its views exist): the
    rows of previous_db's history when given (replacing any the table holds), then the
    boards of the view leaderboard as ingest `ingest_id`. Returns a warning when the
    previous file's history cannot be read (the history then starts again here)."""
    problem = None
    if previous_db is not None:
        con.execute("DELETE FROM leaderboard_history")
        problem = _copy_previous(con, previous_db)
    con.execute(load_sql("board_history_append.sql"), {"ingest_id": ingest_id})
    con.execute("DELETE FROM leaderboard_history WHERE ingest_seq <= "
                "(SELECT max(ingest_seq) FROM leaderboard_history) - ?", [KEEP_INGESTS])
    return problem


def _copy_previous(con: duckdb.DuckDBPyConnection, previous_db: Path) -> str | None:
    lost = (f"warning: the leaderboard history of {previous_db} cannot be read, so "
            "leaderboard_changes starts again with this ingest")
    try:
        # The path is a bound parameter, never part of the SQL text.
        con.execute(f"ATTACH ? AS {PREVIOUS} (READ_ONLY)", [str(previous_db)])
    except duckdb.Error as error:
        return f"{lost}: {error}"
    try:
        found = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = ? "
                            "AND table_name = 'leaderboard_history'", [PREVIOUS]).fetchone()
        if found and found[0]:  # a database built before the history existed has none
            con.execute(load_sql("board_history_carry.sql"))
        return None
    except duckdb.Error as error:
        con.execute("DELETE FROM leaderboard_history")
        return f"{lost}: {error}"
    finally:
        con.execute(f"DETACH {PREVIOUS}")


def _item(row: dict[str, Any]) -> str:
    model = row["model"]
    if row["n_questions_before"] is None:
        return f"{model} new, {row['score_after']:.4f} (rank {row['rank_after']})"
    if row["n_questions_after"] is None:
        return f"{model} left (was {row['score_before']:.4f}, rank {row['rank_before']})"
    text = f"{model} {row['score_before']:.4f} -> {row['score_after']:.4f} ({row['diff']:+.4f}"
    if row["rank_before"] != row["rank_after"]:
        text += f", rank {row['rank_before']} -> {row['rank_after']}"
    if row["n_questions_before"] != row["n_questions_after"]:
        text += f", n {row['n_questions_before']} -> {row['n_questions_after']}"
    return text + ")"


def change_lines(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line per board (benchmark, mode) among leaderboard_changes rows."""
    boards: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        boards.setdefault((row["benchmark"], row["mode"]), []).append(row)
    lines = []
    for (benchmark, mode), changed in boards.items():
        items = [_item(row) for row in changed[:ITEMS_PER_LINE]]
        if len(changed) > ITEMS_PER_LINE:
            items.append(f"{len(changed) - ITEMS_PER_LINE} more (leaderboard_changes)")
        lines.append(f"  changed  {benchmark} {mode}: " + "; ".join(items))
    return lines


def board_change_lines(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The lines of leaderboard_changes of the database `con`: one per board that changed
    since the previous ingest, best rank first; none after a first ingest."""
    cursor = con.execute(
        "SELECT * FROM leaderboard_changes ORDER BY benchmark, mode, "
        "coalesce(rank_after, rank_before), model, run_id")
    names = [d[0] for d in cursor.description]
    return change_lines(dict(zip(names, row, strict=True)) for row in cursor.fetchall())


def changes_since_last_ingest(db: Path) -> list[str]:
    """board_change_lines of the warehouse file db, opened read-only (a line saying why
    when it cannot be read)."""
    try:
        con = open_warehouse(db, own_queries_only=True)
        try:
            return board_change_lines(con)
        finally:
            con.close()
    except (duckdb.Error, WarehouseUnavailable) as error:
        return [f"  changed  cannot list the leaderboard changes of {db}: {error}"]
