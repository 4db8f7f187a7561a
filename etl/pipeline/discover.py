"""Discover stage: walk a results tree and classify every path.

Symlinks are followed (also to directories outside the root, as the real tree does), each
real file is visited once, and both its logical path (relative to the root, through the
links) and its real path are recorded. Loops and dangling links become problems (later
`rejects` rows), never crashes. Unknown benchmarks, models and splits are data.

What is read stays inside the tree: nothing on a special file system (/proc, /sys, /dev:
`/proc/self/environ` is the ingest's own environment) is read or walked, and a file that is
not a record file is read only when it resolves inside the root or inside a directory the
tree links to (see `outside_the_tree`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from etl.benchmarks import FULL_SPLITS, SPLIT_SIZES
from etl.extract import FileInfo
from etl.extract.inspect_logs import INSPECT_LOG_KIND, is_inspect_log
from etl.models import canonical_model
from etl.pipeline.copies import COPY_RANK, RESULT_KINDS

RAW_DIR = "_multi_eval_raw"
ARCHIVE_DIR = "_archive"


_STEAL_FILE = re.compile(r"^results_steal_\d+\.jsonl$")
_STEAL_DIR = re.compile(r"^steal_\d+$")
_MCP_LOG = re.compile(r"^mcp_.*\.log$")
# Work-stealing helper runs of run_multi_model_eval.py try_steal_work: the helper's stdout
# goes to <region>/run_steal_NN.log (a run.log like any other; aggregate() counts its
# salvage / TOOL_NAME_FIX lines with run.log's) and its input rows to input_steal_NN.jsonl.
_RUN_STEAL_LOG = re.compile(r"^run_steal_\d+\.log$")
_INPUT_STEAL = re.compile(r"^input_steal_\d+\.jsonl$")
_SPLIT_SIZE = re.compile(r"(\d+)$")



@dataclass(slots=True)
class PathProblem:
    """A path that could not be visited (dangling link, loop, unreadable directory)."""

    path: str
    error: str
    severity: str = "error"  # "repaired" when the path was recorded after a lossless fix
    missing_target: str | None = None  # a symlink's target that does not exist


@dataclass(slots=True)
class RunInfo:
    run_id: str
    benchmark: str | None
    mode: str | None
    split: str | None
    model: str | None
    model_dir: str | None
    is_archived: bool
    archive_name: str | None
    path: str
    real_path: str
    expected_questions: int | None
    n_files: int = 0
    # a <benchmark>/<mode>/scored/<model> directory with no run of its own: its results were
    # made and scored outside this tree (runs.scored_elsewhere)
    scored_elsewhere: bool = False


@dataclass(slots=True)
class Discovery:
    root: Path
    files: list[FileInfo] = field(default_factory=list)
    runs: dict[str, RunInfo] = field(default_factory=dict)
    problems: list[PathProblem] = field(default_factory=list)


def file_id_for(logical_path: str) -> str:
    """Deterministic file id: the first 16 hex digits of sha256 of the logical path."""
    return hashlib.sha256(logical_path.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def expected_questions_for(split: str | None) -> int | None:
    if split is None:
        return None
    if split in SPLIT_SIZES:
        return SPLIT_SIZES[split]
    match = _SPLIT_SIZE.search(split)
    return int(match.group(1)) if match else None


def classify_kind(rel: list[str]) -> str:
    """Kind of a file from its path relative to its run directory (or to the root)."""
    name = rel[-1]
    parent = rel[-2] if len(rel) > 1 else None
    if name == "merged_unique.jsonl":
        return "results_merged"
    if name == "results.jsonl":
        if parent is None:
            return "results_top"
        if _STEAL_DIR.match(parent):
            return "results_steal_copy"
        return "results_shard"
    if _STEAL_FILE.match(name):
        return "results_steal"
    simple = {
        "input.jsonl": "input",
        "scored.jsonl": "scored",
        "rescored.jsonl": "rescored",
        "per_question.jsonl": "per_question",
        "summary.json": "summary",
        "summary_vocab.json": "summary_vocab",
        "scores.json": "scores_json",
        "manifest.json": "manifest",
        "status.json": "status",
        "region_map.json": "region_map",
        "cmd.txt": "cmd",
        "pid.txt": "pid",
        "run.log": "run_log",
    }
    if name in simple:
        return simple[name]
    if name in DERIVED_IN_RUN:
        return DERIVED_IN_RUN[name]
    if _RUN_STEAL_LOG.match(name):
        return "run_log"
    if _INPUT_STEAL.match(name):
        return "input"
    if _MCP_LOG.match(name):
        return "mcp_log"
    if name.endswith(".md"):
        return "markdown"
    if name.endswith(".txt") or name.endswith(".log"):
        return "text"
    return "other"


# Files the authors' analysis scripts write beside a run's results.jsonl: recognised as what
# they are, never read as results or as the text scorer's summaries.
DERIVED_IN_RUN = {
    # helper/analyze_tool_call_averages.py: tool-call averages (success-only by default)
    "tool.json": "tool_json",
    # helper/repair_diagnoses_ccs_results.py: a repaired copy of results.jsonl and its summary
    "results.repaired.jsonl": "repaired_results",
    "results.repaired.summary.json": "repair_summary",
    # helper/score_diagnoses_ccs_results.py --details-output: per-question aggregates (its
    # scores.json is a scores_json file of its own shape, etl/extract/summaries.py)
    "task_scores.jsonl": "ccs_task_scores",
    # helper/convert_results_jsonl_to_json.py: results.jsonl as one JSON array
    "results_with_answers.json": "converted_results",
}
# reorganize_results.py writes its hierarchy to <root>/hierarchical/ by default:
# <paradigm>/<bench>/<model>/L1.*/L2.*/L3.*/L4.*/{rows.jsonl,summary.json}, aggregate.json,
# summary.md per model, README.md at the top. Its numbers are reconciled against the paper
# views (sql/82_paper.sql); it is never a run.
HIERARCHICAL_DIR = "hierarchical"
HIERARCHICAL_KINDS = {"rows.jsonl": "hier_rows", "summary.json": "hier_summary",
                      "aggregate.json": "hier_aggregate"}
# The authors' multimodal task classifier output (analysis/mm_bench_classify/), which the
# paper's multimodal table is cut by; anywhere in the tree under a directory of that name.
CLASSIFIER_DIR = "mm_bench_classify"
_CLASSIFIER_FILE = re.compile(r"^classification_.*\.jsonl$")


def analysis_kind(parts: list[str]) -> str | None:
    """Kind of a file of the authors' analysis outputs that is no part of any run (the
    hierarchy of reorganize_results.py, the task classifier), else None."""
    if parts[0] == HIERARCHICAL_DIR and len(parts) > 1:
        return HIERARCHICAL_KINDS.get(parts[-1], classify_kind(parts[-1:]))
    if CLASSIFIER_DIR in parts[:-1] and _CLASSIFIER_FILE.match(parts[-1]):
        return "mm_classification"
    return None


@dataclass(slots=True)
class _Walked:
    """What the walk found: every regular file as (logical path, path to open, real path,
    (device, inode)), and the real directories the tree links to (followed links)."""

    files: list[tuple[str, Path, str, tuple[int, int]]] = field(default_factory=list)
    linked_dirs: list[str] = field(default_factory=list)


def _walk(root: Path, problems: list[PathProblem]) -> _Walked:
    """All regular files under root (see _Walked)."""
    walked = _Walked()
    special = SpecialFilesystems.of_this_machine()

    def visit(directory: Path, logical: str, ancestors: frozenset[tuple[int, int]]) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            problems.append(PathProblem(logical or ".", f"cannot list directory: {exc.strerror}"))
            return
        for entry in entries:
            name = _text(entry.name)
            child_logical = f"{logical}/{name}" if logical else name
            if name != entry.name:
                problems.append(PathProblem(
                    child_logical, "name is not valid UTF-8; recorded with U+FFFD",
                    "repaired"))
            child = directory / entry.name
            is_link = entry.is_symlink()
            through_special = False
            if is_link:
                try:
                    through_special = special.on_the_way(os.path.abspath(child))
                except OSError:  # a loop of links: stat says so below
                    pass
            try:
                st = child.stat()  # follows symlinks
            except FileNotFoundError:
                target = os.readlink(child) if is_link else "?"
                problems.append(PathProblem(child_logical, f"dangling symlink -> {target}",
                                            missing_target=target))
                continue
            except OSError as exc:
                problems.append(PathProblem(child_logical, f"cannot stat: {exc.strerror}"))
                continue
            if through_special or special.holds(st.st_dev):
                problems.append(special_filesystem_problem(child, child_logical, is_link))
                continue
            if stat.S_ISDIR(st.st_mode):
                key = (st.st_dev, st.st_ino)
                if is_link and _contains(os.path.realpath(child), root_real):
                    # A link to `/` or to any directory holding the root would walk the
                    # whole file system (and the root again): a loop, not data.
                    problems.append(PathProblem(
                        child_logical,
                        f"symlink loop: links to a directory that contains the root -> "
                        f"{os.readlink(child)}"))
                    continue
                skip = skipped_directory_reason(name, child)
                if skip is not None:
                    problems.append(PathProblem(child_logical, skip, "skipped"))
                    continue
                if key in ancestors:
                    problems.append(PathProblem(
                        child_logical, f"symlink loop -> {os.readlink(child)}"
                        if is_link else "directory loop"))
                    continue
                if is_link:
                    walked.linked_dirs.append(os.path.realpath(child))
                visit(child, child_logical, ancestors | {key})
            elif stat.S_ISREG(st.st_mode):
                # Keyed by the real path as the OS spells it: two names that only differ
                # in bytes that are not UTF-8 are two files.
                walked.files.append((child_logical, child, os.path.realpath(child),
                                     (st.st_dev, st.st_ino)))
            else:
                problems.append(special_file_problem(child_logical, st.st_mode))

    root_st = root.stat()
    root_real = os.path.realpath(root)
    if special.holds(root_st.st_dev) or special.on_the_way(os.path.abspath(root)):
        problems.append(special_filesystem_problem(root, ".", False))
        return walked
    visit(root, "", frozenset({(root_st.st_dev, root_st.st_ino)}))
    return walked


# ---- the tree's edge: special file systems, and links that leave the tree -----------------
# Pseudo file systems: the kernel's view of processes, devices and itself, never results.
# /proc/self/environ and /proc/self/cmdline are the ingest's own environment and command
# line (its redaction key); /dev/zero never ends. Matched by device: a mount of any of them
# anywhere (the mount table), and the three usual places when they are mount points.
SPECIAL_FS_TYPES = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "debugfs", "tracefs", "securityfs", "cgroup",
    "cgroup2", "pstore", "bpf", "configfs", "efivarfs", "mqueue", "hugetlbfs", "binfmt_misc",
    "nsfs", "selinuxfs", "rpc_pipefs", "fusectl"})
SPECIAL_DIRS = ("/proc", "/sys", "/dev")
_MOUNT_TABLES = ("/proc/self/mounts", "/proc/mounts", "/etc/mtab")
_MAX_LINK_HOPS = 40  # as the kernel's ELOOP limit


@dataclass(frozen=True, slots=True)
class SpecialFilesystems:
    """The devices of this machine's special file systems."""

    devices: frozenset[int]

    @classmethod
    def of_this_machine(cls) -> SpecialFilesystems:
        root_dev = _device_of("/")
        # The usual places, when they are mount points (a plain /dev directory on the root
        # file system is not a file system of its own).
        devices = {_device_of(d) for d in SPECIAL_DIRS}
        for table in _MOUNT_TABLES:
            try:
                with open(table, encoding="utf-8", errors="replace") as fh:
                    lines = fh.read().splitlines()
            except OSError:
                continue
            for line in lines:
                fields = line.split()
                if len(fields) >= 3 and fields[2] in SPECIAL_FS_TYPES:
                    devices.add(_device_of(_unescape_mount_point(fields[1])))
            break
        # Never the root file system, whatever a mount table says.
        return cls(frozenset(d for d in devices if d is not None and d != root_dev))

    def holds(self, device: int) -> bool:
        return device in self.devices

    def on_the_way(self, path: str) -> bool:
        """Whether resolving path (absolute) follows a link that lives on a special file
        system: /proc/self/cwd ends in an ordinary directory, but by way of a link of
        /proc (so do /dev/fd and /dev/stdin). A plain directory of one on the way is no
        matter (/dev/shm is a file system of its own); where the path ends is the caller's
        to check. Raises OSError for a loop of links."""
        parts = deque(path.split("/"))
        resolved, hops = "/", 0
        while parts:
            name = parts.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                resolved = os.path.dirname(resolved)
                continue
            candidate = os.path.join(resolved, name)
            try:
                st = os.lstat(candidate)
            except OSError:
                return False  # missing: nothing there to read
            if stat.S_ISLNK(st.st_mode):
                if st.st_dev in self.devices:
                    return True
                hops += 1
                if hops > _MAX_LINK_HOPS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
                target = os.readlink(candidate)
                if target.startswith("/"):
                    resolved = "/"
                parts.extendleft(reversed(target.split("/")))
                continue
            resolved = candidate
        return False


