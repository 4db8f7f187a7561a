"""`etl bench`: the ingest side by side with its peers, on three differently shaped trees,
in one run, against the engine's targets.

On each tree (`etl synth --scale bench --shape S --seed N`, generated once and reused), rows
in the order they run, each in its own child process while a sampler adds up the resident
memory of that process and all its descendants (peak memory is the whole process tree's,
the ingest's parse workers included):

- floor: orjson.loads of every line of every result file, one process, nothing else;
- naive: DuckDB read_json_auto of the same files into one wide table;
- dlt (with --dlt): what a data engineer would write instead (etl/bench_dlt_peer.py);
- ours cold: `etl ingest --full` into an empty work directory (no parse cache);
- no-op: `etl ingest` again, nothing changed;
- one file touched: the append target's mtime moved, content unchanged;
- one record appended: to the largest results.jsonl of a run (what a running evaluation
  does), then `etl ingest`;
- with --cold-builds N above 2, N - 2 more cold builds, not rows of the table: every cold
  build counts for the out-of-memory target and the peak memory (a build that runs out of
  memory is a row of that status, not an error of the bench);
- ours cold, again: the last `--full` of the same tree (the database's size must not
  depend on the build), with DuckDB's profile of every statement of its load
  (`etl ingest --profile-dir`): where the build's time and the database's bytes go.

Then the scaling rows: on the first tree's shape and seed at smaller sizes (--scaling-gb),
the floor, a cold build and an append, beside the full-size tree's: an append must cost
what it adds, not what the tree holds.

Our rows read the ingest's figures from `etl ingest --summary-json`, never from its text.
The appended line and the touch are undone afterwards (the file is truncated back to its
size and given its mtime again; a marker file beside the tree says what to undo if the run
was killed), so the cached tree stays the one it was generated as."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from etl.connection import open_warehouse
from etl.errors import EtlError
from etl.extract import FileInfo
from etl.pipeline.copies import RESULT_KINDS
from etl.pipeline.discover import discover
from etl.pipeline.profile import read_profile, storage_bytes
from etl.schema import fingerprint

# The targets. A time ratio is ours over the other row's seconds.
COLD_OVER_FLOOR_MAX = 3.0  # a cold build <= 3x the one-core orjson parse floor
COLD_OVER_FLOOR_STRETCH = 2.0
COLD_OVER_NAIVE_MAX = 0.5  # and at most half of the naive load
APPEND_OVER_COLD_MAX = 0.05  # one record appended <= 5% of a cold build
APPEND_SECONDS_BELOW = 2.0  # and under 2 s
TOUCH_OVER_COLD_MAX = 0.05  # one file touched <= 5% of a cold build
NOOP_OVER_COLD_MAX = 0.03  # a no-op re-ingest <= 3% of a cold build
PEAK_RSS_MB_BELOW = 1024.0  # peak memory of the whole process tree < 1 GB
DB_OVER_NAIVE_MAX = 1.0  # our database no larger than the naive load's
COLD_SIZE_SPREAD_MAX = 0.02  # two cold builds of one tree: sizes within 2%
COLD_OUT_OF_MEMORY_MAX = 0  # cold builds at the default settings that ran out of memory
# The append at the largest scaling size over the append at the smallest: flat, give or
# take the noise of a shared machine.
APPEND_GROWTH_MAX = 1.5

DEFAULT_TREES = "long-tools:11,many-short:12,many-copies:13"
DEFAULT_SCALING_GB = "0.6,1.2"
OURS = ("cold", "noop", "touch", "append", "cold_again")
APPEND_MARKER = ".append-pending.json"
DLT_PEER = Path(__file__).with_name("bench_dlt_peer.py")


class BenchError(EtlError):
    """The bench could not take a row it needs (our ingest or the floor failed)."""


@dataclass(frozen=True)
class TreeSpec:
    """One bench tree: `etl synth --scale SCALE --bench-gb GB --shape SHAPE --seed SEED`."""

    shape: str
    seed: int
    gb: float

    @property
    def name(self) -> str:
        return f"{self.shape}-seed{self.seed}-{self.gb:g}gb"

    @property
    def label(self) -> str:
        return f"{self.shape}, seed {self.seed}"


@dataclass
class Outcome:
    """What one child process did."""

    seconds: float
    cpu_seconds: float  # user + system CPU of the process and every descendant it waited for
    peak_rss_mb: float
    stdout: str
    stderr: str
    returncode: int
    timed_out: bool = False
    over_memory: bool = False  # killed when its process tree went over the memory limit
    load_average: float = 0.0  # the machine's 1-minute load average as the row started


@dataclass
class Row:
    key: str  # floor | naive | dlt | cold | noop | touch | append | cold_again
    label: str
    status: str = "ok"  # ok | missing (tool not installed) | timed_out | over_memory | failed
    seconds: float | None = None
    cpu_seconds: float | None = None
    peak_rss_mb: float | None = None
    db_bytes: int | None = None  # the database file as this row left it (+ its .wal)
    mb_per_s: float | None = None  # of the bytes the row read
    records_per_s: float | None = None
    load_average: float | None = None
    note: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out.extend(int(p) for p in fh.read().split())
    except OSError:
        pass
    return out


def _tree_rss_kb(pid: int) -> int:
    total, stack, seen = 0, [pid], set()
    while stack:
        p = stack.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue
        stack.extend(_children(p))
    return total


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # already gone
        pass


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
              timeout: float | None = None, memory_mb: float | None = None) -> Outcome:
    """Run cmd in its own session; kill its whole process group after timeout seconds, or
    as soon as the resident memory of its process tree exceeds memory_mb (the machine is
    shared: a peer that would take all of it is stopped and its row says so). CPU time is
    the difference of this process's waited-for children's usage around the run (one row
    runs at a time; the ingest waits for its parse workers, so theirs is included)."""
    load = os.getloadavg()[0]
    cpu_before = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, cwd=cwd,
                            start_new_session=True)
    peak = 0
    over_memory = False
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, over_memory
        while not done.is_set():
            peak = max(peak, _tree_rss_kb(proc.pid))
            if memory_mb is not None and peak > memory_mb * 1024 and not over_memory:
                over_memory = True
                _kill_group(proc.pid)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc.pid)
        out, err = proc.communicate()
    done.set()
    sampler.join()
    return Outcome(time.perf_counter() - started, _children_cpu() - cpu_before, peak / 1024,
                   out, err, proc.returncode, timed_out, over_memory, load)


def run_measured(cmd: list[str]) -> Outcome:
    """Run cmd; a failure is an error of the whole bench (the floor and our own ingest
    must run)."""
    return _succeeded(cmd, run_child(cmd))


def _succeeded(cmd: list[str], outcome: Outcome) -> Outcome:
    if outcome.returncode != 0:
        raise BenchError(f"{' '.join(cmd[:4])} ... failed:\n{outcome.stderr[-2000:]}")
    return outcome


def _measured_row(key: str, label: str, outcome: Outcome, **extra: Any) -> Row:
    return Row(key, label, seconds=outcome.seconds, cpu_seconds=outcome.cpu_seconds,
               peak_rss_mb=outcome.peak_rss_mb, load_average=outcome.load_average, **extra)


PARSE_FLOOR = """
import sys, orjson
n = 0
for path in sys.argv[1:]:
    with open(path, 'rb') as fh:
        for line in fh:
            if line.strip():
                try:
                    orjson.loads(line)
                except orjson.JSONDecodeError:
                    pass
                n += 1
