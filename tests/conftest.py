"""Fixtures every folder shares: the synthetic demo tree (seed 7, every kind of damage
planted) and its warehouse. Tests assert against the generator's truth file.

Built once, read by many (docs/DEVELOPMENT.md, "Writing tests"): a generated tree and a
warehouse are built once per test run, by whichever xdist worker asks first, in a directory
the workers share (a lock file makes the others wait for it), and never changed afterwards.
Each worker reads its own copy of a warehouse file (DuckDB lets one process write a file, or
many read it, not both at once). A test that changes a tree or a warehouse works on a copy
(`copy_warehouse`, or a tree of its own under tmp_path); one that changes the shared ones
fails the run at the end of the session, naming what changed.

Fixtures only one folder uses live in that folder's conftest.py."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.budgets import load_profile

SEED = 7

load_profile()


def run_etl(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    """Run the etl command line as a user would, in a child process."""
    proc = subprocess.run([sys.executable, "-m", "etl.cli", *args], capture_output=True,
                          text=True, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"etl {' '.join(args)} failed ({proc.returncode}):\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc


def make_tree(out: Path, *extra: str, seed: int = SEED, scale: str = "demo") -> dict:
    """Generate a tree of one's own at out (`etl synth`, in a child process); its truth."""
    run_etl("synth", str(out), "--scale", scale, "--seed", str(seed), *extra)
    return json.loads(Path(f"{out}.truth.json").read_text())


# -- built once per run, shared by the workers ----------------------------------------------

def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every worker of this test run sees: the parent of the workers' base
    temporary directories under xdist (<basetemp>/popen-gw0, ...), the base directory itself
    without it. Never the parent of a run's own base directory: that is every run's."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    shared = root / "shared"
    shared.mkdir(exist_ok=True)
    return shared


def build_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], None]) -> Path:
    """The directory shared/<name>, filled by build(directory) once per test run: the first
    worker to ask builds it while holding <name>.lock, the others wait for the lock and find
    it done. A build that failed is tried again by the next one to ask."""
    shared = shared_dir(tmp_path_factory)
    target, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            build(target)
            done.touch()
    return target


def synth_tree(tmp_path_factory: pytest.TempPathFactory, *, seed: int = SEED,
               scale: str = "demo", damage: bool = False, shape: str = "default"
               ) -> tuple[Path, dict]:
    """(root, truth) of `etl synth` with these options, generated once per test run and
    shared by every test that asks for the same (scale, seed, damage, shape). Read-only:
    copy it (shutil.copytree(..., symlinks=True) with its .external sibling) to change it."""
    name = f"tree-{scale}-seed{seed}-{shape}{'-damaged' if damage else ''}"
    extra = [*(["--damage"] if damage else []), "--shape", shape]
    home = build_once(tmp_path_factory, name,
                      lambda d: make_tree(d / "tree", *extra, seed=seed, scale=scale))
    root = home / "tree"
    return root, json.loads(Path(f"{root}.truth.json").read_text())


def copy_warehouse(db: Path, directory: Path) -> Path:
    """A private copy of a warehouse file in directory, to change or to hold open for
    writing (the shared ones are read-only)."""
    directory.mkdir(parents=True, exist_ok=True)
    copy = directory / db.name
    shutil.copyfile(db, copy)
    return copy


def worker_copy(tmp_path_factory: pytest.TempPathFactory, built: Path) -> Path:
    """This worker's own copy of a warehouse file built once for the run."""
    return copy_warehouse(built, tmp_path_factory.mktemp(built.parent.name))


def tree_signature(root: Path) -> str:
    """What a change to a tree would change: every path under it (links not followed), its
    size and its modification time."""
    digest = hashlib.sha256()
    for top in (root, Path(f"{root}.external")):
        for dirpath, dirs, names in os.walk(top):
            dirs.sort()
            for name in sorted(names + [d for d in dirs if os.path.islink(
                    os.path.join(dirpath, d))]):
                st = os.lstat(os.path.join(dirpath, name))
                digest.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def file_signature(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unchanged(what: str, before: str, now: str) -> None:
    """Fail the session's teardown when a test changed a shared tree or warehouse."""
    if before != now:
        pytest.fail(f"a test changed the shared {what}; tests that change a tree or a "
                    f"warehouse must work on a copy (tests/conftest.py copy_warehouse)",
                    pytrace=False)


@pytest.fixture(scope="session")
def demo_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict]]:
    """(root, truth) of a demo-scale tree with every kind of damage planted (read-only)."""
    root, truth = synth_tree(tmp_path_factory, damage=True)
    before = tree_signature(root)
    yield root, truth
    unchanged(f"demo tree {root}", before, tree_signature(root))