def _device_of(path: str) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None


def _unescape_mount_point(text: str) -> str:
    """A mount point as the mount table writes it: space, tab, newline and backslash as
    octal escapes (\\040)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def _contains_any(directories: tuple[str, ...] | list[str], path: str) -> bool:
    return any(_contains(d, path) for d in directories)


def special_filesystem_problem(path: Path, logical: str, is_link: bool) -> PathProblem:
    link = f" (symlink -> {_readlink(path)})" if is_link else ""
    return PathProblem(logical, f"on a special file system (/proc, /sys, /dev){link}: "
                                "not read, not walked")


def _readlink(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


# Files a tree may link in from anywhere: the writer's own staging of external runs
# (analysis/ingest_external_results.py) symlinks their results.jsonl and scored.jsonl into
# the tree (and Inspect AI logs, of RESULT_KINDS, are records too). They are read as
# records; no excerpt of their damaged lines is kept (FileInfo.outside). Any other file is
# read only inside the tree.
OUTSIDE_LINK_KINDS = RESULT_KINDS | {"scored", "rescored", "per_question"}


def outside_the_tree(real: str, allowed: list[str]) -> bool:
    """Whether a file's real path lies outside the root and outside every directory the tree
    links to (allowed: their real paths)."""
    return not _contains_any(allowed, real)


def outside_tree_problem(info: FileInfo) -> PathProblem:
    link = _readlink(info.abs_path) if info.abs_path.is_symlink() else "a linked directory"
    return PathProblem(
        info.path, f"leaves the tree: a {info.kind} file is read only inside the tree or "
        f"a directory it links to, and this one resolves to {info.real_path} "
        f"(-> {link}); not read")


def _text(name: str) -> str:
    """File names are bytes on Linux; a name that is not UTF-8 arrives with surrogate
    escapes, which cannot be stored as text. Keep it readable with U+FFFD instead."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _contains(directory: str, path: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _logical_preference(logical: str) -> tuple[int, int, str]:
    # The same real file is reachable through the model symlink and through the raw
    # _multi_eval_raw directory; the link path is the run's logical identity.
    return (1 if f"/{RAW_DIR}/" in f"/{logical}" else 0, len(logical), logical)


