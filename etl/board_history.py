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
    previous file's history cannot be read (the history then starts again here).

    An update of the published database (previous_db None, the load's temp tables present)
    computes only the boards whose inputs changed (_boards_to_recompute) and keeps the last
    ingest's rows of the others: those equal what the view gives now, and the view costs
    per board (half the step's time on one board of a bench tree)."""
    problem = None
    if previous_db is not None:
        con.execute("DELETE FROM leaderboard_history")
        problem = _copy_previous(con, previous_db)
    last = con.execute("SELECT max(ingest_seq) FROM leaderboard_history").fetchall()[0][0]
    params: dict[str, object] = {"ingest_id": ingest_id, "ingest_seq": (last or 0) + 1}
    boards = _boards_to_recompute(con) if previous_db is None and last is not None else None
    if boards is None:
        con.execute(load_sql("board_history_append.sql"),
                    {**params, "every_board": True, "benchmark": None, "mode": None})
    else:
        con.execute(load_sql("board_history_keep.sql"), params)
        for benchmark, mode in boards:
            con.execute(load_sql("board_history_append.sql"),
                        {**params, "every_board": False, "benchmark": benchmark,
                         "mode": mode})
        con.execute("DROP TABLE history_boards")
    con.execute("DELETE FROM leaderboard_history WHERE ingest_seq <= "
                "(SELECT max(ingest_seq) FROM leaderboard_history) - ?", [KEEP_INGESTS])
    return problem


def _boards_to_recompute(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]] | None:
    """The boards (benchmark, mode) an update recomputes (sql/load/board_history_boards.sql,
    also left in the temp table history_boards), or None when every board must be: the
    load's record of what the published database held is missing (the step runs on its
    own), the last ingest of the history is not the one that published the database, or
    the table scorers changed (it is read by every board)."""
    present = {row[0] for row in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE temporary AND table_name IN "
        "('load_runs', 'loaded_runs', 'loaded_scorers', 'published_ingest')").fetchall()}
    if len(present) < 4:
        return None
    same_source = con.execute(load_sql("board_history_same_source.sql")).fetchall()[0][0]
    if not same_source:
        return None
    con.execute("CREATE OR REPLACE TEMP TABLE history_boards AS "
                + load_sql("board_history_boards.sql"))
    return [(b, m) for b, m in con.execute("SELECT * FROM history_boards").fetchall()]


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
