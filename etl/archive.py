"""Archive names: read what an `_archive/<name>` directory was from its name alone.

Names encode benchmark, mode, model alias, split or size and a reason tag in one
underscore-separated string, in no fixed order after the benchmark, e.g.
``ehr_bench_opus46_1800_pre_ssl_retry``, ``ehr_bench_smoke20_salvage_patched_<model>``,
``mm_agentic_smoke5_early``, ``ehr_bench_oneshot_full1800_kimi_k2_5_pre_retry``,
``mm_agentic_opus_scored_novocab``.

Rules (documented here because the warehouse columns follow them):
- benchmark: the leading tokens ``ehr_bench`` / ``ehr``, ``agent_ehr_bench`` / ``agent_ehr``,
  ``mm_bench`` / ``mm`` / ``multimodal``, or any leading run of tokens ending in ``bench``
  (a new benchmark). No benchmark -> the name is ``unparsed`` and every field is None.
- mode: the token ``agentic`` or ``oneshot`` (``one_shot``); agent_ehr_bench only has
  agentic runs, so its mode defaults to agentic; otherwise None when not written.
- split: ``smokeN`` / ``fullN`` / ``subsetN`` are kept as written (size N); ``full`` alone and
  a bare number equal to the benchmark's full size (1800, 600, 2703) become the full split
  (``1800`` -> ``full1800`` for ehr_bench); any other bare number is a size without a split.
- model: the longest run of tokens that is a known alias (etl.models), else the tokens left
  once benchmark, mode, split and reason words are taken out; resolved to a canonical key.
- reason_tag: the remaining tokens as written (``pre_ssl_retry``); reason: the first match of
  retry, salvage, early, rescoring, partial, duplicate, superseded in that tag, else None.
- ``etl/archive_overrides.json`` maps a whole name to fields for names the rules misread;
  fields it gives win, the rest come from the rules (parsed_by ``override``).
Unknown parts are None; nothing here raises on a name.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from etl.benchmarks import FULL_SPLITS
from etl.models import alias_table, canonical_model
from etl.values import to_int

OVERRIDES_PATH = Path(__file__).with_name("archive_overrides.json")

# Benchmark spellings at the start of a name, as token tuples, longest first.
BENCHMARK_PREFIXES: list[tuple[tuple[str, ...], str]] = [
    (("agent", "ehr", "bench"), "agent_ehr_bench"),
    (("agent", "ehr"), "agent_ehr_bench"),
    (("agentehr",), "agent_ehr_bench"),
    (("ehr", "bench"), "ehr_bench"),
    (("ehr",), "ehr_bench"),
    (("mm", "bench"), "mm_bench"),
    (("mm",), "mm_bench"),
    (("multimodal",), "mm_bench"),
]


# Benchmarks that only have one mode, so a name need not say it.
ONLY_MODE: dict[str, str] = {"agent_ehr_bench": "agentic"}

MODE_TOKENS: dict[str, str] = {"agentic": "agentic", "oneshot": "oneshot"}

# Reason keywords -> reason, in priority order (a tag naming several takes the first).
REASON_WORDS: list[tuple[str, frozenset[str]]] = [
    ("retry", frozenset({"retry", "retried", "rerun", "retries"})),
    ("salvage", frozenset({"salvage", "salvaged", "patched", "patch"})),
    ("early", frozenset({"early", "first", "pilot", "prelim"})),
    ("rescoring", frozenset({"scored", "rescored", "rescore", "novocab", "vocab", "scoring"})),
    ("partial", frozenset({"partial", "incomplete", "killed", "crashed", "halfdone"})),
    ("duplicate", frozenset({"dup", "dupe", "duplicate", "copy"})),
    ("superseded", frozenset({"old", "backup", "bak", "superseded", "stale", "deprecated"})),
]
# Words that only qualify a reason (never part of a model name).
REASON_MODIFIERS = frozenset({"pre", "post", "before", "after", "fix", "fixed", "ssl", "merge",
                              "merged", "resume", "resumed", "run", "v1", "v2", "v3", "tmp"})
_ALL_REASON_WORDS = frozenset().union(*(words for _, words in REASON_WORDS)) | REASON_MODIFIERS

_SPLIT_RE = re.compile(r"^(smoke|full|subset)(\d+)$")
_NUMBER_RE = re.compile(r"^\d+$")


@dataclass(frozen=True, slots=True)
class ArchiveName:
    """What an archive directory name says about the run inside it."""

    name: str
    benchmark: str | None = None
    mode: str | None = None
    model: str | None = None  # canonical key (etl.models.canonical_model)
    model_alias: str | None = None  # the model part exactly as written in the name
    split: str | None = None  # smoke20, full1800, ... (see module docstring)
    size: int | None = None  # question count the name states, if any
    reason: str | None = None  # retry | salvage | early | rescoring | partial | ...
    reason_tag: str | None = None  # the name's leftover tokens, e.g. pre_ssl_retry
    parsed_by: str = "unparsed"  # rules | override | unparsed

    def as_row(self) -> dict[str, Any]:
        return asdict(self)


@lru_cache(maxsize=4)
def _load_overrides(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        # A missing or broken override file must not stop an ingest: rules still apply.
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict) and not k.startswith("_")}


def load_overrides(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """Archive name -> fields, from etl/archive_overrides.json (keys starting with _ are notes)."""
    return _load_overrides(path or OVERRIDES_PATH)


@lru_cache(maxsize=1)
def _alias_tokens() -> dict[tuple[str, ...], str]:
    """Known model aliases as token tuples ('kimi', 'k2', '5') -> canonical key."""
    table: dict[tuple[str, ...], str] = {}
    for alias, model in alias_table().items():
        tokens = tuple(t for t in re.split(r"[^0-9a-z]+", alias) if t)
        if tokens:
            table[tokens] = model
    return table


def _take_benchmark(tokens: list[str]) -> tuple[str | None, int]:
    for prefix, benchmark in BENCHMARK_PREFIXES:
        if tuple(tokens[: len(prefix)]) == prefix:
            return benchmark, len(prefix)
    for i, token in enumerate(tokens[:3]):  # a new benchmark: "<words>_bench" at the start
        if token == "bench" and i > 0:
            return "_".join(tokens[: i + 1]), i + 1
    return None, 0


def _split_of(token: str, benchmark: str) -> tuple[str | None, int | None] | None:
    """(split, size) when the token names a split or size, else None."""
    full = FULL_SPLITS.get(benchmark)
    match = _SPLIT_RE.match(token)
    if match:
        return token, int(match.group(2))
    if token == "full" and full:
        return full
    if token.startswith("smoke") and token == "smoke":
        return "smoke", None
    if _NUMBER_RE.match(token):
        size = int(token)
        if full and size == full[1]:
            return full[0], size
        return None, size
    return None


def _find_model(tokens: list[str]) -> tuple[int, int, str] | None:
    """Longest run of tokens that is a known alias: (start, end, canonical key)."""
    aliases = _alias_tokens()
    best: tuple[int, int, str] | None = None
    for start in range(len(tokens)):
        for end in range(len(tokens), start, -1):
            model = aliases.get(tuple(tokens[start:end]))
            if model and (best is None or end - start > best[1] - best[0]):
                best = (start, end, model)
                break
    return best


def _reason_of(tokens: list[str]) -> str | None:
    present = set(tokens)
    for reason, words in REASON_WORDS:
        if present & words:
            return reason
    return None


def parse_by_rules(name: str) -> ArchiveName:
    """Parse a name with the rules only (no overrides)."""
    tokens = [t for t in re.split(r"[^0-9a-z]+", name.strip().lower()) if t]
    benchmark, used = _take_benchmark(tokens)
    if benchmark is None:
        return ArchiveName(name=name)
    mode: str | None = None
    split: str | None = None
    size: int | None = None
    rest: list[str] = []
    i = used
    while i < len(tokens):
        token = tokens[i]
        if mode is None and token == "one" and tokens[i + 1: i + 2] == ["shot"]:
            mode, i = "oneshot", i + 2
            continue
        if mode is None and token in MODE_TOKENS:
            mode = MODE_TOKENS[token]
        elif split is None and size is None and (found := _split_of(token, benchmark)):
            split, size = found
        else:
            rest.append(token)
        i += 1
    if mode is None:
        mode = ONLY_MODE.get(benchmark)

    model = model_alias = None
    hit = _find_model(rest)
    if hit:
        start, end, model = hit
        model_alias = "_".join(rest[start:end])
        tag_tokens = rest[:start] + rest[end:]
    else:
        # An unknown model: whatever is not a reason word, kept as data (canonical snake).
        unknown = [t for t in rest if t not in _ALL_REASON_WORDS]
        tag_tokens = [t for t in rest if t in _ALL_REASON_WORDS]
        if unknown:
            model_alias = "_".join(unknown)
            model = canonical_model(model_alias)
    return ArchiveName(
        name=name, benchmark=benchmark, mode=mode, model=model, model_alias=model_alias,
        split=split, size=size, reason=_reason_of(tag_tokens),
        reason_tag="_".join(tag_tokens) or None, parsed_by="rules",
    )


def parse_archive_name(name: str, overrides: dict[str, dict[str, Any]] | None = None
                       ) -> ArchiveName:
    """Read benchmark, mode, model, split, size and reason from an archive directory name.
    Overrides (etl/archive_overrides.json by default) win field by field; unknown parts
    are None and no name raises."""
    overrides = load_overrides() if overrides is None else overrides
    parsed = parse_by_rules(name)
    fix = overrides.get(name)
    if not fix:
        return parsed
    known = {f.name for f in fields(ArchiveName)} - {"name", "parsed_by"}
    values = parsed.as_row()
    for key, value in fix.items():
        if key not in known:
            continue  # a misspelt override key must not crash the ingest
        if key == "size":
            value = to_int(value)
        elif value is not None:
            value = str(value)
        values[key] = value
    if "model" in fix and fix["model"] is not None:
        values["model"] = canonical_model(str(fix["model"]))
        if "model_alias" not in fix:
            values["model_alias"] = str(fix["model"])
    values["parsed_by"] = "override"
    return ArchiveName(**values)


def match_split(parsed: ArchiveName) -> str | None:
    """The split a current run must have to supersede this archive: the split the name
    states, else (no split and no size) the benchmark's full split; a bare size that is not
    the full size matches no split."""
    if parsed.split is not None:
        return parsed.split
    if parsed.size is None and parsed.benchmark in FULL_SPLITS:
        return FULL_SPLITS[parsed.benchmark][0]
    return None


def archive_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of table archive_runs (schema/20_lineage.sql) for the archived runs among the rows
    of table runs. The name is read again here, so the row says how it was read."""
    overrides = load_overrides()
    rows: list[dict[str, Any]] = []
    for run in runs:
        run_id = run.get("run_id")
        if not run.get("is_archived") or not isinstance(run_id, str):
            continue
        name = run.get("archive_name") or run_id.rsplit("/", 1)[-1]
        parsed = parse_archive_name(str(name), overrides)
        row = parsed.as_row()
        if run.get("model_dir") and run.get("model"):
            # A model directory inside an archive of several runs names the model.
            row["model"], row["model_alias"] = run["model"], run["model_dir"]
        row["archive_name"] = row.pop("name")
        row["run_id"] = run_id
        row["match_split"] = match_split(parsed)
        rows.append(row)
    return rows
