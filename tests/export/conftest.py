"""Fixtures of the export's tests: the demo warehouse exported to Parquet, a read-only
connection to the warehouse, and one local Spark session per worker."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.export.engines import export_parquet_of


@pytest.fixture(scope="session")
def exported(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`etl export --parquet` of the demo warehouse: its directory, manifest and output."""
    return export_parquet_of(demo_db, tmp_path_factory.mktemp("export") / "parquet")


@pytest.fixture(scope="module")
def db(demo_db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(str(demo_db), read_only=True)
    yield con
    con.close()


def _java_home() -> str | None:
    """JAVA_HOME if set, else a JDK Spark 4 supports (17 or 21) under /usr/lib/jvm, else the
    `java` on PATH; None when the machine has no Java at all."""
    if os.environ.get("JAVA_HOME") and Path(os.environ["JAVA_HOME"], "bin", "java").exists():
        return os.environ["JAVA_HOME"]
    jvm = Path("/usr/lib/jvm")
    candidates = sorted(jvm.glob("*17*")) + sorted(jvm.glob("*21*")) if jvm.is_dir() else []
    for home in candidates:
        if (home / "bin" / "java").exists():
            return str(home)
    java = shutil.which("java")
    return str(Path(java).resolve().parent.parent) if java else None


# Spark's clocks, set past any wait a busy machine can cause: a local session whose driver
# is starved of CPU for two minutes must not declare its own executor lost (heartbeats,
# network timeout) or give up on a broadcast. The JIT stops at its first tier and the GC is
# the serial one: the session runs a few hundred small queries, where a JVM compiling hot
# code and collecting on several threads spends more CPU than it saves (a third of the
# JVM's CPU seconds on this module). The first tier alone gets a small code cache, which
# Spark's generated code fills: it is given the size the tiered JIT has.
SPARK_CONFIG = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.session.timeZone": "UTC",
    "spark.network.timeout": "3600s",
    "spark.executor.heartbeatInterval": "600s",
    "spark.sql.broadcastTimeout": "3600",
}
SPARK_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A local[2] Spark session (PySpark from the dev extra, the machine's Java), started
    once per worker."""
    java_home = _java_home()
    if java_home is None:
        pytest.skip("no Java on this machine (Spark needs a JDK 17 or 21); CI has one")
    try:
        from pyspark.sql import SparkSession
    except ImportError as error:  # a dev dependency: missing means a broken venv, not a skip
        pytest.fail(f"pyspark is not installed ({error}); run `make venv` (dev extra)")
    os.environ["JAVA_HOME"] = java_home
    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    builder = (SparkSession.builder.master("local[2]").appName("clinseek-export-test")
               .config("spark.sql.warehouse.dir", str(warehouse))
               .config("spark.driver.extraJavaOptions",
                       f"-Dderby.system.home={warehouse} {SPARK_JVM_OPTIONS}"))
    for key, value in SPARK_CONFIG.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
