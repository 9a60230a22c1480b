"""``spark-submit --packages`` with the coordinates the build publishes to the local Maven repo."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

import pyspark_aof as aof
from writers import append

# `--packages` resolves the coordinates of the running Spark's Scala line.
pytestmark = pytest.mark.both_lines

PYTHON_API_APP = """
import sys
from pyspark.sql import SparkSession
import pyspark_aof as aof

spark = SparkSession.builder.getOrCreate()
query = (
    aof.read_stream(spark, sys.argv[1], starting_offsets="earliest")
    .writeStream.format("json")
    .option("checkpointLocation", sys.argv[2] + "-checkpoint")
    .trigger(availableNow=True)
    .start(sys.argv[2])
)
query.awaitTermination()
print("rows:", spark.read.json(sys.argv[2]).count())
"""
APP = """
import sys
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
lines = spark.readStream.format("aof").load(sys.argv[1])
query = (
    lines.writeStream.format("json")
    .option("checkpointLocation", sys.argv[2] + "-checkpoint")
    .trigger(availableNow=True)
    .start(sys.argv[2])
)
query.awaitTermination()
print("rows:", spark.read.json(sys.argv[2]).count())
"""


def submit(app: str, tmp_path: Path, *spark_args: str) -> subprocess.CompletedProcess[str]:
    """Run ``app`` with ``spark-submit`` in local mode on a log of 500 lines; it prints its rows."""
    logs = tmp_path / "logs"
    logs.mkdir()
    append(logs / "app.log", [f"line-{n}" for n in range(500)])
    script = tmp_path / "app.py"
    script.write_text(app)
    result = subprocess.run(
        [
            str(Path(pyspark.__file__).parent / "bin" / "spark-submit"),
            "--master",
            "local[2]",
            *spark_args,
            "--conf",
            "spark.ui.enabled=false",
            str(script),
            f"{logs}/app\\.log",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "rows: 500" in result.stdout
    return result


def test_spark_submit_with_packages_runs_a_streaming_application(tmp_path: Path) -> None:
    group, artifact, version = aof.maven_coordinates().split(":")
    published = Path.home() / ".m2" / "repository" / group.replace(".", "/") / artifact / version
    assert (published / f"{artifact}-{version}.jar").is_file(), "`make setup` publishes it there"
    fresh_cache = f"spark.jars.ivy={tmp_path / 'ivy'}"  # resolved for real
    result = submit(APP, tmp_path, "--packages", aof.maven_coordinates(), "--conf", fresh_cache)
    assert f"{artifact};{version}" in result.stderr  # Ivy's report names what it resolved


def test_spark_submit_runs_an_application_of_the_python_api(tmp_path: Path) -> None:
    # On YARN spark-submit puts PySpark's zip first on the application's path (as --py-files
    # does here): the package finds Spark's JARs, and so its own options, all the same.
    zipped = Path(pyspark.__file__).parent / "python" / "lib" / "pyspark.zip"
    submit(PYTHON_API_APP, tmp_path, "--jars", aof.jar_path(), "--py-files", str(zipped))