def discover(root: str | Path) -> Discovery:
    """Walk the tree under root and classify every file into kind and run."""
    root = Path(root)
    result = Discovery(root=root)
    by_real: dict[str, list[tuple[str, Path, str, tuple[int, int]]]] = {}
    walked = _walk(root, result.problems)
    allowed = [os.path.realpath(root), *walked.linked_dirs]
    nested_archives = archives_of_model_directories([item[0] for item in walked.files])
    for item in walked.files:
        by_real.setdefault(item[2], []).append(item)
    chosen = sorted((item for items in by_real.values()
                     for item in logical_copies(items, nested_archives)),
                    key=lambda it: it[0])

    pending_scored: list[tuple[FileInfo, tuple[str, str, str]]] = []
    seen_logical: set[str] = set()
    for logical, abs_path, real, identity in chosen:
        if logical in seen_logical:
            result.problems.append(PathProblem(
                logical, "another file has this name once bytes that are not UTF-8 are "
                "replaced with U+FFFD; this one is not loaded (rename it)"))
            continue
        seen_logical.add(logical)
        outside = outside_the_tree(real, allowed)
        real = _text(real)
        parts = logical.split("/")
        info = FileInfo(file_id=file_id_for(logical), path=logical, abs_path=abs_path,
                        real_path=real, kind="other", identity=identity)
        try:
            st = abs_path.stat()
        except OSError as exc:  # gone since the walk
            result.problems.append(PathProblem(logical, f"cannot stat: {exc.strerror}"))
            continue
        info.size_bytes, info.mtime_ns = st.st_size, st.st_mtime_ns
        derived = analysis_kind(parts)
        if derived is None and _inspect_log(parts, abs_path):
            _inspect_run(info, real, result)  # a run of its own, at any depth
            info.outside = outside  # a record file: read from anywhere, never quoted
            result.files.append(info)
            continue
        run_rel = None if derived else _classify(info, parts, result, nested_archives)
        if derived:
            info.kind = derived
        elif run_rel is not None:
            info.kind = classify_kind(run_rel)
        else:
            info.kind = classify_kind(parts[-1:])
        if info.kind == "summary" and _is_multi_run_summary(parts):
            info.kind = "multi_summary"
        info.copy_rank = COPY_RANK.get(info.kind)
        if outside:
            if info.kind not in OUTSIDE_LINK_KINDS:
                result.problems.append(outside_tree_problem(info))
                continue
            info.outside = True
        if info.run_id is None and len(parts) >= 5 and parts[2] == "scored":
            pending_scored.append((info, (parts[0], parts[1], parts[3])))
        result.files.append(info)

    _attach_scored(pending_scored, result)
    for info in result.files:
        if info.run_id is None and info.kind in OUTSIDE_RUN_KINDS:
            result.problems.append(outside_run_problem(info))
            info.kind = OUTSIDE_RUN_KIND
            info.copy_rank = None
    for info in result.files:
        if info.run_id in result.runs:
            result.runs[info.run_id].n_files += 1
    return result


