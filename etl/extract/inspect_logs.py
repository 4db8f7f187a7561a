"""Extractor for Inspect AI logs (`*.eval`, and `*.json` logs recognised by their head): one
log is one run, each of its samples a result (run_index = epoch) with its messages, tool
calls, scores and token usage. The mapping, field by field, is docs/FORMATS.md "Inspect AI
logs"; the run keys the load gives the log's run are sql/load/inspect_runs.sql.

The log is read with Inspect's own reader (inspect_ai.log: read_eval_log for the header,
read_eval_log_sample_summaries and read_eval_log_sample for one sample at a time), as its
maintainers ask of every tool: the format is no frozen spec. inspect_ai is an optional extra
(`[inspect]`), imported only here and only when a log is parsed; without it each log is one
reject saying how to install it.

A grown `.eval` log (a running evaluation flushes samples into it) is parsed only for what
changed: a sample whose summary and zip entry are those of the previous parse keeps its rows
(etl/pipeline/inspect_stage.py copies them); any other is read. A damaged log is a reject
naming it; a sample that cannot be read is a reject naming the sample, the others load.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from etl.extract import Emitter, FileInfo, register
from etl.failures.rows import failure_rows
from etl.models import DISPLAY_NAMES, canonical_model
from etl.normalize import (
    RecordRows,
    _data_url_parts,
    extra_json,
    pair_tool_results,
    task_group,
)
from etl.scoring.registry import BY_NAME as REGISTERED_SCORERS
from etl.values import json_text, to_int, to_text

INSPECT_LOG_KIND = "inspect_log"
# The package is installed from a checkout or its wheel (it is not on PyPI).
INSTALL_HINT = "pip install -e '.[inspect]' in the checkout (or the wheel's path with [inspect])"
MISSING_EXTRA = ("Inspect AI log not loaded: reading it needs the optional inspect extra, "
                 f"which is not installed: {INSTALL_HINT}")
# summary_metrics.scoring of the metrics Inspect computed and wrote into a log's results.
REPORTED_SCORING = "inspect_results"
# The cluster key when the user names none: a sample metadata key of this name, if present.
DEFAULT_CLUSTER_KEY = "subject_id"
# The head of a JSON log as Inspect writes it (EvalLog's fields in order: version, status).
_JSON_LOG_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_SNIFF_BYTES = 256
# Inspect's name of a sample's entry in an .eval zip (its recorder's _sample_filename).
_SAMPLE_MEMBER = "samples/{id}_epoch_{epoch}.json"
# The tables that hold rows of one sample (copied whole when the sample is unchanged).
SAMPLE_TABLES = ("results", "messages", "tool_calls", "images", "question_scores",
                 "token_usage", "call_failures", "result_checks")

MODE_AGENTIC, MODE_ONESHOT = "agentic", "oneshot"


@dataclass(frozen=True, slots=True)
class InspectKeys:
    """How an Inspect log's facts become the warehouse's keys, as the user says
    (etl ingest --inspect-benchmark / --inspect-task-key / --cluster-key). They decide staged
    rows, so they are part of the parse cache's key (etl/pipeline/ingest.py)."""

    benchmarks: tuple[tuple[str, str], ...] = ()  # Inspect task name -> benchmark
    task_key: str | None = None  # sample metadata key naming the task (else the task name)
    cluster_key: str | None = None  # sample metadata key naming the patient

    def benchmark_of(self, task: str | None) -> str | None:
        return dict(self.benchmarks).get(task or "", task)

    def patient_key(self) -> str:
        return self.cluster_key or DEFAULT_CLUSTER_KEY

    def is_default(self) -> bool:
        return self == InspectKeys()

    def as_json(self) -> dict[str, Any]:
        return {"benchmarks": dict(self.benchmarks), "task_key": self.task_key,
                "cluster_key": self.cluster_key}


def inspect_available() -> bool:
    """Whether the inspect extra (the inspect_ai package) is installed."""
    return importlib.util.find_spec("inspect_ai") is not None


