"""``spark-submit --packages`` with the coordinates the build publishes to the local Maven repo."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyspark

import pyspark_aof as aof
from writers import append

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


def test_spark_submit_with_packages_runs_a_streaming_application(tmp_path: Path) -> None:
    group, artifact, version = aof.maven_coordinates().split(":")
    published = Path.home() / ".m2" / "repository" / group.replace(".", "/") / artifact / version
    assert (published / f"{artifact}-{version}.jar").is_file(), "`make setup` publishes it there"
    logs = tmp_path / "logs"
    logs.mkdir()
    append(logs / "app.log", [f"line-{n}" for n in range(500)])
    app = tmp_path / "app.py"
    app.write_text(APP)
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    result = subprocess.run(
        [
            str(spark_submit),
            "--master",
            "local[2]",
            "--packages",
            aof.maven_coordinates(),
            "--conf",
            f"spark.jars.ivy={tmp_path / 'ivy'}",  # a fresh cache: resolved for real
            "--conf",
            "spark.ui.enabled=false",
            str(app),
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
    assert f"{artifact};{version}" in result.stderr  # Ivy's report names what it resolved
