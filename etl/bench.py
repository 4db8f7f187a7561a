"""`etl bench`: the ingest side by side with its peers, in one run, against issue 16's targets.

Rows, in the order they run (each in its own child process, while a sampler adds up the
resident memory of that process and all its descendants, so peak memory is the whole
process tree's, the ingest's parse workers included):

- floor: orjson.loads of every line of every result file, one process, nothing else;
- naive: DuckDB read_json_auto of the same files into one wide table;
- dlt: what a data engineer would write instead (etl/bench_dlt_peer.py: dlt normalizes
  the nested JSON of the same files into DuckDB child tables), if dlt is installed;
- ours cold: `etl ingest --full` into an empty work directory (no parse cache);
- no-op: `etl ingest` again, nothing changed;
- ours warm: one result file touched (mtime only): its content hash is checked, nothing is
  parsed, and every table and view is rebuilt from the warm parse cache;
- append one record: one record appended to the largest results.jsonl of a run (what a
  running evaluation does), then `etl ingest`.

The appended line and the touch are undone afterwards (the file is truncated back to its
size and given its mtime again; a marker file beside the tree says what to undo if the run
was killed), so the cached tree stays the one it was generated as."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import click
import orjson

from etl.extract import FileInfo
from etl.pipeline.copies import RESULT_KINDS
from etl.pipeline.discover import discover
from etl.schema import fingerprint

# Issue 16's targets. A time ratio is ours over the other row's seconds.
FULL_OVER_FLOOR_MAX = 2.0  # full ingest <= 2.0x the one-core orjson parse floor
FULL_OVER_FLOOR_STRETCH = 1.5
DB_OVER_NAIVE_MAX = 1.0  # our database no larger than the naive load's
PEAK_RSS_MB_BELOW = 1024.0  # peak memory of the whole process tree < 1 GB
NOOP_OVER_FULL_MAX = 0.03  # a no-op re-ingest <= 3% of a full one

OURS = ("ours_cold", "noop", "ours_warm", "append")
APPEND_MARKER = ".append-pending.json"
DLT_PEER = Path(__file__).with_name("bench_dlt_peer.py")


@dataclass
class Outcome:
    """What one child process did."""

    seconds: float
    peak_rss_mb: float
    stdout: str
    stderr: str
    returncode: int
    timed_out: bool = False
    over_memory: bool = False  # killed when its process tree went over the memory limit


@dataclass
class Row:
    key: str  # floor | naive | dlt | ours_cold | noop | ours_warm | append
    label: str
    status: str = "ok"  # ok | missing (tool not installed) | timed_out | over_memory | failed
    seconds: float | None = None
    peak_rss_mb: float | None = None
    db_bytes: int | None = None  # the database file as this row left it (+ its .wal)
    mb_per_s: float | None = None  # of the bytes the row read
    records_per_s: float | None = None
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


def run_child(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
              timeout: float | None = None, memory_mb: float | None = None) -> Outcome:
    """Run cmd in its own session; kill its whole process group after timeout seconds, or
    as soon as the resident memory of its process tree exceeds memory_mb (the machine is
    shared: a peer that would take all of it is stopped and its row says so)."""
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
    return Outcome(time.perf_counter() - started, peak / 1024, out, err, proc.returncode,
                   timed_out, over_memory)


def run_measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run cmd; return (seconds, peak RSS of its process tree in MB, stdout); a failure is
    an error of the whole bench (the floor and our own ingest must run)."""
    outcome = run_child(cmd, env)
    if outcome.returncode != 0:
        raise click.ClickException(f"{' '.join(cmd[:4])} ... failed:\n{outcome.stderr[-2000:]}")
    return outcome.seconds, outcome.peak_rss_mb, outcome.stdout


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


def _tree_key(scale: str, gb: float, seed: int) -> str:
    """What the cached tree was generated from: a new generator means a new tree."""
    sources = sorted((Path(__file__).parent / "synth").glob("*.py"))
    return f"{scale} {gb} {seed} {fingerprint(sources)}\n"