print(n)
"""

NAIVE = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("SET enable_progress_bar = false")
con.execute("CREATE TABLE raw AS SELECT * FROM read_json_auto($files, union_by_name = true, "
            "ignore_errors = true, maximum_object_size = 1073741824, format = 'newline_delimited')",
            {"files": sys.argv[2:]})
print(con.execute("SELECT count(*) FROM raw").fetchall()[0][0])
con.close()
"""


def db_file_bytes(path: Path) -> int | None:
    """Bytes of a DuckDB database on disk: the file and its write-ahead log, if any."""
    if not path.exists():
        return None
    wal = path.with_name(path.name + ".wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _tree_key(scale: str, spec: TreeSpec) -> str:
    """What the cached tree was generated from: a new generator means a new tree."""
    sources = sorted((Path(__file__).parent / "synth").glob("*.py"))
    return f"{scale} {spec.gb} {spec.seed} {spec.shape} {fingerprint(sources)}\n"


def _silent(_: str) -> None:
    pass


def ensure_tree(home: Path, spec: TreeSpec, scale: str,
                notify: Callable[[str], None] = _silent) -> Path:
    """The tree of spec under home (generated once; again when the generator changed);
    notify hears that a tree is being generated (it takes minutes)."""
    tree = home / "tree"
    stamp = home / ".synth-done"
    key = _tree_key(scale, spec)
    if stamp.exists() and stamp.read_text() == key:
        undo_append(home)
        return tree
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    notify(f"generating the {scale} tree {spec.name} in {tree} (once) ...")
    subprocess.run([sys.executable, "-m", "etl.cli", "synth", str(tree), "--scale", scale,
                    "--bench-gb", str(spec.gb), "--seed", str(spec.seed),
                    "--shape", spec.shape], check=True, stdout=subprocess.DEVNULL)
    stamp.write_text(key)
    return tree


def warm_page_cache(paths: list[str]) -> None:
    """Read every file once, unmeasured, so that no row pays for the disk and the first
    (the floor) is not the only one that does: right after the tree is generated, a 2.5 GB
    tree's pages may still be on their way to the disk."""
    for path in dict.fromkeys(paths):
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass


# --- the file a running evaluation appends to ---------------------------------------------

def append_target(files: list[FileInfo]) -> FileInfo:
    """The largest results.jsonl of a current run (the shape of a run still being written);
    any largest result file when the tree has none."""
    tops = [f for f in files if f.kind == "results_top" and f.run_id]
    pool = tops or [f for f in files if f.kind in RESULT_KINDS]
    return max(pool, key=lambda f: (f.size_bytes, f.path))


def appended_record(path: Path) -> bytes:
    """A new line for path: its last record under a qid no line of the file has."""
    last: dict | None = None
    qids: set[str] = set()
    with open(path, "rb") as fh:
        for line in fh:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(record, dict):
                last = record
                qids.add(str(record.get("qid")))
    if last is None:
        raise BenchError(f"{path}: no JSON record to copy for the append row")
    n = 1
    while f"{last.get('qid')}-bench-append-{n}" in qids:
        n += 1
    return orjson.dumps({**last, "qid": f"{last.get('qid')}-bench-append-{n}"}) + b"\n"


def remember_file(home: Path, path: Path) -> None:
    """Write what undo_append needs before the file is touched or appended to."""
    st = path.stat()
    (home / APPEND_MARKER).write_text(json.dumps(
        {"path": str(path), "size": st.st_size, "atime_ns": st.st_atime_ns,
         "mtime_ns": st.st_mtime_ns}))


def undo_append(home: Path) -> None:
    """Give the touched / appended file its size and mtime back (after the rows, or at the
    start of the next run if this one was killed in between)."""
    marker = home / APPEND_MARKER
    try:
        saved = json.loads(marker.read_text())
    except (OSError, ValueError):
        return
    path = Path(saved["path"])
    if path.exists() and path.stat().st_size >= saved["size"]:
        os.truncate(path, saved["size"])
        os.utime(path, ns=(saved["atime_ns"], saved["mtime_ns"]))
    marker.unlink()


# --- the peers ------------------------------------------------------------------------------

def _peer_row(key: str, label: str, outcome: Outcome, timeout: float | None) -> Row:
    row = _measured_row(key, label, outcome)
    if outcome.timed_out:
        row.status, row.note = "timed_out", f"timed out after {timeout:g} s"
    elif outcome.over_memory:
        row.status = "over_memory"
        row.note = f"stopped at {outcome.peak_rss_mb:.0f} MB (over --peer-memory-mb)"
    elif outcome.returncode != 0:
        lines = outcome.stderr.strip().splitlines() or ["?"]
        said = [x for x in lines if "Error" in x or "Exception" in x] or lines
        row.status, row.note = "failed", f"failed (exit {outcome.returncode}): {said[-1][:160]}"
        row.detail["stderr_tail"] = lines[-30:]
    return row


def dlt_row(files: list[str], work: Path, result_bytes: int, timeout: float | None,
            memory_mb: float | None = None) -> Row:
    """The dlt peer in its own child process: fresh pipelines dir, data dir and project dir
    inside the work dir (no config of this machine's user is read), telemetry off."""
    dlt_dir = work / "dlt"
    env = {"RUNTIME__DLTHUB_TELEMETRY": "false", "DLT_DATA_DIR": str(dlt_dir / "home"),
           "DLT_PROJECT_DIR": str(dlt_dir / "project")}
    (dlt_dir / "project").mkdir(parents=True)
    db = work / "dlt.duckdb"
    outcome = run_child([sys.executable, str(DLT_PEER), str(db), str(dlt_dir / "pipelines"),
                         *files], env=env, cwd=dlt_dir / "project", timeout=timeout,
                        memory_mb=memory_mb)
    said: dict[str, Any] = {}
    if outcome.returncode == 0 and not outcome.timed_out:
        said = json.loads(outcome.stdout.strip().splitlines()[-1])
    if said.get("missing"):
        return Row("dlt", "dlt", status="missing",
                   note="dlt not installed: pip install -e '.[bench]' (make bench does)")
    row = _peer_row("dlt", f"dlt {said.get('dlt_version', '')}".strip(), outcome, timeout)
    if row.status != "ok":
        return row
    row.db_bytes = db_file_bytes(db)
    row.mb_per_s = result_bytes / 1e6 / outcome.seconds
    row.records_per_s = said["records"] / outcome.seconds
    children = [t for t in said["tables"] if t.startswith("results__")]
    row.note = (f"results + {len(children)} child tables, {said['records']} records, "
                f"{said['skipped_lines']} damaged lines skipped")
    row.detail = said
    return row


# --- one tree -------------------------------------------------------------------------------

@dataclass
class Settings:
    """What every tree is measured with."""

    scale: str = "bench"
    jobs: int = 0
    peer_timeout: float | None = 3600.0
    peer_memory_mb: float | None = 8192.0
    with_dlt: bool = False
    notify: Callable[[str], None] = _silent  # hears what takes long (a tree generated)
    # cold builds of each tree at the default settings (the first and the last are rows
    # of the table), counted for the out-of-memory target
    cold_builds: int = 2


@dataclass
class Tree:
    """A generated tree, what discover says of it and where its rows write."""

    spec: TreeSpec
    home: Path
    root: Path
    files: list[FileInfo]
    result_files: list[str]
    tree_bytes: int  # every loadable file
    result_bytes: int

    @classmethod
    def at(cls, home: Path, spec: TreeSpec, settings: Settings) -> Tree:
        root = ensure_tree(home, spec, settings.scale, settings.notify)
        disc = discover(root)
        results = [f for f in disc.files if f.kind in RESULT_KINDS]
        tree = cls(spec, home, root, disc.files, [str(f.abs_path) for f in results],
                   sum(f.size_bytes for f in disc.files), sum(f.size_bytes for f in results))
        shutil.rmtree(tree.work, ignore_errors=True)
        tree.work.mkdir()
        warm_page_cache([f.real_path for f in disc.files])
        return tree

    @property
    def work(self) -> Path:
        return self.home / "work"

    @property
    def db(self) -> Path:
        return self.work / "bench.duckdb"


def floor_row(tree: Tree) -> Row:
    outcome = run_measured([sys.executable, "-c", PARSE_FLOOR, *tree.result_files])
    n_lines = int(outcome.stdout.strip() or 0)
    return _measured_row("floor", "floor: orjson, 1 core", outcome,
                         mb_per_s=tree.result_bytes / 1e6 / outcome.seconds,
                         records_per_s=n_lines / outcome.seconds,
                         note="orjson.loads of every line of every result file, nothing else",
                         detail={"lines": n_lines})


def naive_row(tree: Tree, settings: Settings) -> Row:
    naive_db = tree.work / "naive.duckdb"
    outcome = run_child([sys.executable, "-c", NAIVE, str(naive_db), *tree.result_files],
                        timeout=settings.peer_timeout, memory_mb=settings.peer_memory_mb)
    row = _peer_row("naive", "naive: read_json_auto", outcome, settings.peer_timeout)
    if row.status == "ok":
        n_naive = int(outcome.stdout.strip() or 0)
        row.db_bytes = db_file_bytes(naive_db)
        row.mb_per_s = tree.result_bytes / 1e6 / outcome.seconds
        row.records_per_s = n_naive / outcome.seconds
        row.note = f"one wide table of raw nested JSON, {n_naive} rows"
    return row


# What `etl ingest` says when the load ran out of memory (etl/pipeline/memory.py).
OUT_OF_MEMORY_SAYS = "ran out of memory"


def ingest_row(tree: Tree, settings: Settings, key: str, label: str, *extra: str) -> Row:
    """One `etl ingest` of the tree into its work database; the figures it wrote with
    --summary-json are the row's detail. An ingest that ran out of memory is a row of its
    own status (a figure of the engine); any other failure stops the bench."""
    summary_path = tree.work / f"summary-{key}.json"
    summary_path.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "etl.cli", "ingest", str(tree.root), "--db", str(tree.db),
           "--quiet", "--jobs", str(settings.jobs), "--summary-json", str(summary_path),
           *extra]
    outcome = run_child(cmd)
    if outcome.returncode != 0 and OUT_OF_MEMORY_SAYS in outcome.stderr:
        said = next((line for line in outcome.stderr.splitlines()
                     if OUT_OF_MEMORY_SAYS in line), "")
        return _measured_row(key, label, outcome, status="out_of_memory",
                             note=said.removeprefix("Error: "))
    _succeeded(cmd, outcome)
    summary = json.loads(summary_path.read_text())
    return _measured_row(key, label, outcome, db_bytes=db_file_bytes(tree.db),
                         note=_ingest_note(summary), detail={"summary": summary})


