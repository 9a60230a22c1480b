"""Which files one source reads: several paths, what ``exclude`` leaves out, old files."""

from __future__ import annotations

import gzip
import os
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from test_read_stream import assert_exactly_once

import pyspark_aof as aof
from writers import append


def test_several_paths_read_each_file_once_and_leave_excluded_ones(
    spark: SparkSession, tmp_path: Path
) -> None:
    app, web = tmp_path / "logs" / "app", tmp_path / "logs" / "web"
    app.mkdir(parents=True)
    web.mkdir()
    written = append(app / "app.log", [f"app-{n}" for n in range(100)])
    written += append(web / "access.log", [f"web-{n}" for n in range(100)])
    append(app / "debug.log", [f"debug-{n}" for n in range(100)])
    (web / "access.log.1.gz").write_bytes(gzip.compress(b"gz-0 whole end\n"))
    lines = aof.read_stream(
        spark,
        # app.log matches both; debug.log and the .gz match the second only, and are excluded.
        [f"{app}/app\\.log", f"{tmp_path}/logs/*/.*\\.log.*"],
        exclude=["\\.gz$", "/debug\\.log$"],
    )
    query = (
        lines.writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start(str(tmp_path / "out"))
    )
    query.processAllAvailable()
    # Appended to, then renamed to an excluded name before the next trigger: followed by its
    # inode while tracked, so its last lines are read.
    written += append(app / "app.log", [f"app-{n}" for n in range(100, 150)])
    (app / "app.log").rename(app / "app.log.1.gz")
    written += append(app / "app.log", [f"app-{n}" for n in range(150, 200)])
    append(web / "debug.log", [f"debug-web-{n}" for n in range(10)])  # excluded from the start
    query.processAllAvailable()
    query.stop()
    assert_exactly_once(spark, tmp_path / "out", written)


@pytest.mark.both_lines
def test_a_list_option_is_checked_item_by_item(spark: SparkSession) -> None:
    with pytest.raises(ValueError, match=r"'exclude'.*not an empty list"):
        aof.read_stream(spark, "/var/log/x.*", exclude=[])
    with pytest.raises(ValueError, match=r"'exclude'.*not empty"):
        aof.read_stream(spark, "/var/log/x.*", exclude=["\\.gz$", ""])
    # What Python cannot check, the regex's syntax and the paths, the source refuses.
    with pytest.raises(ValueError, match=r"'\(a' for option 'exclude'.*at index 2"):
        aof.read_stream(spark, "/var/log/x.*", exclude=["(a"])
    with pytest.raises(ValueError, match=r"'logs/x' for option 'path'"):
        aof.read_stream(spark, ["/var/log/x.*", "logs/x"])
    assert aof.AofOptions(exclude=["a", "b"]).to_options() == {"exclude": '["a", "b"]'}


def test_files_older_than_ignore_older_are_followed_from_their_end(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    two_days_ago = time.time() - 2 * 86400
    old = logs / "app.log.1"
    append(old, [f"old-{n}" for n in range(100)])
    os.utime(old, (two_days_ago, two_days_ago))
    rotated = logs / "app.log.2.gz"
    rotated.write_bytes(gzip.compress(b"".join(b"gz-%d whole end\n" % n for n in range(100))))
    os.utime(rotated, (two_days_ago, two_days_ago))
    written = append(logs / "app.log", [f"new-{n}" for n in range(100)])
    query = (
        aof.read_stream(spark, f"{logs}/app\\.log.*", ignore_older="24h")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start(str(tmp_path / "out"))
    )
    query.processAllAvailable()
    # Written again: what is appended is read, not what it held.
    written += append(old, [f"appended-{n}" for n in range(50)])
    query.processAllAvailable()
    progress = query.lastProgress
    assert progress is not None
    metrics = progress["sources"][0]["metrics"]
    query.stop()
    assert_exactly_once(spark, tmp_path / "out", written)
    assert metrics["filesIgnored"] == "1"  # the .gz, left out at every trigger
    assert metrics["filesTracked"] == "2"