def _ensure_tree(data: Path, gb: float, seed: int, scale: str) -> Path:
    tree = data / "tree"
    stamp = data / ".synth-done"
    key = _tree_key(scale, gb, seed)
    if stamp.exists() and stamp.read_text() == key:
        undo_append(data)
        return tree
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    click.echo(f"generating a {scale} tree ({gb} GB for bench) in {tree} (once) ...", err=True)
    subprocess.run([sys.executable, "-m", "etl.cli", "synth", str(tree), "--scale", scale,
                    "--bench-gb", str(gb), "--seed", str(seed)], check=True,
                   stdout=subprocess.DEVNULL)
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
        raise click.ClickException(f"{path}: no JSON record to copy for the append row")
    n = 1
    while f"{last.get('qid')}-bench-append-{n}" in qids:
        n += 1
    return orjson.dumps({**last, "qid": f"{last.get('qid')}-bench-append-{n}"}) + b"\n"


def remember_file(data: Path, path: Path) -> None:
    """Write what undo_append needs before the file is touched or appended to."""
    st = path.stat()
    (data / APPEND_MARKER).write_text(json.dumps(
        {"path": str(path), "size": st.st_size, "atime_ns": st.st_atime_ns,
         "mtime_ns": st.st_mtime_ns}))


def undo_append(data: Path) -> None:
    """Give the touched / appended file its size and mtime back (after the rows, or at the
    start of the next run if this one was killed in between)."""
    marker = data / APPEND_MARKER
    try:
        saved = json.loads(marker.read_text())
    except (OSError, ValueError):
        return
    path = Path(saved["path"])
    if path.exists() and path.stat().st_size >= saved["size"]:
        os.truncate(path, saved["size"])
        os.utime(path, ns=(saved["atime_ns"], saved["mtime_ns"]))
    marker.unlink()


# --- reading what `etl ingest` said ---------------------------------------------------------

_PARSED = re.compile(r"(\d+) parsed \(([\d.]+) MB")
_RESULTS = re.compile(r"^\s*results\s+(\d+)", re.MULTILINE)


def ingest_said(stdout: str) -> dict[str, Any]:
    """The summary of one `etl ingest`: nothing changed, or files parsed and results."""
    first = stdout.strip().splitlines()[0] if stdout.strip() else ""
    said: dict[str, Any] = {"unchanged": "nothing changed" in first}
    if said["unchanged"]:
        said.update(files_parsed=0, mb_parsed=0.0)
    elif m := _PARSED.search(stdout):
        said.update(files_parsed=int(m.group(1)), mb_parsed=float(m.group(2)))
    if m := _RESULTS.search(stdout):
        said["results"] = int(m.group(1))
    said["summary"] = stdout.strip().splitlines()
    return said


def _ingest_note(said: dict[str, Any]) -> str:
    if said["unchanged"]:
        return "nothing changed: database left as is"
    if "files_parsed" in said:
        n = said["files_parsed"]
        return f"{n} file{'' if n == 1 else 's'} parsed ({said['mb_parsed']:.1f} MB), rebuilt"
    return (said["summary"] or ["?"])[0][:60]


# --- the rows -------------------------------------------------------------------------------

def _peer_row(key: str, label: str, outcome: Outcome, timeout: float | None) -> Row:
    row = Row(key, label, seconds=outcome.seconds, peak_rss_mb=outcome.peak_rss_mb)
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