def _inspect_log(parts: list[str], abs_path: Path) -> bool:
    """An Inspect AI log: a file no name rule of the ClinSeek tree claims (a summary.json
    stays a summary) that Inspect's own rule takes for a log (etl/extract/inspect_logs.py)."""
    return classify_kind(parts[-1:]) == "other" and is_inspect_log(parts[-1], abs_path)


def _inspect_run(info: FileInfo, real: str, disc: Discovery) -> None:
    """An Inspect log is one run: its id is the log's logical path. The keys inside it
    (benchmark, mode, split, model) are read when it is parsed and given to the run at load
    (sql/load/inspect_runs.sql)."""
    info.kind, info.copy_rank = INSPECT_LOG_KIND, COPY_RANK[INSPECT_LOG_KIND]
    disc.runs[info.path] = RunInfo(
        run_id=info.path, benchmark=None, mode=None, split=None, model=None, model_dir=None,
        is_archived=False, archive_name=None, path=info.path, real_path=real,
        expected_questions=None)
    info.run_id = info.path


def holds_inspect_logs(root: Path, max_dirs: int = 2000) -> bool:
    """True when an Inspect AI log lies under root, at any depth (hidden directories and
    virtual environments left out, at most max_dirs directories listed): a directory of
    Inspect logs is a results root too."""
    pending, listed = [root], 0
    while pending and listed < max_dirs:
        directory = pending.pop()
        listed += 1
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir():
                    if skipped_directory_reason(entry.name, Path(entry.path)) is None:
                        pending.append(Path(entry.path))
                elif entry.is_file() and _inspect_log([entry.name], Path(entry.path)):
                    return True
            except OSError:
                continue
    return False


