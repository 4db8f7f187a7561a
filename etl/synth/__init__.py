"""Synthetic ClinSeek results trees in the exact real formats (docs/SYNTH.md).

`generate(out, scale=..., seed=..., damage=...)` writes the tree, the directory its
agent_ehr_bench symlink points to (OUT.external) and what was planted (OUT.truth.json)."""

from etl.synth.generate import SynthError, generate

__all__ = ["SynthError", "generate"]
