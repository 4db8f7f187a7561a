"""Nothing from outside the tree reaches the warehouse.

A tree may hold symlinks, and the walk follows them: the real tree links a split directory
outside the root, and the writer's staging of external runs links result files in. But a
metadata or log file (cmd.txt, status.json, run.log, ...) is read only when it resolves
inside the root or inside a directory the tree links to, and nothing on /proc, /sys or /dev
is ever read: `ln -s /proc/self/environ <run>/cmd.txt` would otherwise copy the ingest's
own environment (its redaction key) into run_meta.value of the file meant for sharing.

Each test searches every value of every table (through SQL: DuckDB compresses strings, so
a search of the file's bytes could miss them) for what lies outside the tree."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from etl.pipeline.ingest import IngestOptions, run_ingest
from tests.budgets import examples
from tests.wide_tree import write_wide_tree

RUN = "ehr_bench/oneshot/full1800/model_00000"
LINKED_RUN = "ehr_bench/oneshot/full1800/linked_model"


def every_value(db: Path) -> dict[str, str]:
    """{table: every value of every row and column, as text, joined}: what a search for a
    byte from outside the tree looks through."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                    "WHERE schema_name = 'main'").fetchall():
            columns = [c for (c,) in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' "
                "AND table_name = ?", [table]).fetchall()]
            cells = ", ".join(f"coalesce(CAST(\"{c}\" AS VARCHAR), '')" for c in columns)
            text = con.execute(f"SELECT string_agg(concat_ws(chr(31), {cells}), chr(30)) "
                               f"FROM \"{table}\"").fetchone()[0]
            out[table] = text or ""
        return out
    finally:
        con.close()


def tables_holding(db: Path, needles: list[str]) -> dict[str, list[str]]:
    """{table: the needles found in it}."""
    found = {}
    for table, text in every_value(db).items():
        hits = [n for n in needles if n in text]
        if hits:
            found[table] = hits
    return found


def rejects_of(db: Path) -> dict[str, str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return dict(con.execute("SELECT path, error FROM rejects WHERE line_no IS NULL "
                                "ORDER BY path").fetchall())
    finally:
        con.close()


def loaded_paths(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {p for (p,) in con.execute("SELECT path FROM files").fetchall()}
    finally:
        con.close()


def small_tree(root: Path) -> None:
    write_wide_tree(root, n_runs=3, n_questions=4)


# -- the ingest's own environment and command line --------------------------------------------
@pytest.mark.parametrize("jobs", ["1", "0"])
@pytest.mark.parametrize("redact", [False, True])
def test_the_ingest_environment_and_command_line_never_reach_the_warehouse(
        tmp_path: Path, jobs: str, redact: bool) -> None:
    """The audit's reproduction: cmd.txt linked to /proc/self/environ with the redaction key
    in the environment, status.json and run.log to /proc/self/cmdline with the key on the
    command line; one worker (the ingest's own process reads them) and the default (its
    workers do)."""
    root = tmp_path / "tree"
    small_tree(root)
    run = root / RUN
    (run / "cmd.txt").symlink_to("/proc/self/environ")
    (run / "status.json").symlink_to("/proc/self/cmdline")
    (run / "run.log").symlink_to("/proc/self/cmdline")
    key = "key-" + secrets.token_hex(12)
    marker = "marker-" + secrets.token_hex(12)
    env = {**os.environ, "ETL_REDACT_KEY": key, "LEAK_MARKER": marker}
    db = tmp_path / "shared.duckdb"
    args = [sys.executable, "-m", "etl.cli", "ingest", str(root), "--db", str(db), "--quiet",
            "--jobs", jobs]
    if redact:
        args += ["--redact", "--redact-key", key]
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert tables_holding(db, [key, marker, "LEAK_MARKER", "ETL_REDACT_KEY"]) == {}
    assert key.encode() not in db.read_bytes() and marker.encode() not in db.read_bytes()
    rejects = rejects_of(db)
    for name in ("cmd.txt", "status.json", "run.log"):
        assert "special file system" in rejects[f"{RUN}/{name}"], rejects
        assert f"{RUN}/{name}" not in loaded_paths(db)
    # The run itself is loaded as ever.
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM results WHERE run_id = ?",
                           [RUN]).fetchone()[0] == 4


# -- links out of the tree, into it, and out of a linked directory ----------------------------
def test_metadata_is_read_inside_the_tree_and_the_directories_it_links_to_only(
        tmp_path: Path) -> None:
    root, outside = tmp_path / "tree", tmp_path / "outside"
    small_tree(root)
    outside.mkdir()
    secret = "secret-" + secrets.token_hex(8)
    (outside / "notes.txt").write_text(f"python x.py --token {secret}\n")
    for name in ("doc.json", "manifest.json"):  # two files: one real file is read once a run
        (outside / name).write_text(orjson.dumps({"token": secret, secret: 1}).decode())
    (outside / "lines.jsonl").write_text(f'{{"status": "{secret}"}}\nnot json {secret}\n')
    # A run directory outside the root that the tree links to (as subset600 is linked):
    # its files are part of the tree; a link inside it that leaves it is not.
    external = tmp_path / "external" / "linked_model"
    external.mkdir(parents=True)
    shutil.copy(root / RUN / "results.jsonl", external / "results.jsonl")
    (external / "cmd.txt").write_text("python run.py --bedrock_region eu-west-3\n")
    (external / "status.json").symlink_to(outside / "doc.json")
    (root / LINKED_RUN).symlink_to(external)
    run = root / RUN
    (run / "cmd.txt").symlink_to(Path("..") / ".." / ".." / ".." / ".." / "outside" /
                                 "notes.txt")                       # relative, leaves
    (run / "manifest.json").symlink_to(outside / "manifest.json")   # absolute, leaves
    (run / "run.log").symlink_to(root / LINKED_RUN / "status.json")  # a chain that leaves
    other = root / "ehr_bench/oneshot/full1800/model_00001"
    (other / "status.json").write_text(orjson.dumps({"returncode": 7}).decode())
    (other / "cmd.txt").symlink_to(external / "cmd.txt")            # into a linked dir: read
    (root / "ehr_bench/oneshot/full1800/model_00002/status.json").symlink_to(
        other / "status.json")                                      # inside the tree: read
    # A results file linked from outside (the writer's staging of external runs): read as
    # records, and none of its lines is quoted.
    (run / "results_steal_01.jsonl").symlink_to(outside / "lines.jsonl")
    db = tmp_path / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1))

    assert tables_holding(db, [secret]) == {}
    rejects = rejects_of(db)
    for path in (f"{RUN}/cmd.txt", f"{RUN}/manifest.json", f"{RUN}/run.log",
                 f"{LINKED_RUN}/status.json"):
        assert "leaves the tree" in rejects[path], (path, rejects)
        assert path not in loaded_paths(db)
    with duckdb.connect(str(db), read_only=True) as con:
        meta = set(con.execute("SELECT run_id, key, value FROM run_meta").fetchall())
        excerpts = con.execute("SELECT count(*), count(excerpt) FROM rejects WHERE path = ?",
                               [f"{RUN}/results_steal_01.jsonl"]).fetchone()
        linked = con.execute("SELECT count(*) FROM results WHERE run_id = ?",
                             [LINKED_RUN]).fetchone()[0]
    assert ("ehr_bench/oneshot/full1800/model_00001", "--bedrock_region", "eu-west-3") in meta
    assert (LINKED_RUN, "--bedrock_region", "eu-west-3") in meta
    assert ("ehr_bench/oneshot/full1800/model_00002", "returncode", "7") in meta
    assert excerpts[0] >= 2 and excerpts[1] == 0, excerpts  # rejected, never quoted
    assert linked == 4


