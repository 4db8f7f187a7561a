"""A digest of everything `etl synth` writes: every path of the tree and of its .external
sibling, every file's bytes and every link's target, and the truth file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for base in (root, Path(f"{root}.external")):
        for dirpath, dirs, names in sorted(os.walk(base)):
            dirs.sort()
            for n in sorted(names + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]):
                p = Path(dirpath, n)
                h.update(str(p.relative_to(base)).encode())
                h.update(os.readlink(p).encode() if p.is_symlink() else p.read_bytes())
    h.update(Path(f"{root}.truth.json").read_bytes())
    return h.hexdigest()
