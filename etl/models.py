"""Model names: canonical keys, display names and every alias that resolves to them.

New models appear over time: a name that matches nothing is data, not an error, and becomes
its own canonical key (normalized to snake_case)."""

from __future__ import annotations

import re

DISPLAY_NAMES: dict[str, str] = {
    "claude_opus_4_6": "Claude Opus 4.6",
    "claude_sonnet_4_6": "Claude Sonnet 4.6",
    "qwen3_vl_235b": "Qwen3-VL-235B",
    "qwen3_235b": "Qwen3-235B",
    "kimi_k2_5": "Kimi K2.5",
    "glm_4_7": "GLM-4.7",
    "minimax_m2_5": "MiniMax M2.5",
    "gpt_oss_120b": "gpt-oss-120b",
}

# Short names used in archive directory names and backend ids seen in records.
EXTRA_ALIASES: dict[str, str] = {
    "opus46": "claude_opus_4_6",
    "opus": "claude_opus_4_6",
    "opus_4_6": "claude_opus_4_6",
    "sonnet46": "claude_sonnet_4_6",
    "sonnet": "claude_sonnet_4_6",
    "sonnet_4_6": "claude_sonnet_4_6",
    "qwen3vl": "qwen3_vl_235b",
    "qwen3_vl": "qwen3_vl_235b",
    "qwen3": "qwen3_235b",
    "kimi": "kimi_k2_5",
    "kimi25": "kimi_k2_5",
    "kimi_k2.5": "kimi_k2_5",
    "glm47": "glm_4_7",
    "glm": "glm_4_7",
    "minimax": "minimax_m2_5",
    "minimax25": "minimax_m2_5",
    "gptoss": "gpt_oss_120b",
    "gpt_oss": "gpt_oss_120b",
    "gptoss120b": "gpt_oss_120b",
    # Bedrock model ids, without the cross-region inference prefix (us., eu., global.,
    # apac.) and version suffix (-v1, -v1:0, -1:0) that BEDROCK_ID_DECORATION strips: the
    # ids of clinseekagent/bedrock_region_availability.json (the catalog
    # run_multi_model_eval.py load_catalog / regions_for reads) and
    # deploy_agent.py DEFAULT_BEDROCK_MODEL_ID / BEDROCK_MODEL_ALIASES.
    "anthropic.claude-opus-4-6": "claude_opus_4_6",
    "anthropic.claude-sonnet-4-6": "claude_sonnet_4_6",
    "moonshotai.kimi-k2.5": "kimi_k2_5",
    "qwen.qwen3-vl-235b-a22b": "qwen3_vl_235b",
    "qwen.qwen3-235b-a22b-2507": "qwen3_235b",
    "qwen.qwen3-235b-a22b": "qwen3_235b",
    "zai.glm-4.7": "glm_4_7",
    "minimax.minimax-m2.5": "minimax_m2_5",
    "openai.gpt-oss-120b": "gpt_oss_120b",
    # the catalog's friendly names, as manifest.json / status.json carry them
    "qwen3-vl-235b": "qwen3_vl_235b",
    "qwen3-235b": "qwen3_235b",
}


# What a Bedrock id adds around the model name: a cross-region inference profile prefix
# (us., eu., apac., global., jp., au., ca., us-gov.) and a version suffix (-v1, -v1:0, -1:0,
# :0). The catalog writes us.anthropic.claude-opus-4-6-v1 and openai.gpt-oss-120b-1:0.
BEDROCK_PREFIX = re.compile(r"^(?:us|eu|apac|global|jp|au|ca|us-gov)\.(?=[a-z0-9-]+\.)")
BEDROCK_SUFFIX = re.compile(r"(?:-v\d+(?::\d+)?|-\d+:\d+|:\d+)$")


# Spellings listed in model_aliases for every known Bedrock id (canonical_model resolves any
# other decoration too).
BEDROCK_ID_PREFIXES = ("", "us.", "eu.", "apac.", "global.")
BEDROCK_ID_SUFFIXES = ("", "-v1", "-v1:0", "-1:0")


def bedrock_base_id(name: str) -> str:
    """'us.anthropic.claude-opus-4-6-v1' -> 'anthropic.claude-opus-4-6'; other names as is."""
    return BEDROCK_SUFFIX.sub("", BEDROCK_PREFIX.sub("", name))


def snake_key(name: str) -> str:
    """'claude-sonnet-4-6' -> 'claude_sonnet_4_6'; 'Kimi K2.5' -> 'kimi_k2_5'."""
    key = re.sub(r"[^0-9a-z]+", "_", name.strip().lower()).strip("_")
    return key or name


def alias_table() -> dict[str, str]:
    """Every known alias (lower-case) -> canonical key, canonical keys included."""
    table: dict[str, str] = {}
    for model, display in DISPLAY_NAMES.items():
        table[model] = model
        table[model.replace("_", "-")] = model
        table[display.lower()] = model
    for alias, model in EXTRA_ALIASES.items():
        table[alias.lower()] = model
        if "." in alias:  # a Bedrock id: the spellings the catalog and records use
            for prefix in BEDROCK_ID_PREFIXES:
                for suffix in BEDROCK_ID_SUFFIXES:
                    table.setdefault(f"{prefix}{alias}{suffix}".lower(), model)
    return table


_ALIASES = alias_table()


def canonical_model(name: str | None) -> str | None:
    """Resolve a directory name, slug, backend id or alias to a canonical model key.
    Unknown names are kept as their snake_case form (data, not an error)."""
    if name is None:
        return None
    low = name.strip().lower()
    if low in _ALIASES:
        return _ALIASES[low]
    base = bedrock_base_id(low)
    if base in _ALIASES:
        return _ALIASES[base]
    # an unknown model: its us. / eu. / -v1:0 spellings still make one key
    key = snake_key(base)
    return _ALIASES.get(key, key)


def display_name(model: str) -> str:
    return DISPLAY_NAMES.get(model, model)
