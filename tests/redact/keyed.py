"""The keyed hash of docs/SAFETY.md, written from the documentation (never taken from the code
under test), for the redaction tests' oracles."""

from __future__ import annotations

import hashlib


def keyed_id(key: str, kind: str, value: str) -> int:
    """The documented hash (docs/SAFETY.md): the first 15 hex digits of
    sha256("<key>:<kind>:<id>") as an integer. Written here from the documentation, not
    taken from the code under test."""
    return int(hashlib.sha256(f"{key}:{kind}:{value}".encode()).hexdigest()[:15], 16)