def inspect_version() -> str | None:
    """The installed inspect_ai version (its reader decides the staged rows), else None."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("inspect-ai")
    except PackageNotFoundError:
        return None


def is_inspect_log(name: str, path: Path) -> bool:
    """An Inspect log by Inspect's own rule (the .eval and .json extensions), a .json file
    only when it starts as Inspect writes one: `{"version": N, "status": ...`. A damaged
    .eval is still a log (a reject naming it, not an unknown file)."""
    if name.endswith(".eval"):
        return True
    if not name.endswith(".json"):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False
    return _JSON_LOG_HEAD.match(head) is not None


# ---- the run keys of a log ----------------------------------------------------------------

def model_key(inspect_model: str | None) -> str | None:
    """The canonical model of an Inspect model name `<provider>/<model>`: the first of the
    whole name, the name without its provider and its last part that is a known model
    (anthropic/claude-opus-4-6 -> claude_opus_4_6, bedrock/us.anthropic.claude-opus-4-6-v1
    -> claude_opus_4_6, openrouter/anthropic/claude-opus-4-6 -> claude_opus_4_6), else the
    name without its provider in snake case (mockllm/model -> model)."""
    if not inspect_model:
        return None
    rest = inspect_model.partition("/")[2] or inspect_model
    for name in (inspect_model, rest, rest.rsplit("/", 1)[-1]):
        key = canonical_model(name)
        if key in DISPLAY_NAMES:
            return key
    return canonical_model(rest)


def split_of(n_samples: int, limited: bool) -> str:
    """full<n> for a whole dataset (a full split: on the leaderboard), limit<n> when the
    evaluation chose some samples (--limit, --sample-id): off it, like a smoke split."""
    return f"{'limit' if limited else 'full'}{n_samples}"


@dataclass(slots=True)
class LogContext:
    """What every sample of one log needs from its header and the user's keys."""

    task: str
    benchmark: str | None
    split: str
    model: str | None
    epochs: int
    keys: InspectKeys
    keep_images: bool
    order: dict[str, int]  # sample id (text) -> its position in eval.dataset.sample_ids
    scorer_names: dict[str, str] = field(default_factory=dict)  # Inspect name -> ours

    def rec_no(self, qid: str, epoch: int, fallback: int) -> int:
        """The sample's number in the log: by Inspect's sample order (dataset sample ids,
        each epochs times), so a grown log numbers its old samples as a full parse does."""
        position = self.order.get(qid)
        if position is None:
            return (len(self.order) + fallback) * max(self.epochs, 1) + epoch
        return position * max(self.epochs, 1) + epoch

    def scorer(self, name: str) -> str:
        return self.scorer_names.get(name) or scorer_name(name)


def scorer_name(inspect_name: str) -> str:
    """question_scores.scorer of an Inspect score: its own name, unless one of the
    warehouse's scorers has it (then inspect_<name>, so two rules never share a name)."""
    return f"inspect_{inspect_name}" if inspect_name in REGISTERED_SCORERS else inspect_name


# ---- what the previous parse of a log left (a grown log reuses it) ------------------------

@dataclass(slots=True)
class PreviousParse:
    """The samples the previous staging of this log parsed, by (qid, epoch): the digest of
    each (its summary and zip entry) and the cache directory holding their rows."""

    cache_dir: Path
    digests: dict[tuple[str, int], str]


@dataclass(slots=True)
class ParseReport:
    """What one staging of a log did: every sample's digest (for the next one), which were
    read and which were kept from the previous parse."""

    digests: dict[tuple[str, int], str] = field(default_factory=dict)
    read: list[tuple[str, int]] = field(default_factory=list)
    reused: list[tuple[str, int]] = field(default_factory=list)


@register(INSPECT_LOG_KIND)
def extract_inspect_log(file: FileInfo, emit: Emitter) -> None:
    read_log(file, emit, None)