def run_bench(data: Path, gb: float, seed: int, jobs: int, scale: str = "bench",
              peer_timeout: float | None = 3600.0, with_dlt: bool = True,
              peer_memory_mb: float | None = 8192.0) -> dict:
    """Generate (once) the tree under data, take every row in order (see the module
    docstring) and return the report: rows, ratios, issue 16's targets."""
    data = data.resolve()  # the dlt row runs in a directory of its own
    tree = _ensure_tree(data, gb, seed, scale)
    disc = discover(tree)
    result_infos = [f for f in disc.files if f.kind in RESULT_KINDS]
    result_files = [str(f.abs_path) for f in result_infos]
    loadable_bytes = sum(f.size_bytes for f in disc.files)
    result_bytes = sum(f.size_bytes for f in result_infos)
    work = data / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    db = work / "bench.duckdb"
    py = sys.executable
    rows: list[Row] = []
    warm_page_cache([f.real_path for f in disc.files])

    secs, rss, out = run_measured([py, "-c", PARSE_FLOOR, *result_files])
    n_lines = int(out.strip() or 0)
    rows.append(Row("floor", "floor: orjson, 1 core", seconds=secs, peak_rss_mb=rss,
                    mb_per_s=result_bytes / 1e6 / secs, records_per_s=n_lines / secs,
                    note="orjson.loads of every line of every result file, nothing else"))

    naive_db = work / "naive.duckdb"
    outcome = run_child([py, "-c", NAIVE, str(naive_db), *result_files], timeout=peer_timeout,
                        memory_mb=peer_memory_mb)
    row = _peer_row("naive", "naive: read_json_auto", outcome, peer_timeout)
    if row.status == "ok":
        n_naive = int(outcome.stdout.strip() or 0)
        row.db_bytes = db_file_bytes(naive_db)
        row.mb_per_s = result_bytes / 1e6 / outcome.seconds
        row.records_per_s = n_naive / outcome.seconds
        row.note = f"one wide table of raw nested JSON, {n_naive} rows"
    rows.append(row)

    rows.append(dlt_row(result_files, work, result_bytes, peer_timeout, peer_memory_mb)
                if with_dlt else
                Row("dlt", "dlt", status="missing", note="skipped (--no-dlt)"))

    ingest = [py, "-m", "etl.cli", "ingest", str(tree), "--db", str(db), "--quiet",
              "--jobs", str(jobs)]

    def ours(key: str, label: str, cmd: list[str], note: str = "") -> dict[str, Any]:
        secs, rss, out = run_measured(cmd)
        said = ingest_said(out)
        rows.append(Row(key, label, seconds=secs, peak_rss_mb=rss, db_bytes=db_file_bytes(db),
                        note=note or _ingest_note(said), detail=said))
        return said

    cold = ours("ours_cold", "ours cold (--full)", [*ingest, "--full"],
                "every table and view, empty parse cache")
    rows[-1].mb_per_s = loadable_bytes / 1e6 / rows[-1].seconds
    rows[-1].records_per_s = n_lines / rows[-1].seconds
    ours("noop", "no-op re-ingest", ingest)

    target = append_target(disc.files)
    path = Path(target.real_path)
    remember_file(data, path)
    try:
        os.utime(path, ns=(path.stat().st_atime_ns, time.time_ns()))
        said = ours("ours_warm", "ours warm (touch 1 file)", ingest)
        rows[-1].note = f"1 file touched: {_ingest_note(said)} from the cache"
        rows[-1].detail["touched"] = target.path
        line = appended_record(path)
        with open(path, "ab") as fh:
            fh.write(line)
        said = ours("append", "append one record", ingest)
        rows[-1].note = (f"+1 record ({_size(len(line))}) to a {_size(target.size_bytes)} "
                         f"{Path(target.path).name}: {_ingest_note(said)}")
        rows[-1].detail.update(appended_to=target.path, appended_bytes=len(line),
                               appended_qid=orjson.loads(line)["qid"])
    finally:
        undo_append(data)

    by = {r.key: r for r in rows}
    report = {
        "tree_bytes": loadable_bytes, "result_file_bytes": result_bytes,
        "result_files": len(result_files), "result_lines": n_lines,
        "jobs": jobs or os.cpu_count(), "db_bytes": by["ours_cold"].db_bytes,
        "image_base64_chars_in_tree": _image_bytes(db),
        "peer_timeout_seconds": peer_timeout, "peer_memory_mb": peer_memory_mb,
        "rows": [asdict(r) for r in rows],
        "ratios": ratios(by, loadable_bytes),
        "targets": targets(by),
        "ingest_summary": cold["summary"],
    }
    return report


