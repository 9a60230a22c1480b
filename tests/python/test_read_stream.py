"""End to end from Python: read_stream on a real local Spark session."""

from __future__ import annotations

import collections
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyspark.errors import IllegalArgumentException, StreamingQueryException
from pyspark.sql import SparkSession
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof
from writers import LineWriter, append

# A local session's queries: what PySpark and Spark's engine make of the source, on each line.
pytestmark = pytest.mark.both_lines


def start(
    spark: SparkSession, logs: Path, tmp: Path, **options: str | int | bool
) -> StreamingQuery:
    return (
        aof.read_stream(
            spark, f"{logs}/app-.*\\.log", options=aof.AofOptions().with_changes(**options)
        )
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp / "checkpoint"))
        .start(str(tmp / "out"))
    )


def assert_exactly_once(spark: SparkSession, out: Path, expected: list[str]) -> None:
    rows = spark.read.parquet(str(out)).collect()
    counts = collections.Counter(r["value"].split(" ", 1)[0] for r in rows)
    assert [i for i, c in counts.items() if c > 1] == []
    assert set(counts) == set(expected)
    assert len(rows) == len(expected)
    assert all(r["value"].endswith(" end") for r in rows), "a partial line was emitted"
    keys = {(r["host"], r["file_id"], r["offset"]) for r in rows}
    assert len(keys) == len(rows)