def skipped_row(key: str, label: str, why: str) -> Row:
    return Row(key, label, status="skipped", note=why)


def _ingest_note(summary: dict[str, Any]) -> str:
    if summary["unchanged"]:
        return "nothing changed: database left as is"
    n = summary["n_parsed"]
    return (f"{n} file{'' if n == 1 else 's'} parsed ({summary['bytes_parsed'] / 1e6:.1f} MB); "
            f"parse {summary['stage_seconds']:.1f} s, load {summary['load_seconds']:.1f} s")


def touched_and_appended(tree: Tree, settings: Settings, rows: list[Row],
                         touch: bool = True) -> None:
    """The touch row (unless not touch) and the append row, on the append target; both
    undone afterwards."""
    target = append_target(tree.files)
    path = Path(target.real_path)
    remember_file(tree.home, path)
    try:
        if touch:
            os.utime(path, ns=(path.stat().st_atime_ns, time.time_ns()))
            row = ingest_row(tree, settings, "touch", "one file touched")
            row.note = f"mtime of 1 file moved: {row.note}"
            row.detail["touched"] = target.path
            rows.append(row)
        line = appended_record(path)
        with open(path, "ab") as fh:
            fh.write(line)
        row = ingest_row(tree, settings, "append", "one record appended")
        row.note = (f"+1 record ({_size(len(line))}) to a {_size(target.size_bytes)} "
                    f"{Path(target.path).name}: {row.note}")
        row.detail.update(appended_to=target.path, appended_bytes=len(line),
                          appended_qid=orjson.loads(line)["qid"])
        rows.append(row)
    finally:
        undo_append(tree.home)