def read_log(file: FileInfo, emit: Emitter, previous: PreviousParse | None,
             reuse: Any = None) -> ParseReport:
    """Emit the rows of one Inspect log. `reuse(keys)` (given with `previous`) copies the
    rows of unchanged samples from the previous staging. Never raises for a bad log."""
    report = ParseReport()
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        emit.reject(None, "error", MISSING_EXTRA)
        return report

    path = str(file.abs_path)
    try:
        header = read_eval_log(path, header_only=True)
    except Exception as exc:  # noqa: BLE001 - any failure of the reader is this log's reject
        emit.reject(None, "error", _unreadable(file.path, exc, path))
        return report
    keys = file.parse.inspect or InspectKeys()
    ctx = _context(header, keys, file.parse.keep_images)
    _emit_header(header, ctx, emit)
    samples = (_eval_samples(path, file.path, ctx, previous, report, emit)
               if path.endswith(".eval") else _json_samples(path, file.path, ctx, emit))
    if previous is not None and report.reused and reuse is not None:
        reuse(set(report.reused))
    fallback = 0
    for sample, digest in samples:
        fallback += 1
        qid, epoch = str(sample.id), int(sample.epoch)
        rec_no = ctx.rec_no(qid, epoch, fallback)
        try:
            rows, usage = sample_rows(sample, ctx, rec_no)
        except Exception as exc:  # noqa: BLE001 - one sample's bug never costs the rest
            emit.reject(rec_no, "error", f"sample {qid} epoch {epoch}: cannot be loaded: "
                        f"{type(exc).__name__}: {ascii(str(exc))[:300]}")
            continue
        if digest is not None:
            report.digests[(qid, epoch)] = digest
        report.read.append((qid, epoch))
        _emit_rows(rows, usage, emit)
    emit.row("inspect_logs", {"n_read": len(report.read), "n_reused": len(report.reused),
                              **_header_row(header, ctx)})
    return report


def _unreadable(path: str, exc: BaseException, abs_path: str) -> str:
    """The reject of a log Inspect's reader refuses, its reason (and the reasons it was
    raised from) with the log named by its logical path."""
    reasons, seen = [], set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        reasons.append(f"{type(cause).__name__}: {str(cause).replace(abs_path, path)}")
        cause = cause.__cause__ or cause.__context__
    text = "; ".join(reasons)
    newer = re.search(r"Unable to read version (\d+)", text)
    if newer:
        return (f"Inspect AI log {path} is in log format version {newer.group(1)}, newer "
                f"than the installed inspect_ai ({inspect_version()}) reads: upgrade it "
                f"(pip install -U inspect-ai); not loaded")
    return f"Inspect AI log {path} cannot be read: {ascii(text)[:400]}; not loaded"


def _context(header: Any, keys: InspectKeys, keep_images: bool) -> LogContext:
    spec = header.eval
    ids = [str(i) for i in (spec.dataset.sample_ids or [])]
    config = spec.config
    limited = bool(config.limit) or bool(getattr(config, "sample_id", None))
    n_samples = len(ids) if ids else (spec.dataset.samples or 0)
    ctx = LogContext(task=spec.task, benchmark=keys.benchmark_of(spec.task),
                     split=split_of(n_samples, limited), model=model_key(spec.model),
                     epochs=config.epochs or 1, keys=keys, keep_images=keep_images,
                     order={qid: n for n, qid in enumerate(dict.fromkeys(ids))})
    for scorer in spec.scorers or []:
        ctx.scorer_names[scorer.name] = scorer_name(scorer.name)
    return ctx