def _quotient(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _seconds(row: Row) -> float | None:
    """A row's time, if it ran to the end (a timed-out or failed row has no figure)."""
    return row.seconds if row.status == "ok" else None


def ratios(by: dict[str, Row], tree_bytes: int) -> dict[str, float | None]:
    """Every ratio the table shows (None where a row has no figure): time over the floor,
    ours over each peer, the no-op / warm / append rebuilds over the cold one, sizes."""
    cold = by["ours_cold"]
    out: dict[str, float | None] = {}
    for key, row in by.items():
        out[f"{key}_over_floor"] = _quotient(_seconds(row), _seconds(by["floor"]))
    for key in ("noop", "ours_warm", "append"):
        out[f"{key}_over_full"] = _quotient(_seconds(by[key]), cold.seconds)
    out["full_over_naive"] = _quotient(cold.seconds, _seconds(by["naive"]))
    out["full_over_dlt"] = _quotient(cold.seconds, _seconds(by["dlt"]))
    out["db_over_naive"] = _quotient(cold.db_bytes, by["naive"].db_bytes)
    out["db_over_dlt"] = _quotient(cold.db_bytes, by["dlt"].db_bytes)
    out["db_over_raw"] = _quotient(cold.db_bytes, tree_bytes)
    return out


def targets(by: dict[str, Row]) -> list[dict[str, Any]]:
    """Issue 16's four targets, each with the figure measured and met (None: not measured,
    e.g. the naive row failed)."""
    cold = by["ours_cold"]
    full = _quotient(cold.seconds, by["floor"].seconds)
    peaks = {k: by[k].peak_rss_mb for k in OURS if by[k].peak_rss_mb is not None}
    worst = max(peaks, key=lambda k: peaks[k])

    def check(name: str, value: float | None, limit: float, strict: bool = False,
              **extra: Any) -> dict[str, Any]:
        met = None if value is None else (value < limit if strict else value <= limit)
        return {"name": name, "value": value, "limit": limit,
                "rule": "<" if strict else "<=", "met": met, **extra}

    return [
        check("full_over_floor", full, FULL_OVER_FLOOR_MAX, stretch=FULL_OVER_FLOOR_STRETCH,
              stretch_met=None if full is None else full <= FULL_OVER_FLOOR_STRETCH),
        check("db_over_naive", _quotient(cold.db_bytes, by["naive"].db_bytes), DB_OVER_NAIVE_MAX),
        check("peak_rss_mb", peaks[worst], PEAK_RSS_MB_BELOW, strict=True, row=worst),
        check("noop_over_full", _quotient(by["noop"].seconds, cold.seconds), NOOP_OVER_FULL_MAX),
    ]


def _image_bytes(db: Path) -> int:
    import duckdb
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT coalesce(sum(data_chars), 0) FROM images").fetchall()[0][0])
    finally:
        con.close()


# --- the table ------------------------------------------------------------------------------

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


def format_report(report: dict) -> str:
    """One table: every row side by side, then issue 16's targets, each met or MISSED."""
    rows = {r["key"]: r for r in report["rows"]}
    floor = rows["floor"]["seconds"]
    width = 26
    lines = [f"tree {report['tree_bytes'] / 1e9:.2f} GB ({report['result_file_bytes'] / 1e9:.2f}"
             f" GB in {report['result_files']} result files, {report['result_lines']} lines), "
             f"jobs {report['jobs']}",
             f"{'row':{width}s} {'seconds':>8s} {'x floor':>8s} {'MB/s':>7s} {'peak MB':>8s} "
             f"{'db MB':>8s}  note"]
    for r in report["rows"]:
        x = r["seconds"] / floor if r["seconds"] is not None and r["status"] == "ok" else None
        secs = r["seconds"] if r["status"] == "ok" else None
        lines.append(
            f"{r['label']:{width}s} {_cell(secs, '8.2f')} {_cell(x, '8.2f')} "
            f"{_cell(r['mb_per_s'], '7.1f')} {_cell(r['peak_rss_mb'], '8.0f')} "
            f"{_cell(None if r['db_bytes'] is None else r['db_bytes'] / 1e6, '8.1f')}  "
            f"{r['note']}")
    lines.append(f"{'target (issue 16)':{width}s} {'measured':>17s}  {'target':22s}  verdict")
    shown = {
        "full_over_floor": ("full ingest / floor", lambda v: f"{v:.2f}x",
                            lambda t: f"<= {t['limit']:g}x, stretch {t['stretch']:g}x"),
        "db_over_naive": ("our db / naive db", lambda v: f"{v:.2f}x",
                          lambda t: f"<= {t['limit']:g}x"),
        "peak_rss_mb": ("peak memory, ours", lambda v: f"{v:.0f} MB",
                        lambda t: f"< {t['limit']:g} MB"),
        "noop_over_full": ("no-op / full ingest", lambda v: f"{v:.1%}",
                           lambda t: f"<= {t['limit']:.0%}"),
    }
    for t in report["targets"]:
        label, value, limit = shown[t["name"]]
        measured = "-" if t["value"] is None else value(t["value"])
        if t["name"] == "peak_rss_mb":
            measured += f" ({rows[t['row']]['label'].split(' (')[0]})"
        lines.append(f"{label:{width}s} {measured:>17s}  {limit(t):22s}  {verdict(t)}")
    append = rows["append"]["detail"]
    lines.append(f"touched, then appended to: {append.get('appended_to')}")
    return "\n".join(lines)


@click.command("bench")
@click.option("--data", type=click.Path(file_okay=False, path_type=Path),
              default=Path("bench-data"), show_default=True,
              help="Where the bench tree is generated (once, then reused) and measured.")
@click.option("--gb", type=float, default=2.5, show_default=True,
              help="Approximate size of the generated bench tree.")
@click.option("--seed", type=int, default=11, show_default=True,
              help="Generator seed of the bench tree.")
@click.option("--scale", type=click.Choice(["bench", "full", "demo"]), default="bench",
              show_default=True, help="Tree scale (demo: a quick smoke run of the harness).")
@click.option("--jobs", "-j", type=int, default=0, show_default="one per core",
              help="Parse workers of the measured ingest.")
@click.option("--peer-timeout", type=float, default=3600.0, show_default=True,
              help="Seconds the naive and the dlt row may each take before they are killed "
                   "(the row then says 'timed out after N s').")
@click.option("--peer-memory-mb", type=float, default=8192.0, show_default=True,
              help="Memory (MB, the peer's whole process tree) at which the naive or the "
                   "dlt row is stopped; the machine may be shared.")
@click.option("--no-dlt", is_flag=True, help="Leave out the dlt row (the slowest).")
@click.option("--json-out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the figures as JSON here.")
def bench_command(data: Path, gb: float, seed: int, scale: str, jobs: int, peer_timeout: float,
                  peer_memory_mb: float, no_dlt: bool, json_out: Path | None) -> None:
    """Measure the ingest on a bench-scale tree, side by side in one table: the orjson parse
    floor, a naive DuckDB read_json_auto load, dlt (if installed: make bench installs it),
    our ingest cold, no-op, warm (one file touched: everything rebuilt from the parse cache)
    and after one record appended to a big results file; seconds, multiple of the floor,
    MB/s, peak memory of the process tree, database size; then issue 16's targets (full
    ingest <= 2x the floor, database <= the naive one, peak memory < 1 GB, no-op <= 3% of
    a full ingest), each marked met or MISSED. The JSON follows the table."""
    report = run_bench(data, gb, seed, jobs, scale, peer_timeout, with_dlt=not no_dlt,
                       peer_memory_mb=peer_memory_mb)
    click.echo(format_report(report))
    click.echo(json.dumps(report, indent=2))
    if json_out:
        json_out.write_text(json.dumps(report, indent=2))