# ---- run identity: which run a logical path belongs to ------------------------------------
# Result, score and summary kinds only mean something inside a run: found outside any run
# (say a results.jsonl directly in a split directory), they are rejects, never rows without
# a run. Run metadata (manifest, status, run.log) may sit at the level of a raw multi-model
# run and is loaded with source_dir instead (see run_meta.run_id).
OUTSIDE_RUN_KINDS = RESULT_KINDS | {"scored", "rescored", "per_question", "summary",
                                    "summary_vocab", "scores_json"}
OUTSIDE_RUN_KIND = "outside_run"  # the kind such a file is listed under in `files`
# Region shard directories (us-east-1) and work-stealing copies (steal_00) are parts of one
# run, never model directories.
_REGION_DIR = re.compile(r"^[a-z]{2}(?:-[a-z]+)+-\d+$")  # us-east-1, us-gov-west-1


def outside_run_problem(info: FileInfo) -> PathProblem:
    return PathProblem(
        info.path, f"file outside any run: a {info.kind} file must be inside a run directory "
        f"<benchmark>/<mode>/<split>/<model>/ or _archive/<name>/; not loaded")


def _is_result_file(name: str) -> bool:
    return classify_kind([name]) in RESULT_KINDS or name == "merged_unique.jsonl"


def archives_of_model_directories(logicals: list[str]) -> set[str]:
    """Names of the archives `_archive/<name>/` that hold several runs: no result file of
    their own, but subdirectories (not region shards or steal copies) that hold result
    files. Each such subdirectory is a run `_archive/<name>/<model>`; an archive with result
    files at its top is one run `_archive/<name>` (its subdirectories are shards)."""
    one_run: set[str] = set()
    nested: set[str] = set()
    for logical in logicals:
        parts = logical.split("/")
        if parts[0] != ARCHIVE_DIR or len(parts) < 3 or not _is_result_file(parts[-1]):
            continue
        if len(parts) == 3:
            one_run.add(parts[1])
        elif not (_REGION_DIR.match(parts[2]) or _STEAL_DIR.match(parts[2])):
            nested.add(parts[1])
    return nested - one_run


