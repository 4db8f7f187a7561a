"""Hypothesis strategies for the ingest fuzzer (tests/fuzz/test_fuzz_ingest.py, issue 12).

Records are generated as raw JSON text lines, rendered here byte by byte (so a line can hold
what no JSON library writes: lone surrogate escapes, bare NaN, 1e400, invalid UTF-8,
integers of 5000 digits, nesting 2000 deep), and each line carries what DESIGN.md's rules say
must become of it. That expectation is worked out here from the generator's own choices,
never by calling the production code:

- a line that is not one or more JSON objects (truncated, an array, a scalar, garbage, too
  deep to parse) is one `error` reject and loads nothing;
- a line that parses after a lossless repair (two objects `}{`, a number beyond a double /
  an integer too long to convert -> null, invalid UTF-8 and lone surrogates -> U+FFFD)
  loads each object and is listed as `repaired`;
- a bare NaN / Infinity / -Infinity is what Python's json.dumps writes (the writer's own
  default): writer-valid, loaded as null, not damage (no reject);
- blank lines, a BOM, CRLF and a missing final newline are not damage;
- an object loads when it has a qid (a non-blank string or an integer) and a usable
  run_index (missing or null -> 1; an integer, integral float or digit string in
  1..2**31-1; a bare NaN / Infinity is no run_index); otherwise it is one `error` reject;
- of the copies of one (run, qid, run_index) the one in the most preferred file wins
  (merged_unique, top-level results, region shard, results_steal_NN, steal_NN/results;
  then path order), within a file the last; every other copy is a counted duplicate.
  Score rows: per (run, scorer, qid, run_index), the last line of a file, first file in
  path order.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

INT32_MAX = 2**31 - 1


# --- JSON values with raw pieces ----------------------------------------------------

@dataclass(frozen=True)
class Raw:
    """A piece of JSON text no encoder writes. `value` is what it decodes to under the
    rules (None for NaN, 1e400, ...); `flag` is "repair" when the line is then listed as
    repaired, "fatal" when the line cannot be parsed at all, None when it is clean."""

    text: bytes
    value: Any
    flag: str | None
    no_numbers: bool = False  # a nested structure without numbers (deep nesting)


DEEP_OK = 300  # orjson parses up to 1024 levels
DEEP_FATAL = 2000  # beyond every decoder's limit: the line is a reject


def _deep(depth: int) -> Raw:
    return Raw(b"[" * depth + b"]" * depth, None, "fatal" if depth > 1024 else None,
               no_numbers=True)


SPECIAL_NUMBERS = [
    Raw(b"NaN", None, None), Raw(b"Infinity", None, None),
    Raw(b"-Infinity", None, None), Raw(b"1e400", None, "repair"),
    Raw(b"-1e400", None, "repair"), Raw(b"9" * 5000, None, "repair"),
    # Beyond 64 bits: orjson refuses it, the stdlib reads it exactly: clean, but no
    # INTEGER / BIGINT column and no double holds the 400-digit one.
    Raw(b"1" + b"0" * 29, 10**29, None), Raw(b"-" + b"9" * 400, -int("9" * 400), None),
    Raw(b"18446744073709551615", 2**64 - 1, None),
]
SPECIAL_STRINGS = [
    Raw(b'"broken \\ud83d emoji"', "broken \ufffd emoji", "repair"),
    Raw(b'"\\udc00"', "\ufffd", "repair"),
    Raw(b'"pair \\ud83d\\ude00 ok"', "pair \U0001f600 ok", None),
    Raw(b'"bad \xff byte"', "bad \ufffd byte", "repair"),
    Raw(b'"\xfe\x80"', "\ufffd\ufffd", "repair"),
    Raw('"sep \u2028 nel \u0085 raw"'.encode(), "sep \u2028 nel \u0085 raw", None),
]
RAW_LEAVES = SPECIAL_NUMBERS + SPECIAL_STRINGS + [_deep(DEEP_OK), _deep(DEEP_FATAL)]


def render(value: Any, ascii_only: bool = False) -> tuple[bytes, set[str]]:
    """JSON text of a value (Raw pieces as written) and the flags of the Raw pieces in it."""
    flags: set[str] = set()
    out: list[bytes] = []

    def walk(v: Any) -> None:
        if isinstance(v, Raw):
            out.append(v.text)
            if v.flag:
                flags.add(v.flag)
        elif isinstance(v, dict):
            out.append(b"{")
            for i, (k, child) in enumerate(v.items()):
                if i:
                    out.append(b", " if ascii_only else b",")
                walk(k)
                out.append(b": " if ascii_only else b":")
                walk(child)
            out.append(b"}")
        elif isinstance(v, list):
            out.append(b"[")
            for i, child in enumerate(v):
                if i:
                    out.append(b",")
                walk(child)
            out.append(b"]")
        elif isinstance(v, float):
            out.append(repr(v).encode())
        else:  # None, bool, int, str
            out.append(json.dumps(v, ensure_ascii=ascii_only).encode())

    walk(value)
    return b"".join(out), flags


def decoded(value: Any) -> Any:
    """The value a Raw stands for (top level only): what the identity rules look at."""
    return value.value if isinstance(value, Raw) else value


def count_numbers(value: Any) -> int:
    """Numbers of a summary document as summary_metrics holds them: finite numbers, bools,
    numeric strings (FORMATS/summaries rule), NaN and friends not."""
    if isinstance(value, Raw):
        return 0 if value.no_numbers else count_numbers(value.value)
    if isinstance(value, dict):
        return sum(count_numbers(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_numbers(v) for v in value)
    if isinstance(value, bool):
        return 1
    if isinstance(value, int | float):
        try:
            return 1 if math.isfinite(float(value)) else 0
        except OverflowError:
            return 0
    if isinstance(value, str):
        try:
            return 1 if math.isfinite(float(value.strip())) else 0
        except ValueError:
            return 0
    return 0


scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, -1, 2**31, 2**63 - 1, -(2**63), 2**63]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([5e-324, -0.0, 1e308, 1.7976931348623157e308]),
    st.text(max_size=12),
    st.sampled_from(["", " ", "ok", "nan", "1e5", "Error: x", "\u00e9\u4e2d\U0001f600"]),
)
leaves = st.one_of(scalars, st.sampled_from(RAW_LEAVES))
any_json = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=6), children, max_size=3)),
    max_leaves=8)


# --- what a line must become ---------------------------------------------------------

@dataclass
class Obj:
    """One JSON object of a line: the keys it loads under, or None when it is rejected.
    Results and scored rows: one key (qid, run_index); per_question: one per run row."""

    keys: list[tuple[str, int | None]] | None


@dataclass
class LineSpec:
    raw: bytes  # without its line ending
    kind: str  # "blank" | "error" | "objects"
    objects: list[Obj] = field(default_factory=list)
    repaired: bool = False  # the read step lists the line as repaired
    odd: bool = False  # a value may not fit its column: a repaired reject is allowed

    def to_json(self) -> dict[str, Any]:
        return {"raw": base64.b64encode(self.raw).decode(), "kind": self.kind,
                "objects": [o.keys for o in self.objects], "repaired": self.repaired,
                "odd": self.odd}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LineSpec:
        objs = [Obj(None if k is None else [tuple(x) for x in k]) for k in data["objects"]]
        return cls(base64.b64decode(data["raw"]), data["kind"], objs, data["repaired"],
                   data["odd"])


def qid_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def run_index_value(present: bool, value: Any) -> tuple[bool, int | None]:
    """(usable, run_index) under the identity rule."""
    if not present or value is None:
        return True, 1
    if isinstance(value, bool):
        return False, None
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        number = int(value.strip())
    if number is None or not 1 <= number <= INT32_MAX:
        return False, None
    return True, number


QIDS = ["q1", "q2", "q3", "Q-\u00e9", "q\u2028x", 7]
GOOD_QIDS = st.sampled_from(QIDS)
BAD_QIDS = st.sampled_from([None, "", "   ", [], True, 1.5, {"id": "q1"}, Raw(b"NaN", None,
                                                                           None)])
GOOD_RUN_INDEX = st.sampled_from([1, 1, 2, 3, "2", 2.0, None,
                                  Raw(b"1e400", None, "repair")])
# A bare NaN / Infinity names no attempt (no more than 1.5 does): here it decodes to the
# float it stands for, which the identity rule refuses (docs/SAFETY.md).
BAD_RUN_INDEX = st.sampled_from([0, -1, 2**31, 2**40, True, "x", 1.5, [1], "3.5",
                                 Raw(b"1" + b"0" * 29, 10**29, None),
                                 Raw(b"NaN", math.nan, None), Raw(b"Infinity", math.inf, None),
                                 Raw(b"-Infinity", -math.inf, None)])

MISSING = object()


@st.composite
def identity(draw: st.DrawFn) -> dict[str, Any]:
    """The qid / run_index fields: usable three times in four (an explicit choice, or the
    many ways to be unusable would crowd out the loadable records)."""
    fields: dict[str, Any] = {}
    usable = draw(st.integers(0, 3)) > 0
    bad_qid = not usable and draw(st.booleans())
    bad_run = not usable and not bad_qid
    if bad_qid:
        qid = draw(st.one_of(BAD_QIDS, st.just(MISSING)))
    else:
        qid = draw(GOOD_QIDS)
    if qid is not MISSING:
        fields["qid"] = qid
    if bad_run:
        fields["run_index"] = draw(BAD_RUN_INDEX)
    elif draw(st.booleans()):
        fields["run_index"] = draw(GOOD_RUN_INDEX)
    return fields


def key_of(fields: dict[str, Any]) -> tuple[str, int] | None:
    qid = qid_text(decoded(fields.get("qid"))) if "qid" in fields else None
    if qid is None:
        return None
    ok, run_index = run_index_value("run_index" in fields, decoded(fields.get("run_index")))
    if not ok:
        return None
    assert run_index is not None
    return qid, run_index


def maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """A plausible value, any JSON value, or the field left out."""
    return st.one_of(st.just(MISSING), strategy, strategy, any_json)


TEXT = st.text(max_size=20)
TOOL_NAMES = st.sampled_from(["ehr.finish", "finish", "ehr_load_ehr", "search",
                              "image.chest_xray_classifier", "ehr.run_sql_query", ""])
ARGUMENTS = st.one_of(
    st.just('{"response": ["a", "b"]}'), st.just("{'response': ['a']}"),
    st.just('{"response": "one"}'), st.just("{not json"), TEXT,
    st.dictionaries(st.sampled_from(["response", "x"]), any_json, max_size=2), any_json)
BLOCKS = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}),
    st.fixed_dictionaries({"type": st.just("image"), "source": st.fixed_dictionaries({
        "type": st.just("base64"), "media_type": st.just("image/jpeg"),
        "data": st.sampled_from(["/9j/4AAQSkZJRg==", "", "1e400:[,"])})}),
    st.fixed_dictionaries({"type": st.just("image_url"), "image_url": st.fixed_dictionaries(
        {"url": st.sampled_from(["data:image/png;base64,AAAA", "http://x", "data:"])})}),
    st.fixed_dictionaries({"type": st.sampled_from(["thinking", "tool_use", "???"]),
                           "x": any_json}),
    any_json)
TOOL_CALL = st.one_of(
    st.fixed_dictionaries({"id": st.one_of(TEXT, st.just("synthetic_finish_ab")),
                           "type": st.just("function"),
                           "function": st.fixed_dictionaries({"name": TOOL_NAMES,
                                                              "arguments": ARGUMENTS})}),
    st.fixed_dictionaries({"name": TOOL_NAMES, "arguments": ARGUMENTS}),
    any_json)
MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]),
                           "content": st.one_of(TEXT, st.lists(BLOCKS, max_size=3), any_json)},
                          optional={"tool_calls": st.one_of(st.lists(TOOL_CALL, max_size=3),
                                                            st.none(), any_json),
                                    "reasoning_content": any_json,
                                    "bedrock_content_blocks": any_json}),
    st.fixed_dictionaries({"role": st.just("tool"), "content": st.one_of(
        TEXT, st.just("Error: boom"), any_json), "tool_call_id": st.one_of(TEXT, any_json)},
        optional={"name": TOOL_NAMES}),
    any_json)

RESULT_FIELDS: dict[str, st.SearchStrategy] = {
    "status": st.sampled_from(["ok", "success", "incomplete", "error", "weird"]),
    "completed": st.booleans(),
    "stop_reason": st.sampled_from(["finish_tool_call", "exception", "no_final_answer"]),
    "error": st.one_of(st.none(), TEXT),
    "task": st.sampled_from(["labevents", "ehrxqa_image", "ICU_Mortality_1day", "new"]),
    "task_type": st.sampled_from(["risk_prediction", "decision_making"]),
    "label": st.one_of(st.lists(TEXT, max_size=3), st.lists(st.fixed_dictionaries(
        {"name": TEXT}, optional={"atc_name": TEXT}), max_size=3), TEXT),
    "subject_id": st.one_of(st.integers(1, 10**8), st.just("10001")),
    "hadm_id": st.one_of(st.none(), st.integers(1, 10**8)),
    "stay_id": st.one_of(st.none(), st.integers(1, 10**8)),
    "prediction_time": st.sampled_from(["2150-01-02 03:04:05", "2150-01-02T03:04:05+02:00",
                                        "9999-12-31 23:30:00-05:00", "not a date", ""]),
    "runs_per_question": st.integers(1, 5),
    "backend_model_id": st.sampled_from(["us.anthropic.claude-opus-4-6-v1", "x"]),
    "question": TEXT,
    "messages": st.lists(MESSAGE, max_size=4),
    "multimodal_summary": st.fixed_dictionaries({"num_images": st.integers(0, 4)}),
    "candidates": st.lists(TEXT, max_size=3),
}
SCORED_FIELDS: dict[str, st.SearchStrategy] = {
    "task": st.sampled_from(["ehrxqa_image", "medmod_phenotyping"]),
    "gold_names": st.lists(TEXT, max_size=3), "prediction_strs": st.lists(TEXT, max_size=3),
    "note": st.sampled_from(["ok", "no_finish_call"]),
    "status": st.sampled_from(["success", "incomplete"]),
    "route": st.sampled_from(["incomplete", "set_f1", "llm_judge"]),
    "correct": st.sampled_from([0, 1, True, None]),
    "precision": st.floats(0, 1), "recall": st.floats(0, 1), "f1": st.floats(0, 1),
    "accuracy": st.floats(0, 1), "subset_match": st.sampled_from([0, 1]),
    "tp": st.integers(0, 5), "n_pred": st.integers(0, 5), "n_gold": st.integers(0, 5),
    "f1_raw": st.floats(0, 1), "judge_subtype": TEXT, "judge_match": st.booleans(),
    "mapping_similarity": st.floats(0, 1),
}
PER_QUESTION_RUN: dict[str, st.SearchStrategy] = {
    "predictions": st.lists(TEXT, max_size=3), "prediction_source": TEXT,
    "f1": st.floats(0, 1), "precision": st.floats(0, 1), "recall": st.floats(0, 1),
    "em": st.sampled_from([0, 1]), "tool_calls": st.integers(0, 50),
    "turns": st.integers(0, 50),
}
UNKNOWN_FIELDS = st.dictionaries(st.sampled_from(["judge_reason", "vocab_x", "zz", "", "\u00e9"]),
                                 any_json, max_size=2)


@st.composite
def fields_of(draw: st.DrawFn, spec: dict[str, st.SearchStrategy]) -> tuple[dict[str, Any],
                                                                             bool]:
    """Known fields (each plausible, any JSON value or missing) and whether any is odd."""
    out: dict[str, Any] = {}
    odd = False
    messy = draw(st.integers(0, 2)) == 0  # else every field is plausible
    for name, strategy in spec.items():
        choice = draw(st.integers(0, 5 if messy else 4))
        if choice == 0:
            continue
        if choice == 5:
            out[name] = draw(any_json)
            odd = True
        else:
            out[name] = draw(strategy)
            odd = odd or _unfit(name, out[name])
    return out, odd


GOOD_TIMES = {"2150-01-02 03:04:05", "2150-01-02T03:04:05+02:00"}


def _unfit(name: str, value: Any) -> bool:
    """Plausible-looking values that still do not fit their column (a reject note is
    allowed): a timestamp that is none, trajectories whose shape is off."""
    if name == "prediction_time":
        return value not in GOOD_TIMES
    if name == "messages":
        for msg in value:
            if not isinstance(msg, dict):
                return True
            calls = msg.get("tool_calls")
            if calls is not None and not isinstance(calls, list):
                return True
            if isinstance(calls, list) and not all(isinstance(c, dict) for c in calls):
                return True
    return False


@st.composite
def record(draw: st.DrawFn, file_kind: str) -> tuple[dict[str, Any], Obj, bool]:
    """(a record as a JSON value with Raw pieces, its fate, odd)."""
    ident = draw(identity())
    if file_kind == "per_question":
        body, odd = draw(fields_of({"task": SCORED_FIELDS["task"],
                                    "task_type": st.sampled_from(["decision_making"]),
                                    "avg_f1": st.floats(0, 1)}))
        runs_choice = draw(st.integers(0, 6))
        fate_runs: list[int | None] | None
        if runs_choice == 0:  # no runs key
            fate_runs = [None]
        elif runs_choice == 1:
            body["runs"] = draw(st.sampled_from([None, []]))
            fate_runs = [None]
        elif runs_choice == 2:
            body["runs"] = draw(st.one_of(TEXT, st.integers(), st.dictionaries(TEXT, TEXT)))
            fate_runs = None
        else:
            runs = []
            fate_runs = []
            for position in range(1, draw(st.integers(1, 3)) + 1):
                run, run_odd = draw(fields_of(PER_QUESTION_RUN))
                odd = odd or run_odd
                if draw(st.integers(0, 9)) == 0:
                    runs.append(draw(st.sampled_from([None, 1, "x", []])))
                    fate_runs = None
                    continue
                if draw(st.booleans()):
                    value = draw(st.one_of(GOOD_RUN_INDEX, BAD_RUN_INDEX))
                    run["run_index"] = value
                    ok, index = run_index_value(True, decoded(value))
                else:
                    ok, index = True, position
                if not ok:
                    fate_runs = None
                elif fate_runs is not None:
                    fate_runs.append(index)
                runs.append(run)
            body["runs"] = runs
        qid = qid_text(decoded(ident.get("qid"))) if "qid" in ident else None
        ident.pop("run_index", None)  # per_question rows take it from runs
        keys = None if qid is None or fate_runs is None else [(qid, r) for r in fate_runs]
        obj = {**ident, **body, **draw(UNKNOWN_FIELDS)}
        return obj, Obj(keys), odd
    spec = RESULT_FIELDS if file_kind == "results" else SCORED_FIELDS
    body, odd = draw(fields_of(spec))
    key = key_of(ident)
    obj = {**ident, **body, **draw(UNKNOWN_FIELDS)}
    return obj, Obj(None if key is None else [key]), odd


GARBAGE = [b"not json", b"{'qid': 'q1'}", b'{"qid": }', b"<html>", b'{"qid": "q1",}',
           b"\x00\x01", b'{"qid": "q1"} trailing']


@st.composite
def line(draw: st.DrawFn, file_kind: str) -> LineSpec:
    """One line of a JSONL file of the kind (results | scored | per_question)."""
    choice = draw(st.integers(0, 19))
    ascii_only = draw(st.booleans())  # one-shot writers use ASCII escapes
    if choice == 0:
        return LineSpec(draw(st.sampled_from([b"", b"  ", b"\t", b" \t "])), "blank")
    if choice == 1:
        return LineSpec(draw(st.sampled_from(GARBAGE)), "error")
    if choice == 2:  # a JSON value that is not an object
        value = draw(st.one_of(st.lists(any_json, max_size=3), scalars))
        raw, flags = render(value, ascii_only)
        if not raw.strip():
            raw = b"[]"
        return LineSpec(raw, "error")
    objs = [draw(record(file_kind))]
    if choice == 3:  # two or three objects on one line
        objs += draw(st.lists(record(file_kind), min_size=1, max_size=2))
    rendered = [render(o, ascii_only) for o, _, _ in objs]
    flags = set().union(*(f for _, f in rendered))
    sep = draw(st.sampled_from([b"", b" "]))
    raw = sep.join(r for r, _ in rendered)
    odd = any(o for _, _, o in objs) or bool(flags)
    if "fatal" in flags:
        return LineSpec(raw, "error", odd=odd)
    if choice == 4 and len(raw) > 1:  # truncated: a killed writer
        cut = draw(st.integers(1, len(raw) - 1))
        return LineSpec(raw[:cut], "error")
    if choice == 5 and len(objs) == 1:  # an object then an array: not objects only
        return LineSpec(raw + b"[1]", "error")
    repaired = bool(flags & {"repair"}) or len(objs) > 1
    return LineSpec(raw, "objects", [fate for _, fate, _ in objs], repaired, odd)


# --- files and trees -----------------------------------------------------------------

@dataclass
class FileSpec:
    path: str  # logical path under the root
    kind: str  # results_merged | results_top | results_shard | results_steal |
    #            results_steal_copy | scored | rescored | per_question | summary
    lines: list[LineSpec] = field(default_factory=list)
    bom: bool = False
    crlf: bool = False
    final_newline: bool = True
    document: bytes | None = None  # summary files: the whole file
    n_numbers: int | None = None  # summary files: numbers it holds, None when unreadable

    def data(self) -> bytes:
        if self.document is not None:
            return self.document
        end = b"\r\n" if self.crlf else b"\n"
        body = end.join(spec.raw for spec in self.lines)
        if self.lines and self.final_newline:
            body += end
        return (b"\xef\xbb\xbf" if self.bom else b"") + body

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "bom": self.bom, "crlf": self.crlf,
                "final_newline": self.final_newline,
                "lines": [spec.to_json() for spec in self.lines],
                "document": None if self.document is None
                else base64.b64encode(self.document).decode(),
                "n_numbers": self.n_numbers}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileSpec:
        doc = data["document"]
        return cls(data["path"], data["kind"], [LineSpec.from_json(x) for x in data["lines"]],
                   data["bom"], data["crlf"], data["final_newline"],
                   None if doc is None else base64.b64decode(doc), data["n_numbers"])


@dataclass
class TreeSpec:
    files: list[FileSpec]

    def to_json(self) -> dict[str, Any]:
        return {"files": [f.to_json() for f in self.files]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeSpec:
        return cls([FileSpec.from_json(f) for f in data["files"]])


EXTRACTOR_FAMILY = {"results_merged": "results", "results_top": "results",
                    "results_shard": "results", "results_steal": "results",
                    "results_steal_copy": "results", "scored": "scored",
                    "rescored": "scored", "per_question": "per_question"}
COPY_RANK = {"results_merged": 1, "results_top": 2, "results_shard": 3, "results_steal": 4,
             "results_steal_copy": 5}

# Valid layouts only (run identity and discovery are another stage's business): one run of
# each shape, results copies in every kind of file, score files where the authors put them.
TEXT_RUN = "ehr_bench/agentic/full1800/m_a"
MM_ONESHOT_RUN = "mm_bench/oneshot/full2703/m_b"
MM_AGENTIC_RUN = "mm_bench/agentic/full2703/m_c"
CANDIDATE_FILES: list[tuple[str, str, str]] = [  # (run_id, path, kind)
    (TEXT_RUN, f"{TEXT_RUN}/results.jsonl", "results_top"),
    (TEXT_RUN, f"{TEXT_RUN}/merged_unique.jsonl", "results_merged"),
    (TEXT_RUN, f"{TEXT_RUN}/us-east-1/results.jsonl", "results_shard"),
    (TEXT_RUN, f"{TEXT_RUN}/us-west-2/results.jsonl", "results_shard"),
    (TEXT_RUN, f"{TEXT_RUN}/us-east-1/results_steal_01.jsonl", "results_steal"),
    (TEXT_RUN, f"{TEXT_RUN}/us-east-1/steal_01/results.jsonl", "results_steal_copy"),
    (TEXT_RUN, f"{TEXT_RUN}/per_question.jsonl", "per_question"),
    (MM_ONESHOT_RUN, f"{MM_ONESHOT_RUN}/results.jsonl", "results_top"),
    (MM_ONESHOT_RUN, "mm_bench/oneshot/scored/m_b/scored.jsonl", "scored"),
    (MM_ONESHOT_RUN, "mm_bench/oneshot/scored/m_b/summary.json", "summary"),
    (MM_AGENTIC_RUN, f"{MM_AGENTIC_RUN}/results.jsonl", "results_top"),
    (MM_AGENTIC_RUN, "mm_bench/agentic/scored/m_c/rescored.jsonl", "rescored"),
    (MM_AGENTIC_RUN, "mm_bench/agentic/scored/m_c/summary_vocab.json", "summary"),
]
RUN_OF_PATH = {path: run for run, path, _ in CANDIDATE_FILES}

SUMMARY_DOC = st.fixed_dictionaries({}, optional={
    "total": st.one_of(st.integers(0, 3000), any_json),
    "unified_f1": st.one_of(st.floats(0, 1), any_json),
    "per_task_len1": st.dictionaries(st.sampled_from(["ehrxqa_image", "medmod_x"]),
                                     st.dictionaries(st.sampled_from(["count", "accuracy"]),
                                                     any_json, max_size=2), max_size=2),
    "overall": any_json, "vocab_model": st.text(max_size=5), "zz": any_json})


@st.composite
def summary_file(draw: st.DrawFn, path: str) -> FileSpec:
    choice = draw(st.integers(0, 7))
    if choice == 0:
        return FileSpec(path, "summary", document=b"", n_numbers=None)
    doc = draw(st.one_of(SUMMARY_DOC, SUMMARY_DOC, SUMMARY_DOC, any_json))
    raw, flags = render(doc, draw(st.booleans()))
    if "fatal" in flags:
        return FileSpec(path, "summary", document=raw, n_numbers=None)
    if choice == 1 and len(raw) > 1 and raw[:1] in (b"{", b"[", b'"'):
        # a strict prefix of an object, array or string is never JSON (of a number it is)
        cut = draw(st.integers(1, len(raw) - 1))
        if raw[:cut].strip():
            return FileSpec(path, "summary", document=raw[:cut], n_numbers=None)
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    return FileSpec(path, "summary", document=raw + draw(st.sampled_from([b"", b"\n"])),
                    n_numbers=count_numbers(doc))


@st.composite
def jsonl_file(draw: st.DrawFn, path: str, kind: str) -> FileSpec:
    family = EXTRACTOR_FAMILY[kind]
    lines = draw(st.lists(line(family), max_size=8))
    return FileSpec(path, kind, lines, bom=draw(st.booleans()), crlf=draw(st.booleans()),
                    final_newline=draw(st.booleans()))


@st.composite
def trees(draw: st.DrawFn) -> TreeSpec:
    chosen = draw(st.lists(st.sampled_from(CANDIDATE_FILES), min_size=1, max_size=6,
                           unique=True))
    files = []
    for _, path, kind in sorted(chosen, key=lambda c: c[1]):
        if kind == "summary":
            files.append(draw(summary_file(path)))
        else:
            files.append(draw(jsonl_file(path, kind)))
    by_kind = {f.kind: f for f in files}
    if ("results_steal" in by_kind and "results_steal_copy" in by_kind
            and draw(st.booleans())):  # a byte copy, as the writer makes it
        copy = by_kind["results_steal_copy"]
        source = by_kind["results_steal"]
        copy.lines, copy.bom, copy.crlf = source.lines, source.bom, source.crlf
        copy.final_newline = source.final_newline
    return TreeSpec(files)
