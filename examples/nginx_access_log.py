"""An nginx access log parsed into columns, counted per minute and status with a watermark.

Run it with ``python examples/nginx_access_log.py``. The log is in nginx's default
``combined`` format; requests arrive up to a minute late, which the watermark allows for.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as sf

import pyspark_aof as aof

# $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
# "$http_referer" "$http_user_agent"
COMBINED = r'^(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+) "([^"]*)" "([^"]*)"'
START = datetime(2026, 11, 26, 10, 0, tzinfo=UTC)


def access_log(log: Path, seconds: range) -> dict[tuple[str, int], int]:
    """Append one request per second of ``seconds`` after START; return the counts expected.

    The counts are by minute (``"10:02"``, in UTC) and status.
    """
    expected: dict[tuple[str, int], int] = {}
    with log.open("a") as out:
        for s in seconds:
            at = START + timedelta(seconds=s)
            status = 404 if s % 10 == 0 else 200
            stamp = at.strftime("%d/%b/%Y:%H:%M:%S +0000")
            out.write(
                f'192.0.2.{s % 250} - - [{stamp}] "GET /page/{s} HTTP/1.1" {status} {s * 10} '
                f'"-" "curl/8.5.0"\n'
            )
            minute = f"{at:%H:%M}"
            expected[minute, status] = expected.get((minute, status), 0) + 1
    return expected


def parsed(lines: DataFrame) -> DataFrame:
    """Return the access log's fields as columns, ``time`` an event time."""

    def field(n: int) -> Column:
        return sf.regexp_extract("value", COMBINED, n)

    return lines.select(
        field(1).alias("client"),
        sf.to_timestamp(field(3), "dd/MMM/yyyy:HH:mm:ss Z").alias("time"),
        field(4).alias("method"),
        field(5).alias("uri"),
        field(6).cast("int").alias("status"),
        field(7).cast("long").alias("bytes"),
        field(9).alias("agent"),
    )


def main() -> int:
    """Run the example; 0 when every minute's counts are those written."""
    spark = aof.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    spark.conf.set("spark.sql.shuffle.partitions", "4")  # a small stream's state: 4 parts do
    counts: dict[tuple[str, int], int] = {}

    def keep(batch: DataFrame, batch_id: int) -> None:  # the latest count of each window
        minute = sf.date_format("window.start", "HH:mm").alias("minute")
        for row in batch.select(minute, "status", "count").collect():
            counts[row["minute"], row["status"]] = row["count"]

    with tempfile.TemporaryDirectory(prefix="aof-nginx-") as tmp:
        log = Path(tmp, "access.log")
        expected = access_log(log, range(0, 180))
        per_minute = (
            parsed(aof.read_stream(spark, f"{tmp}/access\\.log"))
            .withWatermark("time", "1 minute")
            .groupBy(sf.window("time", "1 minute"), "status")
            .count()
        )
        query = (
            per_minute.writeStream.outputMode("update")
            .foreachBatch(keep)
            .option("checkpointLocation", f"{tmp}/checkpoint")
            .start()
        )
        query.processAllAvailable()
        # Late requests of the third minute, still within the watermark, then the next minute.
        expected_late = access_log(log, range(150, 160))
        for key, n in expected_late.items():
            expected[key] += n
        query.processAllAvailable()
        query.stop()
    for (minute, status), n in sorted(counts.items()):
        print(f"nginx_access_log: {minute} status {status}: {n} requests")
    same = counts == expected
    print(f"nginx_access_log: counts per minute and status as written: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
