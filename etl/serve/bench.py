"""Latency of the explorer's pages on a real warehouse: `python -m etl.cli.serve_bench --db F`
(the command line is etl/cli/serve_bench.py)
(`make bench-serve` builds a bench-scale warehouse first). Starts `etl serve` as a child
process on a free loopback port, requests a sample of every page type (including the
trajectory of the largest record and a page of its longest message) several times, and
reports p50 / p95 / max per page type and the server's peak RSS (VmHWM) against the targets
(p95 under TARGET_MS for every page type, TARGETS_MS for search, peak RSS under
RSS_LIMIT_MB): each
missed target is marked MISSED and the command exits 1. The load average is reported too:
on a shared machine the latencies grow with it."""

from __future__ import annotations

import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

from etl.connection import open_warehouse
from etl.errors import EtlError, UnknownName

TARGET_MS = 300.0
# Page types with a target of their own: a search reads the text of every message it may
# match (docs/SERVE.md, "Search").
TARGETS_MS = {"search": 500.0}
RSS_LIMIT_MB = 500.0


class ServeBenchError(EtlError):
    """The bench could not measure (the server did not start)."""


def target_ms(kind: str) -> float:
    return TARGETS_MS.get(kind, TARGET_MS)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def sample_urls(db: Path, per_type: int, seed: int) -> dict[str, list[str]]:
    """Page type -> URLs to request, drawn from the warehouse (the largest record always)."""
    rng = random.Random(seed)
    with open_warehouse(db) as con:
        def rows(sql: str) -> list[tuple]:
            return con.execute(sql).fetchall()

        boards = rows("SELECT DISTINCT benchmark, mode FROM leaderboard ORDER BY ALL")
        cells = rows("SELECT run_id, task FROM leaderboard_by_task ORDER BY ALL")
        results = rows("SELECT run_id, qid, run_index, benchmark FROM results ORDER BY ALL")
        largest = rows("""SELECT run_id, qid, run_index FROM messages
                          GROUP BY ALL ORDER BY sum(content_chars) DESC LIMIT 1""")[0]
        longest = rows("""SELECT run_id, qid, run_index, msg_idx, content_chars FROM messages
                          ORDER BY content_chars DESC NULLS LAST LIMIT 1""")[0]
        pairs = rows("""SELECT a.run_id, b.run_id, a.benchmark, a.mode FROM leaderboard a
                        JOIN leaderboard b ON a.benchmark = b.benchmark AND a.mode = b.mode
                        AND a.run_id < b.run_id ORDER BY ALL""")
        archived = rows("SELECT archived_run_id FROM archive_lineage ORDER BY 1")
        # Phrases as a reader would type them: two words from a random place of a random
        # message (tool results included), a common word, and a phrase found nowhere (the
        # whole text is read).
        texts = rows("""SELECT content FROM messages WHERE content IS NOT NULL
                        USING SAMPLE reservoir(200 ROWS) REPEATABLE (7)""")
        shared = rows("""SELECT a.run_id, b.run_id, a.qid FROM results a
                         JOIN results b ON a.qid = b.qid AND a.benchmark = b.benchmark
                         AND a.mode = b.mode AND a.run_id < b.run_id AND a.run_index = 1
                         AND b.run_index = 1 AND a.n_tool_calls > 0 AND b.n_tool_calls > 0
                         JOIN leaderboard la ON la.run_id = a.run_id
                         JOIN leaderboard lb ON lb.run_id = b.run_id
                         ORDER BY ALL LIMIT 2000""")

    def pick(items: list, n: int = per_type) -> list:
        return rng.sample(items, min(n, len(items)))

    phrases = []
    for (text,) in pick([t for t in texts if len((t[0] or "").split()) > 3]):
        words = text.split()
        at = rng.randrange(len(words) - 1)
        phrases.append(" ".join(words[at:at + 2])[:60])
    searches = [{"q": p} for p in phrases] + [
        {"q": "creatinine"}, {"q": "no such phrase anywhere 7f3a"},
        {"q": "no such phrase anywhere 7f3a", "benchmark": boards[0][0], "mode": boards[0][1]},
        {"q": "error", "role": "tool"}]
    traj = [{"run": r, "qid": q, "index": i} for r, q, i, _ in pick(results)]
    traj.append({"run": largest[0], "qid": largest[1], "index": largest[2]})
    last_page = max(0, (longest[4] or 1) - 1) // 10_000
    return {
        "home": ["/"],
        "board": [f"/board?{urlencode({'benchmark': b, 'mode': m})}" for b, m in boards]
        + [f"/board?{urlencode({'benchmark': b, 'mode': m, 'shared': 1})}" for b, m in boards],
        "heatmap": [f"/heatmap?{urlencode({'benchmark': b, 'mode': m})}" for b, m in boards],
        "failures": [f"/failures?{urlencode({'benchmark': b, 'mode': m})}" for b, m in boards],
        "questions": [f"/questions?{urlencode({'run': r, 'task': t})}" for r, t in pick(cells)],
        "question": [f"/question?{urlencode({'benchmark': b, 'qid': q})}"
                     for _, q, _, b in pick(results)],
        "trajectory": [f"/trajectory?{urlencode(t)}" for t in traj],
        "trajectory_largest": [f"/trajectory?{urlencode(traj[-1])}"],
        "message_page": ["/message?" + urlencode({"run": longest[0], "qid": longest[1],
                                                  "index": longest[2], "msg": longest[3],
                                                  "page": p})
                         for p in sorted({0, last_page // 2, last_page})],
        "compare": [f"/compare?{urlencode({'a': a, 'b': b, 'benchmark': bm, 'mode': m})}"
                    for a, b, bm, m in pick(pairs, 5)],
        "search": [f"/search?{urlencode(q)}" for q in searches],
        "diff": [f"/diff?{urlencode({'qid': q, 'a': a, 'b': b})}" for a, b, q in pick(shared)],
        "lineage": ["/lineage"] + [f"/lineage/diff?{urlencode({'archived': a})}"
                                   for (a,) in archived],
        "rejects": ["/rejects"],
        "sql": ["/sql?" + urlencode({"q": "SELECT run_id, count(*) AS n FROM results GROUP BY 1"})],
    }


def _request(base: str, path: str) -> urllib.request.Request:
    """The request of a sampled URL: a GET, but the SQL page's query is POSTed from the
    page's own origin, as its form does (a GET only fills the box)."""
    if path.startswith("/sql?"):
        return urllib.request.Request(base + "/sql", data=path.split("?", 1)[1].encode(),
                                      method="POST", headers={"Origin": base})
    return urllib.request.Request(base + path)


def run_bench(db: Path, per_type: int = 20, repeats: int = 3, seed: int = 1,
              pages: tuple[str, ...] = (), server_args: tuple[str, ...] = ()) -> dict:
    """Start etl serve over db (with server_args), request every sampled URL `repeats` times
    (only the page types in `pages` when given) and measure; the report format_report draws."""
    urls = sample_urls(db, per_type, seed)
    unknown = sorted(set(pages) - set(urls))
    if unknown:
        raise UnknownName("page type", unknown[0], urls)
    if pages:
        urls = {kind: paths for kind, paths in urls.items() if kind in pages}
    load_before = os.getloadavg()
    started = time.monotonic()
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "etl.cli", "serve", "--db", str(db),
                             "--port", str(port), *server_args], stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        # The server computes its memos before it listens (seconds at bench scale).
        deadline = time.monotonic() + 300
        while True:
            try:
                urllib.request.urlopen(base + "/static/app.css", timeout=2).read()
                break
            except OSError:  # refused, reset, or a read that timed out on a busy machine
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise ServeBenchError("etl serve did not start") from None
                time.sleep(0.2)
        startup_s = time.monotonic() - started
        timings: dict[str, list[float]] = {}
        sizes: dict[str, int] = {}
        failures: dict[str, list[str]] = {}
        for _ in range(repeats):
            for kind, paths in urls.items():
                for path in paths:
                    start = time.perf_counter()
                    body = b""
                    try:
                        with urllib.request.urlopen(_request(base, path),
                                                    timeout=60) as response:
                            body = response.read()
                    except (OSError, urllib.error.URLError) as error:
                        # An error status or a timeout is a missed target, not a crash.
                        failures.setdefault(kind, []).append(f"{path}: {error}")
                    timings.setdefault(kind, []).append((time.perf_counter() - start) * 1000)
                    sizes[kind] = max(sizes.get(kind, 0), len(body))
        rss = _peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
    report = {"db": str(db), "db_mb": db.stat().st_size / 2**20, "peak_rss_mb": rss,
              "startup_s": startup_s, "load_before": load_before, "load_after": os.getloadavg(),
              "cpus": os.cpu_count(), "failures": failures, "pages": {}}
    for kind, values in timings.items():
        values.sort()
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        report["pages"][kind] = {"n": len(values), "p50_ms": statistics.median(values),
                                 "p95_ms": p95, "max_ms": values[-1],
                                 "max_kb": sizes[kind] / 1024}
    return report


def missed(report: dict) -> list[str]:
    """The targets a report misses, as sentences (empty when every target is met)."""
    out = [f"{kind}: p95 {s['p95_ms']:.0f} ms, target under {target_ms(kind):.0f} ms"
           for kind, s in report["pages"].items() if not s["p95_ms"] < target_ms(kind)]
    out += [f"{kind}: {len(errors)} failed request(s), first {errors[0]}"
            for kind, errors in report.get("failures", {}).items()]
    if not report["peak_rss_mb"] < RSS_LIMIT_MB:  # NaN (no reading) counts as missed
        out.append(f"server peak RSS {report['peak_rss_mb']:.0f} MB, target under "
                   f"{RSS_LIMIT_MB:.0f} MB")
    return out


def format_report(report: dict) -> str:
    lines = [f"etl serve over {report['db']} ({report['db_mb']:.0f} MB)"]
    if "load_before" in report:
        before, after = (" / ".join(f"{x:.2f}" for x in report[k])
                         for k in ("load_before", "load_after"))
        lines.append(f"load average (1/5/15 min) {before} before, {after} after, on "
                     f"{report['cpus']} CPUs; server ready after {report['startup_s']:.1f} s")
    lines.append(f"{'page':<20}{'n':>5}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'max KB':>9}"
                 f"  p95 under (ms)")
    for kind, s in report["pages"].items():
        flag = "ok" if s["p95_ms"] < target_ms(kind) else "MISSED"
        lines.append(f"{kind:<20}{s['n']:>5}{s['p50_ms']:>9.1f}{s['p95_ms']:>9.1f}"
                     f"{s['max_ms']:>9.1f}{s['max_kb']:>9.0f}  {target_ms(kind):.0f} {flag}")
    rss = report["peak_rss_mb"]
    lines.append(f"server peak RSS {rss:.0f} MB (target under {RSS_LIMIT_MB:.0f} MB): "
                 + ("ok" if rss < RSS_LIMIT_MB else "MISSED"))
    misses = missed(report)
    lines.append("every target met" if not misses else
                 f"MISSED {len(misses)} target(s): " + "; ".join(misses))
    return "\n".join(lines)
