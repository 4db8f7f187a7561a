"""ClinSeek evaluation-results warehouse: results trees in, one DuckDB file out.

For notebooks: `import etl; wh = etl.open("warehouse.duckdb")` (see etl/api.py)."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def open(path: Any, frames: str = "auto") -> Any:  # noqa: A001 - the notebook entry point
    """Open a warehouse file read-only for a notebook: an etl.api.Warehouse.

    Every method returns a pandas DataFrame (frames="arrow": a pyarrow Table; without pandas
    installed, Tables); JSON arrays (gold, predictions, tool calls) come back as Python
    lists. Filters take the values the warehouse holds (benchmark ehr_bench, agent_ehr_bench,
    mm_bench; mode agentic, oneshot) and a model by its key, display name or any alias; an
    unknown value raises etl.errors.UnknownName naming the closest valid ones. Runs are the
    leaderboard's (current runs of full splits) unless archived=True or split= say otherwise
    (split="all": every split, smoke runs included).

        wh = etl.open("warehouse.duckdb")
        wh.leaderboard("ehr_bench", "agentic")      # the board: score, 95% CI, scorer
        wh.runs(archived=True, split="all")          # every run, with its board scorer
        wh.results(model="Claude Opus 4.6")          # one row per answer, with its score
        wh.results(benchmark="ehr_bench", scorer="set_f1")  # the scores of another scorer
        wh.scores(scorer="authors_mm_set")           # every scorer's row per answer
        wh.coverage(benchmark="mm_bench")            # expected / present / missing
        run = "ehr_bench/agentic/full1800/claude_opus_4_6"
        qid = wh.results(run=run)["qid"][0]
        wh.trajectory(run, qid, index=1)             # attempt 1: one row per message,
                                                     # tool calls with their arguments,
                                                     # results and errors
        wh.compare("claude_opus_4_6", "claude_sonnet_4_6", "ehr_bench", "agentic")
        wh.search("Error executing", role="tool")
        wh.failures("ehr_bench", "agentic")         # why runs lost points, by label
        wh.efficiency("ehr_bench", "agentic")       # calls per question and per point
        wh.sql("SELECT * FROM leaderboard WHERE benchmark = ?", ["ehr_bench"])

    Each method's help() has its columns and an example; `with etl.open(path) as wh:`
    closes the file at the end."""
    # Imported here so `etl --help` and the ingest do not load the API.
    from etl.api import Warehouse

    return Warehouse(path, frames)
