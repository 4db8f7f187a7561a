"""A small copy of a demo tree for crawling every link of the explorer: the same runs,
archives, symlinks, damage and scored-only run, each JSON Lines file cut to its first few
lines and its damaged ones, and one tool result made longer than a page of the trajectory
viewer (so that its /message pages exist). Ingested with --keep-images, its trajectories
link their images."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

LONG_RESULT_CHARS = 23_456  # more than two pages of /message (10,000 characters each)


def _damaged(line: bytes) -> bool:
    try:
        return not isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return bool(line.strip())


def _cut(path: Path, lines: int) -> None:
    """Keep the first `lines` lines of a JSON Lines file, and every damaged line after them
    (the rejects and repairs of the demo tree stay)."""
    data = path.read_bytes().split(b"\n")
    kept = [line for i, line in enumerate(data) if line and (i < lines or _damaged(line))]
    path.write_bytes(b"".join(line + b"\n" for line in kept))


def _lengthen_one_tool_result(root: Path) -> str:
    """Make the first tool message of the first agentic EHR-Bench record long; its qid."""
    for path in sorted((root / "ehr_bench" / "agentic").glob("full1800/*/results.jsonl")):
        lines = path.read_bytes().split(b"\n")
        for i, line in enumerate(lines):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            tools = [m for m in record.get("messages") or [] if m.get("role") == "tool"]
            if tools and isinstance(tools[0].get("content"), str):
                tools[0]["content"] = ("lab value 4.2 mg/dL; " * LONG_RESULT_CHARS)[
                    :LONG_RESULT_CHARS]
                lines[i] = orjson.dumps(record)
                path.write_bytes(b"\n".join(lines))
                return str(record["qid"])
    raise AssertionError("no agentic EHR-Bench record with a tool result to lengthen")


def small_demo_tree(demo_root: Path, out_parent: Path, lines: int = 3) -> Path:
    """Copy demo_root (and its sibling <name>.external, the target of its subset600 link)
    under out_parent with every *.jsonl cut to `lines` lines; the new root."""
    root = out_parent / demo_root.name
    shutil.copytree(demo_root, root, symlinks=True)
    external = demo_root.parent / f"{demo_root.name}.external"
    if external.exists():
        shutil.copytree(external, out_parent / external.name, symlinks=True)
    for path in [*root.rglob("*.jsonl"), *(out_parent.rglob(f"{external.name}/**/*.jsonl"))]:
        if path.is_file() and not path.is_symlink():
            _cut(path, lines)
    _lengthen_one_tool_result(root)
    return root
