"""Two trajectories of one question, step by step: their tool calls aligned so that the
calls both made sit on one row and a call only one of them made faces a gap, and the first
row where they part marked (the explorer's /diff page).

Two calls are the same step when they call the same tool with the same arguments (JSON
arguments compared as parsed, so key order and spacing do not count). The alignment is the
longest common subsequence of the two step lists (difflib), so two runs that part and meet
again line up again."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

Step = dict[str, Any]


def step_key(step: Step) -> tuple[str, str]:
    """What makes two calls the same step: the tool and the arguments (canonical JSON)."""
    arguments = step.get("arguments") or ""
    try:
        arguments = json.dumps(json.loads(arguments), sort_keys=True, ensure_ascii=False)
    except (ValueError, TypeError):
        arguments = arguments.strip()
    return (step.get("tool") or "", arguments)


@dataclass(frozen=True)
class DiffRow:
    """One row of the side-by-side: kind is same (the same call on both sides, with the
    same error flag), changed (facing calls that differ), only_a or only_b (a call facing a
    gap)."""

    kind: str
    a: Step | None
    b: Step | None

    def flat(self) -> dict[str, Any]:
        """The row for JSON / CSV: kind and each side's tool, arguments, result, error."""
        out: dict[str, Any] = {"kind": self.kind}
        for side, step in (("a", self.a), ("b", self.b)):
            for name in ("msg_idx", "call_idx", "tool", "arguments", "result_chars",
                         "is_error"):
                out[f"{name}_{side}"] = step.get(name) if step else None
        return out


def align_steps(a: list[Step], b: list[Step]) -> list[DiffRow]:
    """The steps of a and b on aligned rows (every step of each side, in its order)."""
    keys_a, keys_b = [step_key(s) for s in a], [step_key(s) for s in b]
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2], strict=True):
                same = bool(x.get("is_error")) == bool(y.get("is_error"))
                rows.append(DiffRow("same" if same else "changed", x, y))
            continue
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            x = left[k] if k < len(left) else None
            y = right[k] if k < len(right) else None
            rows.append(DiffRow("changed" if x and y else "only_a" if x else "only_b", x, y))
    return rows


def answer_items(prediction: str | None, gold: str | None) -> tuple[list[tuple[str, bool]],
                                                                    list[str]]:
    """A final answer against the gold, for reading: each predicted item and whether the
    gold holds it, and the gold items it missed (compared lower-cased, as the authors' text
    scorer compares). An answer that is not a JSON list is one item."""
    def items(text: str | None) -> list[str]:
        if text is None:
            return []
        try:
            value = json.loads(text)
        except ValueError:
            return [text]
        if isinstance(value, list):
            return [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                    for v in value]
        return [value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)]

    predicted, golden = items(prediction), items(gold)
    gold_set = {g.lower() for g in golden}
    said = {p.lower() for p in predicted}
    return ([(p, p.lower() in gold_set) for p in predicted],
            [g for g in golden if g.lower() not in said])
