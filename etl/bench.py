"""`etl bench`: measure the ingest against the naive alternative and the parse floor.

Each measurement runs in its own child process while a sampler adds up the resident memory
of that process and all its descendants (the ingest's parse workers included), so peak
memory is the whole process tree's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import click

from etl.discover import RESULT_KINDS, discover
from etl.schema import fingerprint


@dataclass
class Measurement:
    name: str
    seconds: float
    peak_rss_mb: float
    mb_per_s: float
    records_per_s: float
    note: str = ""


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


def run_measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run cmd; return (seconds, peak RSS of its process tree in MB, stdout)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_kb(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise click.ClickException(f"{' '.join(cmd[:4])} ... failed:\n{err[-2000:]}")
    return seconds, peak / 1024, out


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


def _tree_key(scale: str, gb: float, seed: int) -> str:
    """What the cached tree was generated from: a new generator means a new tree."""
    sources = sorted((Path(__file__).parent / "synth").glob("*.py"))
    return f"{scale} {gb} {seed} {fingerprint(sources)}\n"


def run_bench(data: Path, gb: float, seed: int, jobs: int, scale: str = "bench") -> dict:
    tree = data / "tree"
    stamp = data / ".synth-done"
    key = _tree_key(scale, gb, seed)
    if not stamp.exists() or stamp.read_text() != key:
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True)
        click.echo(f"generating a {scale} tree ({gb} GB for bench) in {tree} (once) ...",
                   err=True)
        subprocess.run([sys.executable, "-m", "etl.cli", "synth", str(tree), "--scale", scale,
                        "--bench-gb", str(gb), "--seed", str(seed)], check=True,
                       stdout=subprocess.DEVNULL)
        stamp.write_text(key)
    disc = discover(tree)
    result_files = [str(f.abs_path) for f in disc.files if f.kind in RESULT_KINDS]
    loadable_bytes = sum(f.size_bytes for f in disc.files)
    result_bytes = sum(f.size_bytes for f in disc.files if f.kind in RESULT_KINDS)
    work = data / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    db = work / "bench.duckdb"
    py = sys.executable

    measurements: list[Measurement] = []
    secs, rss, out = run_measured([py, "-c", PARSE_FLOOR, *result_files])
    n_lines = int(out.strip() or 0)
    measurements.append(Measurement("c_parse_floor_orjson", secs, rss, result_bytes / 1e6 / secs,
                                    n_lines / secs, "orjson.loads of every line, one process"))

    secs, rss, out = run_measured([py, "-c", NAIVE, str(work / "naive.duckdb"), *result_files])
    measurements.append(Measurement("b_naive_read_json_auto", secs, rss,
                                    result_bytes / 1e6 / secs, int(out.strip() or 0) / secs,
                                    "one wide table, nothing normalized"))

    ingest_cmd = [py, "-m", "etl.cli", "ingest", str(tree), "--db", str(db), "--quiet",
                  "--jobs", str(jobs)]
    secs, rss, out = run_measured([*ingest_cmd, "--full"])
    measurements.append(Measurement("a_full_ingest", secs, rss, loadable_bytes / 1e6 / secs,
                                    n_lines / secs, "all tables, views, dedup"))
    full_out = out
    secs, rss, out = run_measured(ingest_cmd)
    said = out.strip().splitlines()[0].split(": ", 1)[-1]  # without the database path
    measurements.append(Measurement("d_noop_reingest", secs, rss, loadable_bytes / 1e6 / secs,
                                    n_lines / secs, said[:60]))

    by = {m.name: m for m in measurements}
    a, b, c, d = (by["a_full_ingest"], by["b_naive_read_json_auto"],
                  by["c_parse_floor_orjson"], by["d_noop_reingest"])
    images = _image_bytes(db)
    report = {
        "tree_bytes": loadable_bytes, "result_file_bytes": result_bytes,
        "result_lines": n_lines, "jobs": jobs or os.cpu_count(),
        "db_bytes": db.stat().st_size, "image_base64_chars_in_tree": images,
        "measurements": [asdict(m) for m in measurements],
        "ratios": {
            "a_over_b": a.seconds / b.seconds, "a_over_c": a.seconds / c.seconds,
            "d_over_a": d.seconds / a.seconds,
            "db_over_raw": db.stat().st_size / loadable_bytes,
            "db_over_raw_without_images": db.stat().st_size / max(loadable_bytes - images, 1),
        },
        "targets": {"a_over_b": "<= 1.0", "a_over_c": "<= 1.5", "d_over_a": "< 0.05",
                    "db_over_raw_without_images": "<= 0.40", "peak_rss_mb": "< 1024"},
        "ingest_summary": full_out.strip().splitlines(),
    }
    return report


def _image_bytes(db: Path) -> int:
    import duckdb
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT coalesce(sum(data_chars), 0) FROM images").fetchall()[0][0])
    finally:
        con.close()


def format_report(report: dict) -> str:
    lines = [f"tree {report['tree_bytes'] / 1e9:.2f} GB ({report['result_file_bytes'] / 1e9:.2f}"
             f" GB of result files, {report['result_lines']} lines), jobs {report['jobs']}",
             f"{'measurement':26s} {'seconds':>9s} {'MB/s':>8s} {'records/s':>10s} "
             f"{'peak MB':>8s}  note"]
    for m in report["measurements"]:
        lines.append(f"{m['name']:26s} {m['seconds']:9.2f} {m['mb_per_s']:8.1f} "
                     f"{m['records_per_s']:10.0f} {m['peak_rss_mb']:8.0f}  {m['note']}")
    r = report["ratios"]
    lines += [
        f"database {report['db_bytes'] / 1e6:.1f} MB = {r['db_over_raw']:.1%} of the raw bytes "
        f"({r['db_over_raw_without_images']:.1%} without image base64; target <= 40%)",
        f"(a)/(b) {r['a_over_b']:.2f} (target <= 1.0)   (a)/(c) {r['a_over_c']:.2f} "
        f"(target <= 1.5)   (d)/(a) {r['d_over_a']:.3f} (target < 0.05)",
    ]
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
@click.option("--json-out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the figures as JSON here.")
def bench_command(data: Path, gb: float, seed: int, scale: str, jobs: int,
                  json_out: Path | None) -> None:
    """Measure the ingest on a bench-scale tree: (a) full ingest, (b) DuckDB read_json_auto of
    every result file, (c) orjson parse floor, (d) no-op re-ingest; print MB/s, records/s,
    peak memory of the process tree, database size, and the ratios against the targets."""
    report = run_bench(data, gb, seed, jobs, scale)
    click.echo(format_report(report))
    click.echo(json.dumps(report, indent=2))
    if json_out:
        json_out.write_text(json.dumps(report, indent=2))