def measure_tree(data: Path, spec: TreeSpec, settings: Settings) -> dict[str, Any]:
    """Every row on one tree, then its ratios and targets."""
    tree = Tree.at(data / spec.name, spec, settings)
    rows = [floor_row(tree), naive_row(tree, settings)]
    rows.append(dlt_row(tree.result_files, tree.work, tree.result_bytes, settings.peer_timeout,
                        settings.peer_memory_mb) if settings.with_dlt else
                Row("dlt", "dlt", status="missing", note="not run (--dlt runs it)"))
    cold = ingest_row(tree, settings, "cold", "ours cold (--full)", "--full")
    rows.append(cold)
    if cold.status == "ok":
        cold.mb_per_s = tree.tree_bytes / 1e6 / cold.seconds
        cold.records_per_s = rows[0].detail["lines"] / cold.seconds
        rows.append(ingest_row(tree, settings, "noop", "no-op re-ingest"))
        touched_and_appended(tree, settings, rows)
    else:
        why = "not run: the cold build failed"
        rows += [skipped_row("noop", "no-op re-ingest", why),
                 skipped_row("touch", "one file touched", why),
                 skipped_row("append", "one record appended", why)]
    # More cold builds for the out-of-memory count, then the last one (a row of the
    # table), which also writes DuckDB's profile of every statement of its load and leaves
    # its database for the profile's bytes.
    extra = [ingest_row(tree, settings, f"cold_{n}", f"ours cold, build {n}", "--full")
             for n in range(3, settings.cold_builds + 1)]
    profile_dir = tree.work / "profile"
    shutil.rmtree(profile_dir, ignore_errors=True)
    again = ingest_row(tree, settings, "cold_again", "ours cold, again", "--full",
                       "--profile-dir", str(profile_dir))
    again.note = f"the same tree, built again: {again.note}"
    rows.append(again)
    profile = (build_profile(tree, again, profile_dir) if again.status == "ok" else None)
    cold_builds = [cold, *extra, again]
    by = {r.key: r for r in rows}
    return {"name": spec.name, "label": spec.label, "shape": spec.shape, "seed": spec.seed,
            "gb": spec.gb, "tree_bytes": tree.tree_bytes, "result_file_bytes": tree.result_bytes,
            "result_files": len(tree.result_files), "result_lines": rows[0].detail["lines"],
            "db_bytes": cold.db_bytes, "rows": [asdict(r) for r in rows],
            "cold_builds": [_cold_build(r) for r in cold_builds], "profile": profile,
            "ratios": ratios(by, tree.tree_bytes), "targets": targets(by, cold_builds)}