@pytest.fixture(scope="session")
def demo_db(demo_tree: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[Path]:
    """The demo tree ingested into a warehouse file, this worker's copy of the one built
    for the run (do not modify it: copy it first)."""
    root, _ = demo_tree
    home = build_once(tmp_path_factory, "demo-warehouse", lambda d: run_etl(
        "ingest", str(root), "--db", str(d / "warehouse.duckdb"), "--quiet"))
    db = worker_copy(tmp_path_factory, home / "warehouse.duckdb")
    before = file_signature(db)
    yield db
    unchanged(f"demo warehouse {db}", before, file_signature(db))


@pytest.fixture(scope="session")
def inspect_tree(tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[tuple[Path, dict[str, Path]]]:
    """(root, logs) of a directory of two Inspect AI logs written by the real Inspect library
    (tests/inspect_logs.py): `agentic`, an .eval log of mockllm/model offered a tool (some
    calls fail), and `oneshot`, a .json log of mockllm/claude-opus-4-6 without tools whose
    headline scorer has a clustered stderr. 6 samples, 3 epochs each. Written once per run
    (read-only)."""

    def build(home: Path) -> None:
        from tests.inspect_logs import write_log

        root = home / "logs"
        logs = {"agentic": write_log(root / "agentic"),
                "oneshot": write_log(root / "nested" / "oneshot", fmt="json",
                                     model="mockllm/claude-opus-4-6", tools=False,
                                     partial_first=True)}
        (home / "logs.json").write_text(json.dumps(
            {name: str(path.relative_to(root)) for name, path in logs.items()}))

    home = build_once(tmp_path_factory, "inspect-logs", build)
    root = home / "logs"
    logs = json.loads((home / "logs.json").read_text())
    before = tree_signature(root)
    yield root, {name: root / relative for name, relative in logs.items()}
    unchanged(f"Inspect logs {root}", before, tree_signature(root))


@pytest.fixture(scope="session")
def inspect_db(inspect_tree: tuple[Path, dict[str, Path]],
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The Inspect logs of inspect_tree ingested, this worker's copy of the one built for
    the run (do not modify it: copy it first)."""
    home = build_once(tmp_path_factory, "inspect-warehouse", lambda d: run_etl(
        "ingest", str(inspect_tree[0]), "--db", str(d / "warehouse.duckdb"), "--quiet"))
    db = worker_copy(tmp_path_factory, home / "warehouse.duckdb")
    before = file_signature(db)
    yield db
    unchanged(f"Inspect warehouse {db}", before, file_signature(db))


# -- every test leaves Ctrl-C as it found it --------------------------------------------------
def _ctrl_c_state() -> tuple[object, bool, bool]:
    """SIGINT's handler in Python, and whether the kernel has it ignored by this process or
    blocked by this thread (read from /proc: a library's C code can change either without
    Python knowing). What is ignored or blocked is inherited by every child a later test
    starts, and such a child never sees the Ctrl-C a test sends it (an `etl ingest --watch`
    then waits forever)."""
    bit = 1 << (signal.SIGINT - 1)
    fields = {}
    for line in Path("/proc/thread-self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return (signal.getsignal(signal.SIGINT), bool(int(fields["SigIgn"], 16) & bit),
            bool(int(fields["SigBlk"], 16) & bit))


@pytest.fixture(autouse=True)
def _ctrl_c_left_as_found() -> Iterator[None]:
    before = _ctrl_c_state()
    yield
    after = _ctrl_c_state()
    if after != before:
        # the next tests start as this one did
        signal.signal(signal.SIGINT, before[0] if before[0] is not None
                      else signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_BLOCK if before[2] else signal.SIG_UNBLOCK,
                               [signal.SIGINT])
        pytest.fail(f"this test left SIGINT (handler, ignored, blocked) = {after}, it found "
                    f"it {before}: the children of later tests would inherit it")


# -- the longest files first ------------------------------------------------------------------
# `make test` hands whole files to its workers (--dist loadfile) in the order they were
# collected, and each worker asks for the next file when it is done: a long file collected
# last keeps one worker busy while the other has nothing left. These files took 30 s or more
# of a worker (measured with the suite's timing plugin, docs/DEVELOPMENT.md); they start
# first, longest first, and the short files fill in around them. A file missing from the
# list only runs in its usual place.
LONGEST_FILES = (
    "tests/export/test_export_engines.py",
    "tests/project/test_bench.py",
    "tests/pipeline/test_load_memory.py",
    "tests/pipeline/test_cache_safety.py",
    "tests/pipeline/test_concurrency.py",
    "tests/serve/test_crawl.py",
    "tests/pipeline/test_refusals.py",
    "tests/pipeline/test_publish.py",
    "tests/redact/test_redact_leaks.py",
    "tests/redact/test_redact.py",
    "tests/pipeline/test_stage.py",
    "tests/pipeline/test_load_property.py",
    "tests/project/test_readme_commands.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONGEST_FILES)}
    position = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(item.nodeid.split("::", 1)[0], len(rank)),
                                 position[id(item)]))
