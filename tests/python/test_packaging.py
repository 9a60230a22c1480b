"""The wheel users install carries the connector JAR and the typing marker."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_bundles_the_jar(tmp_path: Path) -> None:
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
            str(ROOT / "python"),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("pyspark_aof-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pyspark_aof/py.typed" in names
    assert any(n.startswith("pyspark_aof/jars/spark-aof_2.12-") for n in names), names
