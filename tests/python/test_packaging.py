"""The wheel users install carries the connector JAR and the typing marker."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from pyspark_aof import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_bundles_the_jar(tmp_path: Path) -> None:
    # Built from a copy: setuptools keeps files of earlier builds in the tree's build directory.
    source = tmp_path / "python"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("pyspark_aof-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pyspark_aof/py.typed" in names
    jars = [n for n in names if n.startswith("pyspark_aof/jars/")]
    # The connector's classes alone: no sources or test JARs from the same build.
    assert jars == [f"pyspark_aof/jars/spark-aof_2.12-{__version__}.jar"], jars