def _emit_header(header: Any, ctx: LogContext, emit: Emitter) -> None:
    """inspect_scorers rows and Inspect's own metrics (summary_metrics)."""
    results = header.results
    reported = {score.name: score for score in (results.scores if results else [])}
    names = list(dict.fromkeys([s.name for s in header.eval.scorers or []] + list(reported)))
    headline = getattr(results, "headline", None) if results else None
    default = (getattr(headline, "score", None) or getattr(headline, "scorer", None)
               if headline else None)
    if default not in names:
        default = names[0] if names else None
    for position, name in enumerate(names, start=1):
        score = reported.get(name)
        metrics = {k: m.value for k, m in (score.metrics if score else {}).items()}
        emit.row("inspect_scorers", {
            "scorer": ctx.scorer(name), "inspect_scorer": name, "position": position,
            "is_default": name == default,
            "reducer": getattr(score, "reducer", None) if score else None,
            "scored_samples": getattr(score, "scored_samples", None) if score else None,
            "unscored_samples": getattr(score, "unscored_samples", None) if score else None,
            "metrics": json_text(metrics) if metrics else None})
    for index, score in enumerate(results.scores if results else []):
        for metric, value in score.metrics.items():
            emit.row("summary_metrics", {
                "scoring": REPORTED_SCORING, "scope": ctx.scorer(score.name),
                "metric": metric, "value": _number(value.value),
                "json_path": f"results.scores[{index}].metrics.{metric}.value"})


def _header_row(header: Any, ctx: LogContext) -> dict[str, Any]:
    spec = header.eval
    plan_tools = any(_offers_tools(step.params) for step in (header.plan.steps
                                                              if header.plan else []))
    extra = {"task_args": spec.task_args, "dataset": {"name": spec.dataset.name,
                                                      "location": spec.dataset.location},
             "model_generate_config": _dump(spec.model_generate_config),
             "tags": spec.tags, "metadata": spec.metadata}
    return {
        "task": spec.task, "task_id": spec.task_id, "eval_id": spec.eval_id,
        "eval_run_id": spec.run_id, "created": to_text(spec.created),
        "inspect_model": spec.model, "model": ctx.model, "benchmark": ctx.benchmark,
        "split": ctx.split, "n_samples": len(ctx.order) or spec.dataset.samples,
        "epochs": ctx.epochs, "status": header.status, "log_version": header.version,
        "inspect_version": (spec.packages or {}).get("inspect_ai"),
        "tools_in_plan": plan_tools,
        "error": header.error.message if header.error else None,
        "extra": extra_json({k: v for k, v in extra.items() if v}),
    }


def _offers_tools(params: Any) -> bool:
    tools = params.get("tools") if isinstance(params, dict) else None
    return bool(tools)


# ---- samples --------------------------------------------------------------------------------

def _eval_samples(path: str, logical: str, ctx: LogContext, previous: PreviousParse | None,
                  report: ParseReport, emit: Emitter) -> Iterator[tuple[Any, str | None]]:
    """The samples of an .eval log that must be read, each with its digest, read one at a
    time (Inspect's read_eval_log_sample). The listing runs at once: the unchanged samples
    are in report.reused before the first is read."""
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        summaries = read_eval_log_sample_summaries(path)
    except Exception as exc:  # noqa: BLE001 - the log's samples cannot be listed
        emit.reject(None, "error", f"Inspect AI log {logical}: its samples cannot be listed "
                    f"({type(exc).__name__}: {ascii(str(exc))[:300]}); none loaded")
        return iter(())
    members = _zip_members(path)
    todo = []
    for fallback, summary in enumerate(summaries, start=1):
        qid, epoch = str(summary.id), int(summary.epoch)
        member = members.get(_SAMPLE_MEMBER.format(id=summary.id, epoch=summary.epoch))
        digest = hashlib.sha256(summary.model_dump_json().encode()
                                + repr(member).encode()).hexdigest()
        if previous is not None and previous.digests.get((qid, epoch)) == digest:
            report.digests[(qid, epoch)] = digest
            report.reused.append((qid, epoch))
        else:
            todo.append((summary, digest, fallback))
    return _read_eval_samples(path, logical, ctx, todo, emit)


def _read_eval_samples(path: str, logical: str, ctx: LogContext,
                       todo: list[tuple[Any, str, int]], emit: Emitter
                       ) -> Iterator[tuple[Any, str | None]]:
    from inspect_ai.log import read_eval_log_sample

    for summary, digest, fallback in todo:
        try:
            sample = read_eval_log_sample(path, id=summary.id, epoch=summary.epoch,
                                          resolve_attachments=True)
        except Exception as exc:  # noqa: BLE001 - this sample's reject; the others load
            rec_no = ctx.rec_no(str(summary.id), int(summary.epoch), fallback)
            emit.reject(rec_no, "error", f"Inspect AI log {logical}: sample {summary.id} "
                        f"epoch {summary.epoch} cannot be read: {type(exc).__name__}: "
                        f"{ascii(str(exc))[:300]}")
            continue
        yield sample, digest