def _cold_build(row: Row) -> dict[str, Any]:
    return {"status": row.status, "seconds": row.seconds, "cpu_seconds": row.cpu_seconds,
            "peak_rss_mb": row.peak_rss_mb, "db_bytes": row.db_bytes, "note": row.note}


def build_profile(tree: Tree, row: Row, profile_dir: Path) -> dict[str, Any]:
    """Where a cold build's time and the database it left its bytes go: the parse and the
    load, each step of the load (wall and CPU seconds), every statement of it (DuckDB's
    profile), and the bytes of each table and column in the file."""
    summary = row.detail["summary"]
    con = open_warehouse(tree.db, own_queries_only=True)
    try:
        columns = storage_bytes(con)
        used = con.execute("SELECT used_blocks * block_size FROM pragma_database_size()"
                           ).fetchall()[0][0]
    finally:
        con.close()
    tables: dict[str, int] = {}
    for c in columns:
        tables[c["table"]] = tables.get(c["table"], 0) + c["bytes"]
    return {"parse_seconds": summary["stage_seconds"], "load_seconds": summary["load_seconds"],
            "memory_limit": summary.get("memory_limit"), "steps": summary.get("load_steps", []),
            "statements": read_profile(profile_dir), "columns": columns,
            "tables": sorted(tables.items(), key=lambda kv: -kv[1]),
            "used_bytes": used, "other_bytes": used - sum(tables.values())}


def measure_scaling(data: Path, spec: TreeSpec, sizes: list[float], settings: Settings,
                    full_size: dict[str, Any]) -> dict[str, Any]:
    """Floor, cold and append at each smaller size of spec's shape and seed, and the same
    rows of the full-size tree (already measured), smallest first; then the growth target."""
    points = []
    for gb in sizes:
        if gb >= spec.gb:
            continue
        tree = Tree.at(data / TreeSpec(spec.shape, spec.seed, gb).name,
                       TreeSpec(spec.shape, spec.seed, gb), settings)
        rows = [floor_row(tree), ingest_row(tree, settings, "cold", "ours cold (--full)",
                                            "--full")]
        touched_and_appended(tree, settings, rows, touch=False)
        by = {r.key: r for r in rows}
        points.append(_scaling_point(gb, tree.tree_bytes, by))
    by = {r["key"]: Row(**r) for r in full_size["rows"]}
    points.append(_scaling_point(spec.gb, full_size["tree_bytes"], by))
    first, last = points[0], points[-1]
    growth = (_quotient(last["append_seconds"], first["append_seconds"])
              if len(points) > 1 else None)
    return {"shape": spec.shape, "seed": spec.seed, "points": points,
            "targets": [_check("append_growth", growth, APPEND_GROWTH_MAX,
                               smallest_gb=first["gb"], largest_gb=last["gb"])]}


