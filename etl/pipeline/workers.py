"""Parse workers: stage the files of a plan in parallel processes (or in this one).

Workers ignore Ctrl-C from birth (the terminal sends it to the whole process group; a worker
would print a traceback from wherever it was): on Ctrl-C the ingest stops them itself and
keeps what they finished. Progress is reported to the caller's StageProgress, never drawn
here."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path
from typing import Protocol

from etl.lifeline import die_with_parent
from etl.pipeline.emitter import StageResult
from etl.pipeline.interrupts import children_ignore_ctrl_c, ctrl_c_pressed
from etl.pipeline.plan import FilePlan
from etl.pipeline.stage import stage_file


class StageProgress(Protocol):
    """What the caller is told while files are parsed (the CLI draws a bar from it)."""

    def start(self, n_files: int, n_bytes: int) -> None: ...

    def advance(self, n_bytes: int) -> None: ...

    def finish(self) -> None: ...


def stage_files(todo: list[FilePlan], cache_root: Path, parser: str, ingest_id: str,
                jobs: int, progress: StageProgress | None = None) -> dict[str, StageResult]:
    """Stage every planned file; jobs 0 means one worker per core."""
    results: dict[str, StageResult] = {}
    if not todo:
        return results
    todo = sorted(todo, key=lambda p: -p.info.size_bytes)  # big files first: balanced workers
    if progress is not None:
        progress.start(len(todo), sum(p.bytes_to_read() for p in todo))
    jobs = jobs or (os.cpu_count() or 1)
    try:
        if jobs <= 1 or len(todo) == 1:
            for plan in todo:
                results[plan.file_id] = stage_file(plan, str(cache_root), parser, ingest_id,
                                                   interrupted=ctrl_c_pressed)
                if progress is not None:
                    progress.advance(plan.bytes_to_read())
            return results
        # Workers die with the ingest: SIGKILL of this process (or the OOM killer) must not
        # leave them parsing for nobody (etl/lifeline.py).
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(todo)),
                                   mp_context=get_context("spawn"),
                                   initializer=die_with_parent, initargs=(os.getpid(),))
        try:
            # Workers are started by submit: inside children_ignore_ctrl_c they are born
            # ignoring SIGINT.
            with children_ignore_ctrl_c():
                futures = {pool.submit(stage_file, plan, str(cache_root), parser,
                                       ingest_id): plan for plan in todo}
            for future in as_completed(futures):
                plan = futures[future]
                results[plan.file_id] = future.result()
                if progress is not None:
                    progress.advance(plan.bytes_to_read())
        except BaseException:
            _stop_workers(pool)
            raise
        pool.shutdown()
        return results
    finally:
        if progress is not None:
            progress.finish()


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop at once: queued files are dropped and files being parsed abandoned (their
    .tmp- directories never become cache entries). shutdown(wait=True) would parse them all."""
    pool.shutdown(wait=False, cancel_futures=True)
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join()