def _zip_members(path: str) -> dict[str, tuple[int, int]]:
    """(CRC-32, size) of every entry of an .eval zip: with the sample summary, what says a
    sample is unchanged since the last parse."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {i.filename: (i.CRC, i.file_size) for i in archive.infolist()}
    except (OSError, zipfile.BadZipFile, ValueError):
        return {}


def _json_samples(path: str, logical: str, ctx: LogContext, emit: Emitter
                  ) -> Iterator[tuple[Any, str | None]]:
    """The samples of a .json log: Inspect reads such a log whole (the format has no sample
    boundary to seek to). When one sample does not validate, the others are read one by one
    with Inspect's own models, and that one is a reject."""
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(path, resolve_attachments=True)
    except Exception:  # noqa: BLE001 - read sample by sample below, naming the bad one
        yield from _json_samples_one_by_one(path, logical, ctx, emit)
        return
    for sample in log.samples or []:
        yield sample, None


def _json_samples_one_by_one(path: str, logical: str, ctx: LogContext, emit: Emitter
                             ) -> Iterator[tuple[Any, str | None]]:
    from inspect_ai.log import EvalSample, resolve_sample_attachments

    try:
        from inspect_ai._util.constants import get_deserializing_context
        context = get_deserializing_context()
    except ImportError:  # a later inspect_ai may move it; validation works without
        context = None
    try:
        with open(path, "rb") as fh:
            raw = json.load(fh)
    except (OSError, ValueError, RecursionError) as exc:
        emit.reject(None, "error", f"Inspect AI log {logical} cannot be read: "
                    f"{type(exc).__name__}: {ascii(str(exc))[:300]}; not loaded")
        return
    for position, data in enumerate(raw.get("samples") or [], start=1):
        try:
            sample = EvalSample.model_validate(data, context=context)
            sample = resolve_sample_attachments(sample, "full")
        except Exception as exc:  # noqa: BLE001 - this sample's reject
            ident = data.get("id") if isinstance(data, dict) else None
            epoch = data.get("epoch") if isinstance(data, dict) else None
            emit.reject(position, "error", f"Inspect AI log {logical}: sample {ident} epoch "
                        f"{epoch} cannot be read: {type(exc).__name__}: "
                        f"{ascii(str(exc))[:300]}")
            continue
        yield sample, None


def _emit_rows(rows: RecordRows, usage: list[dict[str, Any]], emit: Emitter) -> None:
    emit.row("results", rows.results)
    for table in ("messages", "tool_calls", "images", "question_scores"):
        for row in getattr(rows, table):
            emit.row(table, row)
    for row in usage:
        emit.row("token_usage", row)
    # the failure labels, as for a ClinSeek record: the calls Inspect marks failed are
    # errors, the writer's texts their kinds where they appear; Inspect's tools are not the
    # ClinSeek ones, so no name is judged
    for table, labelled in zip(("call_failures", "result_checks"),
                               failure_rows(rows, known_tools=None), strict=True):
        for row in labelled:
            emit.row(table, row)


# ---- one sample -> rows ---------------------------------------------------------------------