def _scaling_point(gb: float, tree_bytes: int, by: dict[str, Row]) -> dict[str, Any]:
    return {"gb": gb, "tree_bytes": tree_bytes, "floor_seconds": by["floor"].seconds,
            "cold_seconds": _seconds(by["cold"]), "cold_cpu_seconds": by["cold"].cpu_seconds,
            "append_seconds": _seconds(by["append"]),
            "append_cpu_seconds": by["append"].cpu_seconds,
            "cold_db_bytes": by["cold"].db_bytes, "cold_peak_rss_mb": by["cold"].peak_rss_mb,
            "load_average": by["cold"].load_average}


def run_bench(data: Path, trees: list[TreeSpec], settings: Settings,
              scaling_gb: list[float] | None = None) -> dict[str, Any]:
    """Generate (once) each tree under data, take every row on each (see the module
    docstring), then the scaling rows on the first tree's shape; return the report."""
    data = data.resolve()  # the dlt row runs in a directory of its own
    started = time.perf_counter()
    load_start = os.getloadavg()
    measured = [measure_tree(data, spec, settings) for spec in trees]
    scaling = (measure_scaling(data, trees[0], scaling_gb, settings, measured[0])
               if scaling_gb else None)
    return {"jobs": settings.jobs or os.cpu_count(), "scale": settings.scale,
            "peer_timeout_seconds": settings.peer_timeout,
            "peer_memory_mb": settings.peer_memory_mb,
            "load_average_start": list(load_start), "load_average_end": list(os.getloadavg()),
            "seconds": time.perf_counter() - started, "trees": measured, "scaling": scaling}


# --- ratios and targets ---------------------------------------------------------------------

