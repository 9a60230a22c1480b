"""Planning cost per trigger: the metadata round trip through ZooKeeper plus the planner."""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

import pyspark_aof as aof
from data import many_file, write_many


def measure(
    spark: SparkSession, directory: Path, files: int, directories: int = 1, triggers: int = 30
) -> dict[str, Any]:
    """p50 and p95 of Spark's ``latestOffset`` duration over ``triggers`` triggers.

    With more than one directory, the files are spread over ``directory/dNNNN/`` and the query's
    ``path`` names them with a wildcard, so that listing them is part of the cost.
    """
    write_many(directory, files, directories)
    pattern = f"{directory}/app-.*[.]log" if directories == 1 else f"{directory}/*/app-.*[.]log"
    with tempfile.TemporaryDirectory(prefix="aof-bench-") as tmp:
        query = (
            aof.read_stream(spark, pattern, meta_store=f"/bench/{Path(tmp).name}")
            .writeStream.format("noop")
            .option("checkpointLocation", tmp)
            .start()
        )
        query.processAllAvailable()  # the first batch reads every file
        for i in range(triggers):
            with many_file(directory, i % files, directories).open("a") as out:
                out.write(f"appended {i}\n")
            query.processAllAvailable()  # one more trigger with data: one progress report
        timings = sorted(p["durationMs"]["latestOffset"] for p in query.recentProgress[-triggers:])
        query.stop()
    return {
        "files": files,
        "directories": directories,
        "triggers": len(timings),
        "p50_ms": statistics.median(timings),
        "p95_ms": timings[min(len(timings) - 1, int(len(timings) * 0.95))],
    }