def sample_rows(sample: Any, ctx: LogContext, rec_no: int
                ) -> tuple[RecordRows, list[dict[str, Any]]]:
    """The rows of one EvalSample: its result, messages, tool calls, images, scores, and its
    token usage rows."""
    qid, epoch = str(sample.id), int(sample.epoch)
    key = {"qid": qid, "run_index": epoch, "rec_no": rec_no}
    metadata = sample.metadata or {}
    task = to_text(metadata.get(ctx.keys.task_key)) if ctx.keys.task_key else None
    task = task or ctx.task
    tools_offered, usage = _events(sample, key)
    status, stop_reason = _status(sample)
    target = sample.target
    patient = metadata.get(ctx.keys.patient_key())
    patient_int = to_int(patient)
    output = sample.output
    result: dict[str, Any] = {
        **key, "line_no": rec_no, "benchmark": ctx.benchmark, "split": ctx.split,
        "model": ctx.model, "mode": MODE_AGENTIC if tools_offered else MODE_ONESHOT,
        "task": task, "task_group": task_group(task, None, None, None) or ctx.task,
        "status": status, "stop_reason": stop_reason, "completed": status == "success",
        "error": sample.error.message if sample.error else None,
        "label": json_text(target), "label_source": "target",
        "gold": json_text(target if isinstance(target, list) else [target]),
        "prediction": json_text(output.completion) if output and output.completion else None,
        "subject_id": patient_int,
        "subject_id_text": to_text(patient) if patient_int is None else None,
        "backend_model_id": output.model if output else None,
        "session_id": sample.uuid, "runs_per_question": ctx.epochs,
        "question": _input_text(sample.input),
        "extra": extra_json({k: v for k, v in {
            "metadata": metadata, "total_time": sample.total_time,
            "working_time": sample.working_time, "limit": _dump(sample.limit),
            "error": _dump(sample.error), "error_retries": len(sample.error_retries or []),
            "tools_offered": tools_offered}.items() if v not in (None, {}, 0)}),
    }
    rows = RecordRows(result)
    errors = _messages(sample.messages or [], key, ctx.keep_images, rows)
    pair_tool_results(rows)
    for call in rows.tool_calls:  # Inspect says which calls failed: its ToolCallError
        if call.get("result_msg_idx") is not None:
            call["is_error"] = errors.get(call["result_msg_idx"]) is not None
    result["n_messages"] = len(rows.messages)
    result["n_tool_calls"] = len(rows.tool_calls)
    result["n_images"] = len(rows.images)
    rows.question_scores = list(_scores(sample, ctx, key, task, status, rec_no))
    return rows, usage


def _status(sample: Any) -> tuple[str, str | None]:
    """(status, stop_reason): an error is error, a limit reached (tokens, messages, time)
    is incomplete, anything else success; stop_reason the limit (limit_<type>) or the last
    model output's stop reason."""
    if sample.error is not None:
        return "error", "error"
    if sample.limit is not None:
        return "incomplete", f"limit_{sample.limit.type}"
    output = sample.output
    reason = output.stop_reason if output and output.choices else None
    return "success", reason


def _input_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    texts = [_text_of(message.content) for message in value or []]
    return "\n".join(t for t in texts if t) or None


