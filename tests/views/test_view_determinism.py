"""Every view is a function of what its tables hold, not of the order their rows were written
in: the demo warehouse with every table's rows rewritten in reverse order, and again in a
scrambled order, gives every view the same rows.

This is what lets tests/small_tree.py compare two warehouses by their tables and their view
definitions only (an incremental ingest against a --full build, a database before and after a
crash): equal tables, equal definitions and views that ignore row order give equal views.
The builds write rows in different orders (files parsed in another order, an append at the
end), so a view that picked "the first row" would differ between them; this test finds such a
view on a tree with every kind of row, where a property test would only meet it by chance."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.conftest import copy_warehouse
from tests.small_tree import stable

ORDERS = {"reversed": "rowid DESC", "scrambled": "hash(rowid * 7919 + 13)"}


def _views(db: Path) -> dict[str, list[tuple]]:
    with duckdb.connect(str(db), read_only=True) as con:
        names = [r[0] for r in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal "
            "ORDER BY view_name").fetchall()]
        return {name: sorted((tuple(stable(v) for v in row)
                              for row in con.table(name).fetchall()), key=repr)
                for name in names}


def _rewrite_rows(db: Path, order: str) -> int:
    """Rewrite every table's rows in the given order; the number of tables with 2+ rows."""
    with duckdb.connect(str(db)) as con:
        con.execute("SET threads = 1")  # one writer thread: the rows land in this order
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
            "AND estimated_size > 1").fetchall()]
        for table in tables:  # names from the catalog, never from the data
            con.execute(f'CREATE TEMP TABLE rows_of AS SELECT * FROM "{table}"')
            con.execute(f'DELETE FROM "{table}"')
            con.execute(f'INSERT INTO "{table}" SELECT * FROM temp.rows_of ORDER BY {order}')
            con.execute("DROP TABLE temp.rows_of")
        return len(tables)


@pytest.fixture(scope="module")
def views_as_built(demo_db: Path) -> dict[str, list[tuple]]:
    return _views(demo_db)


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_views_ignore_the_order_of_the_tables_rows(demo_db: Path, tmp_path: Path,
                                                   views_as_built: dict, order: str) -> None:
    db = copy_warehouse(demo_db, tmp_path)
    with duckdb.connect(str(db), read_only=True) as con:
        first = {t: con.execute(f'SELECT * FROM "{t}" LIMIT 1').fetchall() for t in (
            "results", "messages", "question_scores")}
    assert _rewrite_rows(db, ORDERS[order]) >= 30
    with duckdb.connect(str(db), read_only=True) as con:  # the rows really moved
        moved = [t for t, row in first.items()
                 if con.execute(f'SELECT * FROM "{t}" LIMIT 1').fetchall() != row]
    assert moved == list(first)
    rewritten = _views(db)
    assert sorted(rewritten) == sorted(views_as_built)
    assert sum(1 for rows in views_as_built.values() if rows) > 40  # views with rows
    differ = [name for name in views_as_built if rewritten[name] != views_as_built[name]]
    assert differ == [], f"views that depend on the order of their tables' rows: {differ}"
