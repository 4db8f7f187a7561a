"""Two trajectories of one question, step by step: their tool calls aligned so that the
calls both made sit on one row and a call only one of them made faces a gap, and the first
row where they part marked (the explorer's /diff page).

Two calls are the same step when they call the same tool with the same arguments (JSON
arguments compared as parsed, so key order and spacing do not count). The alignment pairs a
longest common subsequence of the two step lists, so two runs that part and meet again line
up again, and the rows before the first difference are exactly their common start."""

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


# Past this many cells (steps of A x steps of B between their common start and end) the
# exact alignment would cost too much for a page; difflib's longest-block matching, close
# to it, is used instead.
EXACT_CELLS = 250_000


def _pairs(keys_a: list[tuple[str, str]], keys_b: list[tuple[str, str]]
           ) -> list[tuple[int, int]]:
    """Index pairs (i, j) of a longest common subsequence of the two key lists."""
    n, m = len(keys_a), len(keys_b)
    if n * m > EXACT_CELLS:
        matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
        return [(blk.a + k, blk.b + k) for blk in matcher.get_matching_blocks()
                for k in range(blk.size)]
    # longest[i][j]: length of an LCS of keys_a[i:] and keys_b[j:]
    longest = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = longest[i], longest[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = (below[j + 1] + 1 if keys_a[i] == keys_b[j]
                      else max(below[j], row[j + 1]))
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if keys_a[i] == keys_b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif longest[i + 1][j] >= longest[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def align_steps(a: list[Step], b: list[Step]) -> list[DiffRow]:
    """The steps of a and b on aligned rows (every step of each side, in its order): the
    common start and end of the two lists, and between them a longest common subsequence
    of calls, paired; the calls between two pairs face each other as changed while both
    sides have one, then face a gap."""
    keys_a, keys_b = [step_key(s) for s in a], [step_key(s) for s in b]
    start = 0
    while start < min(len(a), len(b)) and keys_a[start] == keys_b[start]:
        start += 1
    end = 0
    while (end < min(len(a), len(b)) - start
           and keys_a[len(a) - 1 - end] == keys_b[len(b) - 1 - end]):
        end += 1
    middle = _pairs(keys_a[start:len(a) - end], keys_b[start:len(b) - end])
    pairs = ([(k, k) for k in range(start)] + [(i + start, j + start) for i, j in middle]
             + [(len(a) - end + k, len(b) - end + k) for k in range(end)])
    rows: list[DiffRow] = []
    i = j = 0
    for pi, pj in [*pairs, (len(a), len(b))]:
        left, right = a[i:pi], b[j:pj]
        for k in range(max(len(left), len(right))):
            x = left[k] if k < len(left) else None
            y = right[k] if k < len(right) else None
            rows.append(DiffRow("changed" if x and y else "only_a" if x else "only_b", x, y))
        if pi < len(a) and pj < len(b):
            x, y = a[pi], b[pj]
            same = bool(x.get("is_error")) == bool(y.get("is_error"))
            rows.append(DiffRow("same" if same else "changed", x, y))
        i, j = pi + 1, pj + 1
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