def _text_of(content: Any) -> str:
    """The text of a message content: the string, or its text blocks joined with newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content or [] if block.type == "text")


def _messages(messages: list[Any], key: dict[str, Any], keep_images: bool,
              rows: RecordRows) -> dict[int, Any]:
    """Fill message, tool-call and image rows; return each tool message's ToolCallError."""
    errors: dict[int, Any] = {}
    for msg_idx, message in enumerate(messages):
        content = message.content
        text = _text_of(content)
        blocks = content if isinstance(content, list) else []
        reasoning = "\n".join(b.reasoning for b in blocks if b.type == "reasoning"
                              and not b.redacted) or None
        error = getattr(message, "error", None)
        if message.role == "tool":
            errors[msg_idx] = error
            if error is not None and not text:
                text = error.message  # what the model was told the call did
        calls = getattr(message, "tool_calls", None) or []
        images = [(i, *_image_parts(b.image)) for i, b in enumerate(blocks)
                  if b.type == "image"]
        extra = {k: v for k, v in {
            "id": message.id, "source": getattr(message, "source", None),
            "model": getattr(message, "model", None), "error": _dump(error),
            "metadata": getattr(message, "metadata", None),
            "$unread_blocks": [{"block_idx": i, "block": _dump(b)} for i, b in
                               enumerate(blocks) if b.type not in ("text", "reasoning")
                               and not (b.type == "image" and b.image.startswith("data:"))],
        }.items() if v}
        rows.messages.append({
            **key, "msg_idx": msg_idx, "role": message.role, "content": text,
            "reasoning": reasoning, "n_tool_calls": len(calls),
            "name": getattr(message, "function", None) if message.role == "tool" else None,
            "tool_call_id": getattr(message, "tool_call_id", None),
            "content_chars": len(text), "n_images": len(images),
            "extra": extra_json(extra)})
        for block_idx, media_type, data in images:
            if data is None:
                continue
            rows.images.append({
                **key, "msg_idx": msg_idx, "block_idx": block_idx, "media_type": media_type,
                "data_sha256": hashlib.sha256(data.encode("utf-8", "replace")).hexdigest(),
                "data_chars": len(data), "data": data if keep_images else None})
        for call_idx, call in enumerate(calls):
            rows.tool_calls.append({
                **key, "msg_idx": msg_idx, "call_idx": call_idx, "call_id": call.id,
                "tool": call.function, "raw_tool": call.function, "name_fixed": False,
                "arguments": json_text(call.arguments),
                "arguments_valid": call.parse_error is None, "is_synthetic": False,
                "call_type": call.type,
                "extra": extra_json({"parse_error": call.parse_error}
                                    if call.parse_error else {})})
    return errors


def _image_parts(image: str) -> tuple[str | None, str | None]:
    parts = _data_url_parts(image)
    return parts if parts is not None else (None, None)


def _events(sample: Any, key: dict[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
    """(whether any model call of the sample was offered tools, its token usage rows: one
    per model of the sample, one per model call)."""
    usage = [_usage_row(key, "sample", None, model, u)
             for model, u in (sample.model_usage or {}).items()]
    message_at = {m.id: i for i, m in enumerate(sample.messages or []) if m.id}
    tools_offered = False
    for event in sample.events or []:
        if event.event != "model":
            continue
        tools_offered = tools_offered or bool(event.tools)
        output = event.output
        if output is None or output.usage is None:
            continue
        message = output.choices[0].message if output.choices else None
        msg_idx = message_at.get(message.id) if message is not None else None
        usage.append(_usage_row(key, "message" if msg_idx is not None else "call", msg_idx,
                                event.model, output.usage))
    return tools_offered, usage


def _usage_row(key: dict[str, Any], scope: str, msg_idx: int | None, model: str | None,
               usage: Any) -> dict[str, Any]:
    return {**key, "scope": scope, "msg_idx": msg_idx, "model": model,
            "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
            "input_tokens_cache_read": usage.input_tokens_cache_read,
            "input_tokens_cache_write": usage.input_tokens_cache_write,
            "reasoning_tokens": usage.reasoning_tokens, "total_cost": usage.total_cost}


def _scores(sample: Any, ctx: LogContext, key: dict[str, Any], task: str | None,
            status: str, rec_no: int) -> Iterable[dict[str, Any]]:
    """One question_scores row per score of the sample, its value as a number by Inspect's
    own value_to_float; a dict value (a scorer of several named values) is one row per name,
    scorer <name>/<key>."""
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    for name, score in (sample.scores or {}).items():
        values = (score.value.items() if isinstance(score.value, dict)
                  else [(None, score.value)])
        for sub, value in values:
            scorer = ctx.scorer(name) if sub is None else f"{ctx.scorer(name)}/{sub}"
            number = None if isinstance(value, list | dict) else _number(to_float(value))
            yield {**key, "line_no": rec_no, "scorer": scorer, "task": task,
                   "status": status, "value": number, "raw_value": json_text(value),
                   "predictions": json_text(score.answer) if score.answer is not None
                   else None, "note": score.explanation,
                   "extra": extra_json({"metadata": score.metadata} if score.metadata
                                       else {})}


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _dump(value: Any) -> Any:
    """A pydantic value as plain JSON-ready data (None stays None)."""
    if value is None:
        return None
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", exclude_none=True) if dump else value