def test_a_tree_on_dev_shm_is_an_ordinary_tree(tmp_path: Path) -> None:
    """/dev is a special file system but /dev/shm, below it, is a tmpfs of its own: a tree
    there is read (the fuzz tests keep theirs there), and a file of /dev is not."""
    if not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK):
        pytest.skip("no writable /dev/shm")
    import tempfile

    with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        root = Path(shm) / "tree"
        small_tree(root)
        (root / RUN / "status.json").write_text('{"returncode": 0}')
        (root / RUN / "cmd.txt").symlink_to("/dev/null")
        db = tmp_path / "w.duckdb"
        run_ingest(root, db, IngestOptions(jobs=1))
        assert f"{RUN}/status.json" in loaded_paths(db)
        assert "special file system" in rejects_of(db)[f"{RUN}/cmd.txt"]


def test_a_link_retargeted_after_the_walk_is_not_read(tmp_path: Path) -> None:
    """The walk vets a file; the stage reads it only while the path still names that file,
    so a link retargeted in between (to /proc/self/environ) is not followed."""
    from etl.pipeline.discover import discover
    from etl.pipeline.plan import FilePlan
    from etl.pipeline.stage import stage_file

    root = tmp_path / "tree"
    small_tree(root)
    inside = root / RUN / "cmd.txt.real"
    inside.write_text("python run.py --bedrock_region eu-west-3\n")
    link = root / RUN / "cmd.txt"
    link.symlink_to(inside)
    info = next(f for f in discover(root).files if f.path == f"{RUN}/cmd.txt")
    link.unlink()
    link.symlink_to("/proc/self/environ")
    cache = tmp_path / "cache"
    cache.mkdir()
    result = stage_file(FilePlan(info), str(cache), "p", "ingest")
    assert result.n_rejected == 1 and set(result.tables) == {"rejects"}
    rows = duckdb.sql(f"SELECT error FROM '{cache / result.cache_dir / 'rejects.parquet'}'"
                      ).fetchall()
    assert "not the file the walk found" in rows[0][0]


