"""``header.lines``: W3C and IIS logs, whose header says what each row's fields are."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql.streaming.query import StreamingQuery

import pyspark_aof as aof


def _iis_log(path: Path, fields: str, first: int, count: int) -> list[str]:
    """Write the directives IIS starts a log with, then ``count`` entries; return the header."""
    header = [
        "#Software: Microsoft Internet Information Services 10.0",
        "#Version: 1.0",
        "#Date: 2026-11-28 10:00:00",
        f"#Fields: {fields}",
    ]
    path.write_text("\n".join(header) + "\n")
    _entries(path, first, count)
    return header


def _entries(path: Path, first: int, count: int) -> None:
    entries = (f"2026-11-28 10:00:00 GET /page/{n} 200\n" for n in range(first, first + count))
    with path.open("a") as out:
        out.writelines(entries)


def test_each_row_carries_its_files_header_across_a_restart_and_a_rotation(
    spark: SparkSession, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "u_ex261128.log"
    first = _iis_log(log, "date time cs-method cs-uri-stem sc-status", 0, 50)

    def start() -> StreamingQuery:
        return (
            aof.read_stream(spark, f"{logs}/u_ex.*", header_lines="^#")
            .writeStream.format("parquet")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .start(str(tmp_path / "out"))
        )

    query = start()
    query.processAllAvailable()
    query.stop()
    _entries(log, 50, 50)  # read after the restart, from the middle of the file
    log.rename(logs / "u_ex261128.log.1")
    second = _iis_log(log, "date time cs-method cs-uri-stem sc-status time-taken", 100, 50)
    query = start()
    query.processAllAvailable()
    query.stop()

    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted(int(r["value"].split()[3].rsplit("/", 1)[1]) for r in rows) == list(range(150))
    assert Counter((r["file_id"], r["offset"]) for r in rows).most_common(1)[0][1] == 1
    headers = {int(r["value"].split()[3].rsplit("/", 1)[1]) < 100: r["header"] for r in rows}
    assert headers == {True: "\n".join(first), False: "\n".join(second)}
    assert len({(r["file_id"], r["header"]) for r in rows}) == 2
