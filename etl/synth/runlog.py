"""run.log as the agent drivers print it, rendered from the records a run wrote.

Line formats are the print() calls of UCSC-VLAA/ClinSeekAgent:
- style "text": clinseekagent/run_text.py (ehr_bench / agent_ehr_bench agentic runs);
- style "mm": openresearcher_ehr/deploy_agent_mm.py (multimodal agentic runs, and every shard
  of a run_multi_model_eval.py raw run, whose stdout+stderr the driver tees to run.log).

Each notable line is counted when it is written, by what it means (a tool call whose
arguments parse, a finish call, an exception...), never by matching the text: those tallies
are the truth file's run_logs counts, which the ingest's regex counts must reproduce."""

from __future__ import annotations

import json
import random
from typing import Any

from etl.synth.records import IMAGE_TOOLS

# run_log_stats columns (schema/20_lineage.sql), in table order
COLUMNS = ("n_errors", "n_tool_errors", "n_tool_name_fixes", "n_synthetic_finish",
           "n_exceptions", "n_tool_calls", "n_truncated_results", "n_finish_called",
           "n_written", "n_questions_started")
EHR_MCP = "http://127.0.0.1:5003/mcp"  # run_text.py / deploy_agent_mm.py --ehr_mcp_url default
MAX_ROUNDS = 200
TOOL_RESULT_CAP = 100000


def _script_path(style: str) -> str:
    return ("/fsx-shared/juncheng/ClinSeekAgent/openresearcher_ehr/deploy_agent_mm.py"
            if style == "mm" else "/fsx-shared/juncheng/ClinSeekAgent/clinseekagent/run_text.py")