def test_exactly_once_with_writers_new_files_and_restart(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    writers = [LineWriter(logs / f"app-{w}.log", w, 2000) for w in ("a", "b")]
    for w in writers:
        w.start()
    query = start(spark, logs, tmp_path)
    late = LineWriter(logs / "app-c.log", "c", 1000)
    late.start()
    for w in [*writers, late]:
        w.join(timeout=120)
    query.processAllAvailable()
    query.stop()
    written = [i for w in [*writers, late] for i in w.ids]
    assert_exactly_once(spark, tmp_path / "out", written)

    more = append(logs / "app-b.log", [f"d-{n}" for n in range(300)])
    restarted = start(spark, logs, tmp_path)
    restarted.processAllAvailable()
    restarted.stop()
    assert_exactly_once(spark, tmp_path / "out", written + more)


def test_latest_skips_what_existed(spark: SparkSession, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    append(logs / "app-a.log", [f"old-{n}" for n in range(100)])
    query = start(spark, logs, tmp_path, starting_offsets="latest")
    query.processAllAvailable()
    fresh = append(logs / "app-a.log", [f"new-{n}" for n in range(50)])
    query.processAllAvailable()
    query.stop()
    assert_exactly_once(spark, tmp_path / "out", fresh)


@pytest.mark.parametrize("checked", [True, False], ids=["md5-checked", "md5-unchecked"])
def test_a_file_rewritten_in_place_is_new_unless_md5_checks_are_off(
    spark: SparkSession, tmp_path: Path, checked: bool
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "app-a.log"
    first = append(log, [f"first-{n:03}" for n in range(100)])
    query = start(spark, logs, tmp_path, md5_check_enabled=checked)
    query.processAllAvailable()
    # Rewritten under the same inode with lines as long, more of them, as a tool that rewrites
    # its log does.
    second = [f"again-{n:03}" for n in range(300)]
    with log.open("r+b") as out:
        out.write("".join(f"{i} whole end\n" for i in second).encode())
    query.processAllAvailable()
    query.stop()
    # Off, the node, the planner and the reader all take it for the file read before: read on
    # from where it was, whatever its bytes now.
    read_again = second if checked else second[len(first) :]
    assert_exactly_once(spark, tmp_path / "out", first + read_again)


def test_stack_traces_are_records(spark: SparkSession, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    trace = "a-2 ERROR failed\njava.io.IOException: disk\n\tat a.B.c(B.java:1)\n\t... 2 more"
    records = ["a-1 started", trace, "a-3 done"]
    (logs / "app-a.log").write_text("".join(r + "\n" for r in records))
    query = (
        aof.read_stream(
            spark,
            f"{logs}/app-.*\\.log",
            multiline_continuation=r"^(\s|java\.)",
            multiline_flush_timeout=1,  # the last record is complete once the file is quiet
        )
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start(str(tmp_path / "out"))
    )
    query.awaitTermination(120)
    rows = spark.read.parquet(str(tmp_path / "out")).orderBy("offset").collect()
    assert [(r["value"], r["offset"]) for r in rows] == [
        (records[0], 0),
        (trace, len(records[0]) + 1),
        (records[2], len(records[0]) + len(trace) + 2),
    ]


def test_a_bad_option_fails_when_the_query_is_defined(spark: SparkSession) -> None:
    with pytest.raises(ValueError, match=r"'starting\.offsets'"):
        aof.read_stream(spark, "/var/log/x.*", starting_offsets="middle")
    # What Python cannot check (the path) the source refuses when the query is defined.
    with pytest.raises(ValueError, match=r"'path'") as refused:
        aof.read_stream(spark, "relative/x.*")
    assert isinstance(refused.value.__cause__, IllegalArgumentException)
    with pytest.raises(ValueError, match=r"'multiline\.start'"):
        aof.read_stream(spark, "/var/log/x.*", multiline_start="^(unclosed")
    with pytest.raises(TypeError, match="options must be"):
        aof.read_stream(spark, "/var/log/x.*", options=[("bytes.max", 1)])  # type: ignore[arg-type]


def test_the_journal_by_default_with_its_columns_and_its_options_only(
    spark: SparkSession,
) -> None:
    entries = aof.read_journal(spark, journal_units=["ssh.service"], journal_priority="warning")
    assert entries.columns[:6] == ["value", "host", "path", "offset", "file_id", "timestamp"]
    assert entries.columns[6:] == [
        "time", "unit", "identifier", "priority", "pid", "boot_id", "cursor", "fields"
    ]
    with pytest.raises(ValueError, match=r"'multiline\.start'.*journald"):
        aof.read_journal(spark, multiline_start="^\\d")
    with pytest.raises(ValueError, match=r"'journal\.priority'"):
        aof.read_journal(spark, journal_priority="loud")
    with pytest.raises(ValueError, match=r"'journal\.units'.*'format' to 'journald'"):
        aof.read_stream(spark, "/var/log/x.*", journal_units="ssh.service")


def test_options_as_a_dict_and_the_path_as_a_path(spark: SparkSession, tmp_path: Path) -> None:
    lines = aof.read_stream(
        spark, tmp_path / "app-.*", options={"bytes.max": 100, "starting_offsets": "latest"}
    )
    assert lines.isStreaming
    with pytest.raises(ValueError, match=r"'bytes\.max'"):
        aof.read_stream(spark, tmp_path / "app-.*", options={"bytes.max": 0})


def test_jar_is_bundled_and_configured(spark: SparkSession) -> None:
    assert Path(aof.jar_path()).is_file()
    assert aof.jar_path() in (spark.conf.get("spark.jars") or "")
    builder = aof.configure(SparkSession.builder.config("spark.jars", "/other.jar"))
    assert builder._options["spark.jars"] == f"/other.jar,{aof.jar_path()}"


def test_configure_turns_the_metrics_plugin_on_keeping_other_plugins(spark: SparkSession) -> None:
    plugin = "com.hx.spark.sql.connector.aof.MetricsPlugin"
    # The suites' session was made by `configure`: Spark loaded the plugin and started it.
    assert plugin in (spark.conf.get("spark.plugins") or "")
    builder = aof.configure(SparkSession.builder.config("spark.plugins", "org.example.Other"))
    assert builder._options["spark.plugins"] == f"org.example.Other,{plugin}"
    assert aof.configure(builder)._options["spark.plugins"] == f"org.example.Other,{plugin}"


def _run_at_warn(
    tmp_path: Path, stopped: bool = False, **options: str
) -> subprocess.CompletedProcess[str]:
    """One query in a process of its own at Spark's usual WARN level.

    An AvailableNow query, or with ``stopped`` one that reads what is there and is stopped.
    """
    if stopped:
        run = "query = df.writeStream.format('noop').start(); query.processAllAvailable()"
        end = "query.stop()"
    else:
        run = "query = df.writeStream.format('noop').trigger(availableNow=True).start()"
        end = "query.awaitTermination(120)"
    script = textwrap.dedent(
        f"""
        from pyspark.sql import SparkSession
        import pyspark_aof as aof

        builder = aof.configure(SparkSession.builder.master("local[1]"))
        spark = builder.config("spark.ui.enabled", "false").getOrCreate()
        spark.sparkContext.setLogLevel("WARN")
        df = aof.read_stream(spark, "{tmp_path}/app.*", **{options!r})
        {run}
        try:
            {end}
            print("DONE")
        except Exception as e:
            print("FAILED", str(e).splitlines()[0])
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )


def test_unreachable_zookeeper_fails_without_client_stack_traces(tmp_path: Path) -> None:
    """One clear error and none of ZooKeeper's retry warnings."""
    done = _run_at_warn(tmp_path, zookeeper_address="127.0.0.1:1")
    assert "FAILED" in done.stdout and "zookeeper.address" in done.stdout, done.stdout
    assert "cannot reach ZooKeeper at '127.0.0.1:1'" in done.stdout
    assert "org.apache.zookeeper" not in done.stderr, done.stderr[:3000]


@pytest.mark.parametrize("stopped", [False, True], ids=["available-now", "stopped"])
def test_a_users_session_shows_no_warning_of_the_source(tmp_path: Path, stopped: bool) -> None:
    (tmp_path / "app.log").write_text("a line\n")
    done = _run_at_warn(tmp_path, stopped)
    assert "DONE" in done.stdout, done.stdout + done.stderr[-3000:]
    # The embedded ZooKeeper's, and Spark 4's at every stop of a streaming query.
    for noise in ("org.apache.zookeeper", "ServerCnxnFactory", "Failed to cancel job group"):
        assert noise not in done.stderr, done.stderr[:3000]


def test_a_line_carries_when_it_was_first_planned_and_a_watermark_can_use_it(
    spark: SparkSession, tmp_path: Path
) -> None:
    from pyspark.sql.functions import count, window

    logs = tmp_path / "logs"
    logs.mkdir()
    before = datetime.now(UTC)
    append(logs / "app-a.log", [f"a-{n}" for n in range(100)])
    lines = aof.read_stream(spark, f"{logs}/app-.*\\.log")
    query = start(spark, logs, tmp_path)
    query.processAllAvailable()
    append(logs / "app-a.log", [f"b-{n}" for n in range(100)])
    query.processAllAvailable()
    query.stop()
    after = datetime.now(UTC)
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    times = {r["value"][0]: r["timestamp"].astimezone(UTC) for r in rows}
    assert len({r["timestamp"] for r in rows if r["value"].startswith("a")}) == 1
    assert before <= times["a"] < times["b"] <= after
    windowed = (
        lines.withWatermark("timestamp", "1 minute")
        .groupBy(window("timestamp", "1 minute"))
        .agg(count("*").alias("lines"))
        .writeStream.outputMode("update")
        .format("memory")
        .queryName("per_minute")
        .option("checkpointLocation", str(tmp_path / "windowed"))
        .start()
    )
    windowed.processAllAvailable()
    windowed.stop()
    assert sum(r["lines"] for r in spark.table("per_minute").collect()) == 200


def test_a_query_beside_a_running_one_is_refused_and_a_later_one_reads_everything(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The notebook case: another query on the same files, fresh checkpoint, default store."""
    logs = tmp_path / "logs"
    logs.mkdir()
    written = append(logs / "app.log", [f"x{n}" for n in range(100)])
    path = f"{logs}/app\\.log.*"
    first = (
        aof.read_stream(spark, path)
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "first"))
        .start()
    )
    try:
        first.processAllAvailable()
        beside = (
            aof.read_stream(spark, path)
            .writeStream.format("noop")
            .option("checkpointLocation", str(tmp_path / "beside"))
            .start()
        )
        with pytest.raises(StreamingQueryException, match=r"running with meta\.store '/aof/"):
            beside.awaitTermination(120)
        assert first.isActive
    finally:
        first.stop()
    # The first query left its offsets in the store's backup: a new checkpoint does not take them.
    later = (
        aof.read_stream(spark, path)
        .writeStream.format("memory")
        .queryName("later")
        .option("checkpointLocation", str(tmp_path / "later"))
        .trigger(availableNow=True)
        .start()
    )
    later.awaitTermination(120)
    read = [r.value.split()[0] for r in spark.table("later").collect()]
    assert sorted(read) == sorted(written)