def _quotient(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _seconds(row: Row) -> float | None:
    """A row's time, if it ran to the end (a timed-out or failed row has no figure)."""
    return row.seconds if row.status == "ok" else None


def ratios(by: dict[str, Row], tree_bytes: int) -> dict[str, float | None]:
    """Every ratio the tables show (None where a row has no figure): time over the floor,
    the no-op / touch / append ingests over the cold one, ours over each peer, sizes."""
    cold = by["cold"]
    out: dict[str, float | None] = {}
    for key, row in by.items():
        out[f"{key}_over_floor"] = _quotient(_seconds(row), _seconds(by["floor"]))
    for key in ("noop", "touch", "append", "cold_again"):
        out[f"{key}_over_cold"] = _quotient(_seconds(by[key]), _seconds(cold))
    out["cold_over_naive"] = _quotient(_seconds(cold), _seconds(by["naive"]))
    out["cold_over_dlt"] = _quotient(_seconds(cold), _seconds(by["dlt"]))
    out["db_over_naive"] = _quotient(cold.db_bytes, by["naive"].db_bytes)
    out["db_over_dlt"] = _quotient(cold.db_bytes, by["dlt"].db_bytes)
    out["db_over_raw"] = _quotient(cold.db_bytes, tree_bytes)
    return out


def _check(name: str, value: float | None, limit: float, strict: bool = False,
           **extra: Any) -> dict[str, Any]:
    met = None if value is None else (value < limit if strict else value <= limit)
    return {"name": name, "value": value, "limit": limit, "rule": "<" if strict else "<=",
            "met": met, **extra}


def size_spread(a: int | None, b: int | None) -> float | None:
    """How far apart two sizes are, over the smaller one."""
    if not a or not b:
        return None
    return abs(a - b) / min(a, b)


def targets(by: dict[str, Row], cold_builds: list[Row] | None = None
            ) -> list[dict[str, Any]]:
    """The targets of one tree, each with the figure measured and met (None: not measured,
    e.g. the naive row failed). cold_builds: every cold build of the tree (the cold rows
    when not given)."""
    cold = by["cold"]
    builds = cold_builds if cold_builds is not None else [by["cold"], by["cold_again"]]
    over_floor = _quotient(_seconds(cold), by["floor"].seconds)
    peaks = {r.key: r.peak_rss_mb for r in [*(by[k] for k in OURS), *builds]
             if r.peak_rss_mb is not None}
    worst = max(peaks, key=lambda k: peaks[k])
    failed = sum(r.status == "out_of_memory" for r in builds)
    return [
        _check("cold_over_floor", over_floor, COLD_OVER_FLOOR_MAX,
               stretch=COLD_OVER_FLOOR_STRETCH,
               stretch_met=None if over_floor is None else over_floor <= COLD_OVER_FLOOR_STRETCH),
        _check("cold_over_naive", _quotient(_seconds(cold), _seconds(by["naive"])),
               COLD_OVER_NAIVE_MAX),
        _check("append_over_cold", _quotient(_seconds(by["append"]), _seconds(cold)),
               APPEND_OVER_COLD_MAX),
        _check("append_seconds", _seconds(by["append"]), APPEND_SECONDS_BELOW, strict=True),
        _check("touch_over_cold", _quotient(_seconds(by["touch"]), _seconds(cold)),
               TOUCH_OVER_COLD_MAX),
        _check("noop_over_cold", _quotient(_seconds(by["noop"]), _seconds(cold)),
               NOOP_OVER_COLD_MAX),
        _check("cold_out_of_memory", failed, COLD_OUT_OF_MEMORY_MAX, builds=len(builds)),
        _check("peak_rss_mb", peaks[worst], PEAK_RSS_MB_BELOW, strict=True, row=worst),
        _check("db_over_naive", _quotient(cold.db_bytes, by["naive"].db_bytes),
               DB_OVER_NAIVE_MAX),
        _check("cold_size_spread", size_spread(cold.db_bytes, by["cold_again"].db_bytes),
               COLD_SIZE_SPREAD_MAX),
    ]


# --- the tables -----------------------------------------------------------------------------

def verdict(target: dict[str, Any]) -> str:
    if target["met"] is None:
        return "not measured"
    if not target["met"]:
        return "MISSED"
    if target.get("stretch_met") is False:
        return "met (stretch MISSED)"
    return "met (stretch met)" if target.get("stretch_met") else "met"


def _cell(value: float | None, fmt: str) -> str:
    """value in fmt (e.g. '8.2f'), or a dash as wide."""
    return format(value, fmt) if value is not None else "-".rjust(int(fmt.split(".")[0]))


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB" if n_bytes >= 1e6 else f"{n_bytes / 1e3:.0f} kB"


def _times(v: float) -> str:
    return f"{v:.2f}x"


def _share(v: float) -> str:
    return f"{v:.1%}"


# name -> (label, how the value is shown, how the limit is shown)
TARGET_TEXT: dict[str, tuple[str, Callable[[float], str], Callable[[dict], str]]] = {
    "cold_over_floor": ("cold build / floor", _times,
                        lambda t: f"<= {t['limit']:g}x (stretch {t['stretch']:g}x)"),
    "cold_over_naive": ("cold build / naive load", _times, lambda t: f"<= {t['limit']:g}x"),
    "append_over_cold": ("one record appended / cold", _share, lambda t: f"<= {t['limit']:.0%}"),
    "append_seconds": ("one record appended", lambda v: f"{v:.2f} s",
                       lambda t: f"< {t['limit']:g} s"),
    "touch_over_cold": ("one file touched / cold", _share, lambda t: f"<= {t['limit']:.0%}"),
    "noop_over_cold": ("no-op / cold", _share, lambda t: f"<= {t['limit']:.0%}"),
    "cold_out_of_memory": ("cold builds out of memory", lambda v: f"{v:.0f}",
                           lambda t: f"<= {t['limit']:g}"),
    "peak_rss_mb": ("peak memory, ours", lambda v: f"{v:.0f} MB", lambda t: f"< {t['limit']:g} MB"),
    "db_over_naive": ("our db / naive db", _times, lambda t: f"<= {t['limit']:g}x"),
    "cold_size_spread": ("db size, two cold builds", lambda v: f"{v:.1%} apart",
                         lambda t: f"<= {t['limit']:.0%} apart"),
    "append_growth": ("append, largest / smallest", _times, lambda t: f"<= {t['limit']:g}x"),
}


def target_cell(t: dict[str, Any]) -> str:
    """'<figure> <verdict>' of one target (peak memory: and which row had it)."""
    _, show, _ = TARGET_TEXT[t["name"]]
    figure = "-" if t["value"] is None else show(t["value"])
    if t["name"] == "peak_rss_mb":
        figure += f" ({t['row']})"
    if t["name"] == "cold_out_of_memory" and t["value"] is not None:
        figure += f" of {t['builds']}"
    return f"{figure} {verdict(t)}"


def format_tree(tree: dict[str, Any]) -> list[str]:
    rows = tree["rows"]
    floor = rows[0]["seconds"]
    width = 26
    lines = [f"tree {tree['label']}: {tree['tree_bytes'] / 1e9:.2f} GB "
             f"({tree['result_file_bytes'] / 1e9:.2f} GB in {tree['result_files']} result "
             f"files, {tree['result_lines']} lines)",
             f"{'row':{width}s} {'seconds':>8s} {'cpu s':>7s} {'x floor':>8s} {'MB/s':>7s} "
             f"{'peak MB':>8s} {'db MB':>8s} {'load':>5s}  note"]
    for r in rows:
        ok = r["status"] == "ok"
        secs = r["seconds"] if ok else None
        x = secs / floor if secs is not None else None
        lines.append(
            f"{r['label']:{width}s} {_cell(secs, '8.2f')} {_cell(r['cpu_seconds'], '7.1f')} "
            f"{_cell(x, '8.2f')} {_cell(r['mb_per_s'], '7.1f')} "
            f"{_cell(r['peak_rss_mb'], '8.0f')} "
            f"{_cell(None if r['db_bytes'] is None else r['db_bytes'] / 1e6, '8.1f')} "
            f"{_cell(r['load_average'], '5.1f')}  {r['note']}")
    builds = tree.get("cold_builds") or []
    if len(builds) > 2:
        lines.append(format_cold_builds(builds))
    return lines


def format_cold_builds(builds: list[dict[str, Any]]) -> str:
    """One line on every cold build of a tree: how many ran out of memory, the median
    seconds and CPU seconds of those that finished, the highest peak memory of all."""
    done = [b for b in builds if b["status"] == "ok"]
    failed = sum(b["status"] == "out_of_memory" for b in builds)
    peaks = [b["peak_rss_mb"] for b in builds if b["peak_rss_mb"] is not None]
    line = f"{len(builds)} cold builds: {failed} out of memory"
    if done:
        line += (f"; median {statistics.median(b['seconds'] for b in done):.1f} s, "
                 f"{statistics.median(b['cpu_seconds'] for b in done):.1f} CPU s")
    if peaks:
        line += f"; peak memory {max(peaks):.0f} MB at most"
    return line


def format_profile(tree: dict[str, Any], top: int = 10) -> list[str]:
    """Where the last cold build of a tree spent its time and its database its bytes."""
    prof = tree.get("profile")
    if not prof:
        return []
    lines = [f"profile of the last cold build ({tree['label']}): parse "
             f"{prof['parse_seconds']:.1f} s, load {prof['load_seconds']:.1f} s, DuckDB "
             f"memory limit {prof['memory_limit']}",
             "  load steps, by wall time:  wall s   cpu s  step"]
    for name, wall, cpu in sorted(prof["steps"], key=lambda x: -x[1])[:top]:
        lines.append(f"  {'':24s} {wall:7.2f} {cpu:7.2f}  {name}")
    lines.append("  statements, by CPU time:   cpu s  wall s  peak MB  spill MB  statement")
    for st in sorted(prof["statements"], key=lambda x: -x["cpu_seconds"])[:top]:
        lines.append(f"  {'':24s} {st['cpu_seconds']:7.2f} {st['seconds']:7.2f} "
                     f"{st['peak_buffer_bytes'] / 1e6:8.0f} {st['spilled_bytes'] / 1e6:9.0f}  "
                     f"{st['sql'][:90]}")
    lines.append(f"  bytes in the file ({prof['used_bytes'] / 1e6:.1f} MB): " + ", ".join(
        f"{t} {b / 1e6:.1f}" for t, b in prof["tables"][:6])
        + f", metadata and indexes {prof['other_bytes'] / 1e6:.1f} MB")
    lines.append("  largest columns: " + ", ".join(
        f"{c['table']}.{c['column']} {c['bytes'] / 1e6:.1f} ({c['compression']})"
        for c in prof["columns"][:6]))
    return lines


def format_targets(trees: list[dict[str, Any]]) -> list[str]:
    """One line per target, one column per tree: the figure and met / MISSED."""
    width, col = 28, 34
    lines = [f"{'target':{width}s} {'limit':22s} "
             + " ".join(f"{t['label']:{col}s}" for t in trees).rstrip()]
    by_tree = [{t["name"]: t for t in tree["targets"]} for tree in trees]
    for name in (t["name"] for t in trees[0]["targets"]):
        label, _, limit = TARGET_TEXT[name]
        cells = [target_cell(b[name]) for b in by_tree]
        lines.append(f"{label:{width}s} {limit(by_tree[0][name]):22s} "
                     + " ".join(f"{c:{col}s}" for c in cells).rstrip())
    return lines


def format_scaling(scaling: dict[str, Any]) -> list[str]:
    lines = [f"scaling ({scaling['shape']}, seed {scaling['seed']}): "
             "the append must stay flat while the tree grows",
             f"{'--bench-gb':>10s} {'tree GB':>8s} {'floor s':>8s} {'cold s':>8s} "
             f"{'cold cpu':>9s} {'append s':>9s} {'append cpu':>11s} {'db MB':>8s} "
             f"{'load':>5s}"]
    for p in scaling["points"]:
        db = None if p["cold_db_bytes"] is None else p["cold_db_bytes"] / 1e6
        lines.append(f"{p['gb']:10g} {p['tree_bytes'] / 1e9:8.2f} "
                     f"{_cell(p['floor_seconds'], '8.2f')} {_cell(p['cold_seconds'], '8.2f')} "
                     f"{_cell(p['cold_cpu_seconds'], '9.1f')} "
                     f"{_cell(p['append_seconds'], '9.2f')} "
                     f"{_cell(p['append_cpu_seconds'], '11.1f')} {_cell(db, '8.1f')} "
                     f"{_cell(p['load_average'], '5.1f')}")
    for t in scaling["targets"]:
        label, _, limit = TARGET_TEXT[t["name"]]
        lines.append(f"{label:28s} {limit(t):22s} {target_cell(t)}")
    return lines


def format_report(report: dict[str, Any]) -> str:
    """Every tree's rows, then the targets side by side, then the scaling rows."""
    lines = [f"jobs {report['jobs']}, load average {report['load_average_start'][0]:.1f} at "
             f"the start, {report['load_average_end'][0]:.1f} at the end "
             f"({report['seconds'] / 60:.1f} min)"]
    for tree in report["trees"]:
        lines += ["", *format_tree(tree)]
    for tree in report["trees"]:
        if tree.get("profile"):
            lines += ["", *format_profile(tree)]
    lines += ["", *format_targets(report["trees"])]
    if report.get("scaling"):
        lines += ["", *format_scaling(report["scaling"])]
    appended = {t["label"]: next(r for r in t["rows"] if r["key"] == "append")["detail"]
                .get("appended_to") for t in report["trees"]}
    lines += ["", "touched, then appended to: "
              + "; ".join(f"{k}: {v}" for k, v in appended.items())]
    return "\n".join(lines)