class RunLog:
    """One driver process: header, one block per record written, footer."""

    def __init__(self, style: str, model_id: str, region: str, *, data_path: str,
                 output_dir: str, n_queries: int, runs_per_question: int, rng: random.Random,
                 thinking: str = "auto", concurrency: int = 12,
                 mm_header: list[str] | None = None, fix_image_names: bool = False) -> None:
        self.style, self.model_id, self.region = style, model_id, region
        self.output_file = f"{output_dir}/results.jsonl"
        self.n_queries, self.runs_per_question = n_queries, runs_per_question
        self.rng = rng
        self.fix_image_names = fix_image_names
        self.lines: list[str] = []
        self.counts = dict.fromkeys(COLUMNS, 0)
        self.batch = 0
        mm = style == "mm"
        self.put("Using default AWS credential chain for Bedrock auth")
        self.put(f"Using AWS Bedrock: {model_id} @ {region} | thinking={thinking}")
        if mm:
            for line in mm_header or [f"EHR tools enabled (default): {EHR_MCP}"]:
                self.put(line)
        else:
            self.put(f"EHR tools enabled: {EHR_MCP}")
        total = n_queries * runs_per_question
        self.put(f"Loaded {n_queries} queries from {data_path}")
        self.put(f"Running {runs_per_question} run(s) per query ({total} total runs)")
        if not mm:
            self.put("Execution order: run 1 over all queries, then run 2, until "
                     "runs_per_question is exhausted")
        self.put(f"Running with max concurrency: {concurrency}")
        self.put(f"Tool result char limit: {TOOL_RESULT_CAP}")
        if mm:
            self.put("Image max edge: 1568")

    def put(self, line: str, column: str | None = None) -> None:
        self.lines.append(line)
        if column is not None:
            self.counts[column] += 1

    def _batch(self, run_index: int) -> None:
        while self.batch < run_index:
            self.batch += 1
            mm = "MM " if self.style == "mm" else ""
            self.put("")
            self.put("#" * 80)
            self.put(f"Starting {mm}run batch {self.batch}/{self.runs_per_question} "
                     f"for {self.n_queries} query(ies)")
            self.put("#" * 80)
            self.put(f"Queued {self.n_queries} task(s) for run batch {self.batch}")

    def _traceback(self, fn: str, call: str, error: str) -> None:
        self.put("Traceback (most recent call last):", "n_exceptions")
        self.put(f'  File "{_script_path(self.style)}", line 611, in {fn}')
        self.put(f"    {call}")
        self.put(f"{error}")

    def record(self, rec: dict[str, Any], question_index: int) -> None:
        """The lines of one result row, as the driver prints them while producing it."""
        qid = rec.get("qid")
        run_index = int(rec.get("run_index") or 1)
        self._batch(run_index)
        mm = self.style == "mm"
        task_index = (run_index - 1) * self.n_queries + question_index
        total = self.n_queries * self.runs_per_question
        session = rec.get("session_id") or f"{qid}__q_{question_index}__run_{run_index}"
        error = str(rec.get("error") or "")
        stop = rec.get("stop_reason")
        if stop != "exception_before_completion" or mm:
            preview = str(rec.get("question") or "")[:100].replace("\n", " ").replace("\r", " ")
            self.put("")
            self.put("=" * 80)
            self.put(f"Processing task {task_index}/{total} | question {question_index}/"
                     f"{self.n_queries} | run {run_index}/{self.runs_per_question} | "
                     f"qid={qid}: {preview}...", "n_questions_started")
            self.put("=" * 80)
        if stop == "exception_before_completion":
            self.put(f"[qid={qid}] ERROR before completion: {error}", "n_errors")
            self._traceback("process_query_item", "question = resolve_question(item)", error)
        elif stop == "exception":
            self._round_header(session, 1, 2)
            self.put(f"[qid={qid}] ERROR: {error}", "n_errors")
            self._traceback("run_one_query", "messages = await run_one_native(", error)
        else:
            self._rounds(session, rec.get("messages") or [])
        self.put(f"[qid={qid}] task {task_index}/{total} | run {run_index}/"
                 f"{rec.get('runs_per_question', '?')} written to {self.output_file}", "n_written")

    def _round_header(self, session: str, rnd: int, n_msgs: int) -> None:
        mm = "MM " if self.style == "mm" else ""
        self.put("")
        self.put(f"[qid={session}] {'=' * 50}")
        self.put(f"[qid={session}] {mm}Round {rnd}/{MAX_ROUNDS} | msgs_so_far={n_msgs}")
        self.put(f"[qid={session}] {'=' * 50}")

    def _fixed_name(self, name: str) -> str:
        """deploy_agent_mm._resolve_tool_namespace: a tool the model put in the wrong
        namespace (Kimi: ehr.chest_xray_classifier) or left bare (ehr_load_ehr)."""
        if "." not in name and name.startswith("ehr_"):
            return "ehr." + name[len("ehr_"):]
        if self.fix_image_names and name.startswith("ehr.") and name[4:] in IMAGE_TOOLS:
            return "image." + name[4:]
        return name

    def _rounds(self, session: str, messages: list[dict[str, Any]]) -> None:
        mm = self.style == "mm"
        # the tool message of each call: by id, else (fresh uuid ids) the next one in order
        results: dict[Any, Any] = {}
        pending: list[Any] = []
        for m in messages:
            if not isinstance(m, dict):
                continue
            if m.get("role") == "tool":
                tid = m.get("tool_call_id")
                if tid in pending:
                    pending.remove(tid)
                elif pending:
                    tid = pending.pop(0)
                results.setdefault(tid, m.get("content"))
            for c in m.get("tool_calls") or []:
                pending.append(c.get("id"))
        rnd = 0
        for k, msg in enumerate(messages):
            if not isinstance(msg, dict) or msg.get("role") != "assistant":
                continue
            rnd += 1
            self._round_header(session, rnd, k)
            content = msg.get("content") if isinstance(msg.get("content"), str) else ""
            reasoning = (msg.get("reasoning_content") or "").strip()
            calls = msg.get("tool_calls") or []
            synthetic = bool(calls) and str(calls[0].get("id", "")).startswith(
                "synthetic_finish_")
            n_calls = 0 if synthetic else len(calls)
            self.put(f"[qid={session}] Round {rnd} MODEL RESPONSE: content_len={len(content)}, "
                     f"reasoning_len={len(reasoning)}, tool_calls={n_calls}")
            label = "CONTENT" if content else "REASONING"
            self.put(f"[qid={session}] Round {rnd} {label} PREVIEW: "
                     f"{(content or reasoning)[:2000]!r}")
            if reasoning and content:
                self.put(f"[qid={session}] Round {rnd} REASONING PREVIEW: {reasoning[:2000]!r}")
            if not n_calls:
                tail = "" if mm else " without a reminder"
                self.put(f"[qid={session}] Round {rnd}: No tool calls detected; stopping{tail}")
                if synthetic:
                    items = json.loads(calls[0]["function"]["arguments"])["response"]
                    if mm:
                        line = (f"[qid={session}] \u2705 Round {rnd}: synthesized ehr.finish "
                                f"from {len(items)}-line plain-text answer")
                    else:
                        line = (f"[qid={session}] DONE Round {rnd}: synthesized ehr.finish from "
                                f"plain-text answer ({len(items)} item(s)): "
                                f"{json.dumps(items)[:160]}")
                    self.put(line, "n_synthetic_finish")
                break
            finished = False
            for idx, call in enumerate(calls):
                fn = call.get("function") or {}
                name = str(fn.get("name", ""))
                if mm:
                    fixed = self._fixed_name(name)
                    if fixed != name:
                        self.put(f"[qid={session}] Round {rnd} TOOL_NAME_FIX: {name!r} -> "
                                 f"{fixed!r}", "n_tool_name_fixes")
                    name = fixed
                raw = fn.get("arguments")
                try:
                    args = raw if isinstance(raw, dict) else json.loads(raw)
                except (TypeError, ValueError) as exc:
                    self.put(f"[qid={session}] Round {rnd} TOOL_ERROR[{idx}]: "
                             f"Error executing {name}: {exc}", "n_tool_errors")
                    continue
                self.put(f"[qid={session}] Round {rnd} TOOL_CALL[{idx}]: "
                         f"{name}({json.dumps(args, ensure_ascii=False)[:200]})", "n_tool_calls")
                result = results.get(call.get("id"))
                result = result if isinstance(result, str) else ""
                if self.rng.random() < 0.1:
                    self.put(f"[qid={session}] Round {rnd} TOOL_RESULT_TRUNCATED[{idx}]: "
                             f"{len(result) + self.rng.randrange(1, 50000)} -> {len(result)} "
                             "chars", "n_truncated_results")
                self.put(f"[qid={session}] Round {rnd} TOOL_RESULT[{idx}]: len={len(result)}, "
                         f"preview={result[:200]!r}")
                bare = name.split(".", 1)[1] if "." in name else name
                if bare in ("finish", "ehr_finish"):
                    finished = True
            if finished:
                self.put(f"[qid={session}] \u2705 Round {rnd}: ehr.finish called - DONE" if mm
                         else f"[qid={session}] DONE Round {rnd}: ehr.finish called",
                         "n_finish_called")
                break
        done = "MM finished after" if mm else "Finished after"
        self.put(f"[qid={session}] {done} {rnd} rounds, "
                 f"{'msgs' if mm else 'total messages'}={len(messages)}")

    def text(self) -> str:
        mm = self.style == "mm"
        end = ("\u2705 All multimodal queries processed." if mm else "All queries processed.")
        body = self.lines + ["", f"{end} Results in {self.output_file}"]
        return "\n".join(body) + "\n"

    def truth(self, path: str, text: str) -> dict[str, Any]:
        source_dir = path.rsplit("/", 1)[0]
        return {"path": path, "source_dir": source_dir, "n_lines": text.count("\n"),
                **self.counts, "backend_model_id": self.model_id,
                "backend_region": self.region}
