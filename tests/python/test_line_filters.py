"""``include.lines`` and ``exclude.lines`` on a real session: rows only for the lines kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.functions import col
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof

# Which filters Spark hands the source differs by Spark line.
pytestmark = pytest.mark.both_lines


def _start(lines: DataFrame, tmp: Path) -> StreamingQuery:
    return (
        lines.writeStream.format("parquet")
        .option("checkpointLocation", str(tmp / "checkpoint"))
        .start(str(tmp / "out"))
    )


def _metric(query: StreamingQuery, name: str) -> str:
    progress = query.lastProgress
    assert progress is not None
    return str(progress["sources"][0]["metrics"][name])


def test_the_rows_kept_are_those_a_where_after_the_source_keeps(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "app.log"
    levels = ["INFO", "WARN", "DEBUG", "ERROR"]
    log.write_text("".join(f"{n} {levels[n % 97 % 4]} message {n}\n" for n in range(20000)))
    query = _start(
        aof.read_stream(spark, f"{logs}/app\\.log", include_lines="ERROR", exclude_lines="^1"),
        tmp_path,
    )
    query.processAllAvailable()
    filtered = _metric(query, "linesFiltered")
    query.stop()
    got = sorted(r["value"] for r in spark.read.parquet(str(tmp_path / "out")).collect())
    text = spark.read.text(str(log))
    expected = text.where(col("value").contains("ERROR") & ~col("value").startswith("1"))
    assert got == sorted(r["value"] for r in expected.collect())
    assert int(filtered) == 20000 - len(got)


def test_a_line_written_in_two_pieces_matches_only_once_whole(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "app.log"
    log.write_text("1 INFO up\n2 ERR")
    query = _start(aof.read_stream(spark, f"{logs}/app\\.log", include_lines="ERROR"), tmp_path)
    query.processAllAvailable()
    with log.open("a") as out:
        out.write("OR disk full\n3 INFO fine\n")
    query.processAllAvailable()
    query.stop()
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert [(r["value"], r["offset"]) for r in rows] == [("2 ERROR disk full", 10)]


def test_a_stack_trace_is_kept_whole_by_its_third_line(spark: SparkSession, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    causes = ["at Main.run", "Caused by: IOException"]
    traces = [
        f"2026-11-27 {n} ERROR failed\n  at Worker.call\n  {causes[n % 2]}\n" for n in range(10)
    ]
    (logs / "app.log").write_text("".join(traces) + "2026-11-27 end\n")
    lines = aof.read_stream(
        spark,
        f"{logs}/app\\.log",
        multiline_start="^\\d{4}-",
        multiline_flush_timeout=100,
        include_lines="Caused by",
    )
    query = _start(lines, tmp_path)
    query.processAllAvailable()
    query.stop()
    got = sorted(r["value"] for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert got == sorted(t.rstrip("\n") for t in traces if "Caused by" in t)
