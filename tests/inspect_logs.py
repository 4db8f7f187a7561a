"""Inspect AI logs written by the real Inspect library, for the tests (no committed binaries,
no API key): a small clinical task run against Inspect's mockllm model with custom outputs.

The task: each sample asks for a lab code of a patient; the model calls the tool `lookup`
(which raises ToolError for the codes it does not know, so some calls fail), then answers,
right on some epochs and wrong on others. Samples carry metadata (the patient, a task name),
every model output carries token usage, and three scorers score each sample: match (C / I),
includes, and partial_credit (C / P / I, with a stderr clustered by patient)."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    PARTIAL,
    Score,
    Target,
    accuracy,
    includes,
    match,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate, use_tools
from inspect_ai.tool import ToolError, tool

TOOL_ERROR = "no record for code"


@tool
def lookup():  # noqa: ANN201 - Inspect's tool decorator
    async def execute(code: str) -> str:
        """Look up a lab code in the patient's record.

        Args:
            code: The lab code.
        """
        if code.startswith("bad"):
            raise ToolError(f"{TOOL_ERROR} {code}")
        return f"record of {code}: abnormal"

    return execute


@scorer(metrics=[accuracy(), stderr(cluster="subject_id")])
def partial_credit():  # noqa: ANN201 - Inspect's scorer decorator
    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion
        if answer.strip() == target.text:
            return Score(value=CORRECT, answer=answer)
        if target.text in answer:
            return Score(value=PARTIAL, answer=answer)
        return Score(value=INCORRECT, answer=answer)

    return score


def samples(ids: list[str] | None = None, n: int = 6,
            patients: dict[str, int] | None = None) -> list[Sample]:
    """Samples q0..q<n-1> (or the given ids), two per patient (or the given patients)."""
    ids = ids or [f"q{i}" for i in range(n)]
    return [Sample(id=qid, input=f"Which lab code is abnormal? (case {qid})",
                   target=f"A{i}",
                   metadata={"subject_id": (patients or {}).get(qid, 7000 + i // 2),
                             "task": "labs" if i % 2 else "diagnosis"})
            for i, qid in enumerate(ids)]


def _outputs(ids: list[str]) -> Any:
    """The mock model: a tool call first (a failing one for every third sample), then an
    answer that is right on some epochs and partly right or wrong on the others."""
    calls: Counter[str] = Counter()
    index = {qid: i for i, qid in enumerate(ids)}

    def generate_output(input, tools, tool_choice, config):  # noqa: ANN001, ANN202
        question = input[0].text
        qid = question.rsplit("case ", 1)[1].rstrip(")")
        i = index[qid]
        answered = any(isinstance(m, ChatMessageTool) for m in input)
        if tools and not answered:
            code = f"bad{i}" if i % 3 == 0 else f"A{i}"
            out = ModelOutput.for_tool_call("mockllm/model", "lookup", {"code": code})
        else:
            calls[qid] += 1  # right on the first i % 4 epochs, then partly right or wrong
            text = (f"A{i}" if calls[qid] <= i % 4 else f"It is A{i}." if i % 2 else "Z9")
            out = ModelOutput.from_content("mockllm/model", text)
        out.usage = ModelUsage(input_tokens=20 + 7 * len(input), output_tokens=4 + i,
                               total_tokens=24 + 7 * len(input) + i)
        return out

    return generate_output


def clinical_task(sample_list: list[Sample], epochs: int, name: str, tools: bool,
                  partial_first: bool = False) -> Task:
    """The task; its first scorer is the log's headline (match, or partial_credit)."""
    scorers = [match(), includes(), partial_credit()]
    return Task(dataset=sample_list,
                solver=[use_tools(lookup()), generate()] if tools else [generate()],
                scorer=scorers[::-1] if partial_first else scorers, epochs=epochs, name=name)


def write_log(log_dir: Path, *, model: str = "mockllm/model", ids: list[str] | None = None,
              n: int = 6, epochs: int = 3, fmt: str = "eval", name: str = "clin_lookup",
              tools: bool = True, partial_first: bool = False,
              patients: dict[str, int] | None = None) -> Path:
    """Run the task with Inspect against the mock model; the path of the log it wrote."""
    sample_list = samples(ids, n, patients)
    sample_ids = [str(s.id) for s in sample_list]
    # Inspect runs its own event loop; in a worker whose thread already runs one (the
    # shared Playwright browser's), it refuses to start, so it runs on a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        log = pool.submit(
            inspect_eval, clinical_task(sample_list, epochs, name, tools, partial_first),
            model=get_model(model, custom_outputs=_outputs(sample_ids)),
            log_dir=str(log_dir), log_format=fmt, display="none", max_samples=1,
        ).result()[0]
    assert log.status == "success", log.error
    return Path(log.location)