# -- any tree: links into and out of the tree, special files ----------------------------------
METADATA_NAMES = ("cmd.txt", "status.json", "manifest.json", "region_map.json", "run.log",
                  "summary.json", "input.jsonl", "scores.json", "tool.json")
RECORD_NAMES = ("results_steal_07.jsonl", "scored.jsonl", "merged_unique.jsonl")
SPECIAL_TARGETS = ("/proc/self/environ", "/proc/self/cmdline", "/proc/self/status",
                   "/proc/self/cwd/marker.txt", "/dev/null", "/dev/zero", "/sys/kernel/notes")
TARGETS = st.sampled_from(["secret-text", "secret-json", "secret-jsonl", "secret-dir",
                           "inside", "linked-inside", "chain-out", *SPECIAL_TARGETS])
PLACES = st.sampled_from(["run", "linked"])
LINKS = st.lists(st.tuples(PLACES, st.sampled_from(METADATA_NAMES + RECORD_NAMES), TARGETS,
                           st.booleans()), min_size=1, max_size=6,
                 unique_by=lambda link: (link[0], link[1]))


def _outside_bytes() -> list[str]:
    """What of this process's own environment and command line could be copied: each
    environment entry long enough to be told apart."""
    env = Path("/proc/self/environ").read_bytes().split(b"\0")
    return [e.decode("utf-8", "replace") for e in env if len(e) >= 24]


@given(LINKS)
@settings(max_examples=examples(12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_byte_from_outside_the_tree_reaches_a_table(tmp_path_factory: pytest.TempPathFactory,
                                                       links: list) -> None:
    base = tmp_path_factory.mktemp("paths")
    root, outside, external = base / "tree", base / "outside", base / "external" / "linked"
    small_tree(root)
    outside.mkdir()
    secret = "secret-" + secrets.token_hex(8)
    (outside / "secret.txt").write_text(f"--token {secret} {secret}\n")
    (outside / "secret.json").write_text(orjson.dumps(
        {"token": secret, secret: [1, secret], "overall": {secret: 0.5}}).decode())
    (outside / "secret.jsonl").write_text(orjson.dumps({"note": secret}).decode() + "\n"
                                          + f"{secret}\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "secret.txt").write_text(secret)
    external.mkdir(parents=True)
    shutil.copy(root / RUN / "results.jsonl", external / "results.jsonl")
    (external / "inside.txt").write_text("python run.py --bedrock_region eu-west-3\n")
    (root / LINKED_RUN).symlink_to(external)
    (root / RUN / "inside.txt").write_text("python run.py --bedrock_region us-east-1\n")
    (root / RUN / "out.txt").symlink_to(outside / "secret.txt")  # a link the chain reuses
    targets = {
        "secret-text": outside / "secret.txt", "secret-json": outside / "secret.json",
        "secret-jsonl": outside / "secret.jsonl", "secret-dir": outside / "dir" / "secret.txt",
        "inside": root / RUN / "inside.txt", "linked-inside": external / "inside.txt",
        "chain-out": root / RUN / "out.txt"}
    for place, name, target, relative in links:
        directory = root / RUN if place == "run" else external
        destination = Path(targets.get(target, target))
        if relative and destination.is_absolute() and target in targets:
            destination = Path(os.path.relpath(destination, directory))
        (directory / name).symlink_to(destination)
    db = base / "w.duckdb"
    run_ingest(root, db, IngestOptions(jobs=1, force=True))

    needles = [secret, *_outside_bytes()]
    assert tables_holding(db, needles) == {}
    rejects, loaded = rejects_of(db), loaded_paths(db)
    # A real file is read once a run, under one of its names: a link to the same file as
    # another name of the run is an alias of that one, listed nowhere.
    real_file = {**{t: str(p) for t, p in targets.items()},
                 "chain-out": str(outside / "secret.txt")}
    planted = [("run", "out.txt", "secret-text"), ("run", "inside.txt", "inside"),
               ("linked", "inside.txt", "linked-inside")]
    names_of: dict[tuple[str, str], set[str]] = {}
    for place, name, target in [*planted, *((p, n, t) for p, n, t, _ in links)]:
        if target in real_file:
            names_of.setdefault((place, real_file[target]), set()).add(name)
    for place, name, target, _ in links:
        path = f"{RUN if place == 'run' else LINKED_RUN}/{name}"
        aliased = target in real_file and len(names_of[(place, real_file[target])]) > 1
        if target in SPECIAL_TARGETS:
            assert path not in loaded
            assert "special file system" in rejects.get(path, "") or (
                "dangling" in rejects.get(path, "")), (path, rejects)
        elif target.startswith(("secret", "chain")) and name in METADATA_NAMES:
            assert path not in loaded
            assert aliased or "leaves the tree" in rejects.get(path, ""), (path, rejects)
        elif target in ("inside", "linked-inside"):
            assert aliased or path in loaded, path