def run_dir_of(parts: list[str], nested_archives: frozenset[str] | set[str]
               ) -> tuple[str, int] | None:
    """(run directory, number of path parts it spans) of a logical path, or None for a file
    outside any run. scored/<model> directories count as their own directory here (they are
    attached to their full-split run afterwards)."""
    if parts[0] == ARCHIVE_DIR:
        if len(parts) < 3:
            return None
        if parts[1] in nested_archives:
            return ("/".join(parts[:3]), 3) if len(parts) >= 4 else None
        return "/".join(parts[:2]), 2
    if len(parts) < 5:
        return None
    if parts[3] == RAW_DIR and parts[2] != "scored":
        if len(parts) < 7 or parts[5] == "scored_vocab":
            return None
        return "/".join(parts[:6]), 6
    return "/".join(parts[:4]), 4


def logical_copies(items: list[tuple[str, Path, str, tuple[int, int]]],
                   nested_archives: set[str]) -> list[tuple[str, Path, str, tuple[int, int]]]:
    """The logical paths under which one real file is loaded: one per run it belongs to.

    A raw `_multi_eval_raw` path is an alias of the model link that points into it and is
    used only when no other path reaches the file. Two run directories linking to one real
    directory are two runs, each with its rows (the file is parsed once per run)."""
    outside_raw = [it for it in items if f"/{RAW_DIR}/" not in f"/{it[0]}"]
    by_run: dict[str | None, tuple[str, Path, str, tuple[int, int]]] = {}
    for item in sorted(outside_raw or items, key=lambda it: _logical_preference(it[0])):
        run = run_dir_of(item[0].split("/"), nested_archives)
        by_run.setdefault(run[0] if run else None, item)
    return list(by_run.values())


def skipped_directory_reason(name: str, path: Path) -> str | None:
    """Why a directory is not walked, or None. Hidden directories (.git, .venv, .cache) and
    Python virtual environments hold no results; walking them from a root one level too
    high would make runs out of their files."""
    if name.startswith("."):
        return "hidden directory: not walked (results never live in one)"
    try:
        is_venv = (path / "pyvenv.cfg").is_file()
    except OSError:  # an unreadable directory: the walk itself reports it as a reject
        return None
    if is_venv:
        return "Python virtual environment (pyvenv.cfg): not walked"
    return None


def special_file_problem(logical: str, mode: int) -> PathProblem:
    """A reject for a path that is neither a regular file nor a directory. It is never
    opened: reading a FIFO blocks until someone writes to it."""
    what = ("FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
            else "character device" if stat.S_ISCHR(mode)
            else "block device" if stat.S_ISBLK(mode) else "special file")
    return PathProblem(logical, f"{what}, not a regular file: not opened, not loaded")


