"""Build hook (the project is configured in pyproject.toml): ship schema/ and sql/ inside
the wheel, as etl/_data/schema and etl/_data/sql.

The folders stay at the top of the repository (the project layout); etl/schema.py reads them
beside the package in a checkout or an editable install, and from etl/_data once installed
from a wheel. Without this a plain `pip install .` gives a package without its DDL and views."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA_DIRS = ("schema", "sql")  # the same names as etl.schema.DATA_DIRS


class BuildPyWithData(build_py):
    """build_py, then copy schema/ and sql/ into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout itself
        target = Path(self.build_lib) / "etl" / "_data"
        for name in DATA_DIRS:
            shutil.copytree(HERE / name, target / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildPyWithData})