EXPECTED_TOP = ("ehr_bench", "agent_ehr_bench", "mm_bench", ARCHIVE_DIR)
MODE_DIRS = ("agentic", "oneshot")
EXPECTED_LAYOUT = "<benchmark>/{agentic|oneshot}/<split>/<model>/results.jsonl"
# How far below a wrong root the layout is looked for, and how many directories at most are
# listed doing it (a root such as $HOME must not cost a walk of the disk).
_LAYOUT_SEARCH_DEPTH, _LAYOUT_SEARCH_DIRS = 3, 2000


def _subdirectories(directory: Path) -> list[Path]:
    """The directories in directory (through links) that a walk would enter, sorted."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        try:
            if not entry.is_dir():
                continue
        except OSError:
            continue
        if skipped_directory_reason(entry.name, Path(entry.path)) is None:
            found.append(Path(entry.path))
    return found


def is_benchmark_directory(path: Path) -> bool:
    """A directory the walk reads as a benchmark: a known benchmark (or the archive) by name,
    or any directory holding a mode directory (unknown benchmarks are data)."""
    if path.name in EXPECTED_TOP:
        return True
    return any((path / mode).is_dir() for mode in MODE_DIRS)


def is_results_root(root: Path) -> bool | None:
    """True when root holds a benchmark directory, False when it holds something but no
    benchmark directory (a directory one level too high, a repository), None when it holds
    nothing at all (nothing could be misread; the ingest says there are no results)."""
    try:
        if not any(True for _ in os.scandir(root)):
            return None
    except OSError:
        return None
    return any(is_benchmark_directory(d) for d in _subdirectories(root))


def results_roots_below(root: Path) -> list[Path]:
    """The directories nearest below root that are results roots (all at the same depth,
    at most _LAYOUT_SEARCH_DEPTH down, hidden directories and virtual environments left
    out): what a user who named root probably meant."""
    level, listed = [root], 0
    for _ in range(_LAYOUT_SEARCH_DEPTH):
        below: list[Path] = []
        for directory in level:
            listed += 1
            if listed > _LAYOUT_SEARCH_DIRS:
                return []
            below.extend(_subdirectories(directory))
        found = [d for d in below if is_results_root(d)]
        if found:
            return found
        level = below
    return []


def runs_under(logical: str) -> str:
    """In words, the runs a directory (or file) at this logical path holds or belongs to:
    what a missing symlink target there costs."""
    parts = logical.split("/")
    if parts[0] == ARCHIVE_DIR:
        if len(parts) == 1:
            return "every archived run"
        return f"the archived run {ARCHIVE_DIR}/{parts[1]}"
    benchmark = parts[0]
    if len(parts) == 1:
        return f"every run of benchmark {benchmark}"
    if len(parts) == 2:
        return f"every {benchmark} {parts[1]} run"
    if len(parts) == 3:
        return f"every {benchmark} {parts[1]} run of split {parts[2]}"
    run = run_dir_of(parts, set())
    run_id = run[0] if run else "/".join(parts[:4])
    return f"the run {run_id}" if len(parts) == 4 else f"a file of the run {run_id}"


def _is_multi_run_summary(parts: list[str]) -> bool:
    # <...>/_multi_eval_raw/full5_<stamp>/summary.json: row counts per shard, not scores.
    return len(parts) >= 3 and parts[-3] == RAW_DIR


def _classify(info: FileInfo, parts: list[str], disc: Discovery,
              nested_archives: frozenset[str] | set[str] = frozenset()) -> list[str] | None:
    """Fill the run fields of info from its logical path; return the path relative to the
    run directory (None when the file belongs to no run)."""
    if parts[0] == ARCHIVE_DIR:
        run_dir = run_dir_of(parts, nested_archives)
        if run_dir is None:
            return None
        run_id, depth = run_dir
        if run_id not in disc.runs:
            disc.runs[run_id] = _archive_run(run_id, parts[1], disc.root,
                                             parts[2] if depth == 3 else None)
        _copy_run_fields(info, disc.runs[run_id])
        return parts[depth:]
    if len(parts) < 5:
        return None
    benchmark, mode, split, model_dir = parts[0], parts[1], parts[2], parts[3]
    if split == "scored":
        return parts[4:]  # attached to the full-split run afterwards
    if model_dir == RAW_DIR:
        # A raw multi-model run reached directly, not through a model symlink.
        if len(parts) < 7:
            return None
        if parts[5] == "scored_vocab":
            return None
        model_dir = parts[5]
        run_path = "/".join(parts[:6])
        rel = parts[6:]
    else:
        run_path = "/".join(parts[:4])
        rel = parts[4:]
    if run_path not in disc.runs:
        disc.runs[run_path] = RunInfo(
            run_id=run_path, benchmark=benchmark, mode=mode, split=split,
            model=canonical_model(model_dir), model_dir=model_dir, is_archived=False,
            archive_name=None, path=run_path,
            real_path=os.path.realpath(disc.root / run_path),
            expected_questions=expected_questions_for(split))
    _copy_run_fields(info, disc.runs[run_path])
    return rel


def _archive_run(run_id: str, name: str, root: Path, model_dir: str | None = None
                 ) -> RunInfo:
    """An archived run; model_dir is the model directory of an archive holding several
    runs (its name gives the model, the archive name the rest)."""
    from etl.archive import parse_archive_name  # the archive name rules live there

    parsed = parse_archive_name(name)
    fields: dict[str, object] = {
        k: getattr(parsed, k, None) for k in ("benchmark", "mode", "split", "model")}
    if model_dir is not None:
        fields["model"] = canonical_model(model_dir)
    size = getattr(parsed, "size", None)
    fields["expected"] = size if isinstance(size, int) else expected_questions_for(
        fields.get("split"))  # type: ignore[arg-type]
    return RunInfo(
        run_id=run_id, benchmark=fields.get("benchmark"), mode=fields.get("mode"),
        split=fields.get("split"), model=fields.get("model"), model_dir=model_dir,
        is_archived=True, archive_name=name, path=run_id,
        real_path=os.path.realpath(root / run_id),
        expected_questions=fields.get("expected"))  # type: ignore[arg-type]


def _copy_run_fields(info: FileInfo, run: RunInfo) -> None:
    info.run_id = run.run_id
    info.benchmark, info.mode, info.split, info.model = (
        run.benchmark, run.mode, run.split, run.model)
    info.is_archived, info.archive_name = run.is_archived, run.archive_name


def _attach_scored(pending: list[tuple[FileInfo, tuple[str, str, str]]],
                   disc: Discovery) -> None:
    """scored/<model> directories hold scores for the full-split run of the same benchmark,
    mode and model; with no such run, the scored directory is a run of its own."""
    full_runs: dict[tuple[str | None, str | None, str | None], RunInfo] = {}
    for run in sorted(disc.runs.values(), key=lambda r: r.run_id):
        if not run.is_archived and run.split and run.split.startswith("full"):
            full_runs.setdefault((run.benchmark, run.mode, run.model), run)
    full_splits: dict[str | None, str] = {}
    for run in sorted(disc.runs.values(), key=lambda r: r.run_id):
        if not run.is_archived and run.split and run.split.startswith("full"):
            full_splits.setdefault(run.benchmark, run.split)
    for info, (benchmark, mode, model_dir) in pending:
        model = canonical_model(model_dir)
        run = full_runs.get((benchmark, mode, model))
        if run is None:
            # A scored-only run (analysis/ingest_external_results.py stages external models
            # as scored.jsonl + summary.json): its results were made and scored elsewhere.
            # It keeps its logical path; its split is the benchmark's full split, so the
            # boards show it (marked: runs.scored_elsewhere, read by sql/08).
            # (else the benchmark's known full split, for a tree without another run of it)
            known = FULL_SPLITS.get(benchmark)
            split = full_splits.get(benchmark) or (known[0] if known else "scored")
            run_path = f"{benchmark}/{mode}/scored/{model_dir}"
            run = disc.runs.setdefault(run_path, RunInfo(
                run_id=run_path, benchmark=benchmark, mode=mode, split=split,
                model=model, model_dir=model_dir, is_archived=False, archive_name=None,
                path=run_path, real_path=os.path.realpath(disc.root / run_path),
                expected_questions=expected_questions_for(split), scored_elsewhere=True))
        _copy_run_fields(info, run)
