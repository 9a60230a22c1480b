"""Log lines into Parquet files with a checkpoint; stopped, rotated, restarted: each line once.

Run it with ``python examples/parquet_sink.py``: it writes a log in a temporary directory,
streams it into a Parquet table twice (a log rotation between the runs), and reads the table
back.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

import pyspark_aof as aof


def append(log: Path, first: int, count: int) -> None:
    """Append lines ``first`` to ``first + count - 1``, as an application would."""
    with log.open("a") as out:
        out.writelines(f"{n} GET /item/{n % 17} 200\n" for n in range(first, first + count))


def stream_into_table(spark: SparkSession, logs: Path, work: Path) -> None:
    """Read what is new in the logs into the table, then stop (a run of a scheduled job)."""
    query = (
        aof.read_stream(spark, f"{logs}/app\\.log.*")  # app.log and its rotations
        .writeStream.format("parquet")
        .option("checkpointLocation", str(work / "checkpoint"))
        .trigger(availableNow=True)
        .start(str(work / "table"))
    )
    query.awaitTermination()


def main() -> int:
    """Run the example; 0 when the table holds every line written exactly once."""
    spark = aof.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    with tempfile.TemporaryDirectory(prefix="aof-parquet-") as tmp:
        work = Path(tmp)
        logs = work / "logs"
        logs.mkdir()
        append(logs / "app.log", 0, 1000)
        stream_into_table(spark, logs, work)
        # While the query is stopped: more lines, a rotation by renaming, lines in the new file.
        append(logs / "app.log", 1000, 500)
        (logs / "app.log").rename(logs / "app.log.1")
        append(logs / "app.log", 1500, 500)
        stream_into_table(spark, logs, work)

        table = spark.read.parquet(str(work / "table"))
        rows = table.count()
        lines = table.select("value").distinct().count()
        ids = table.select("host", "file_id", "offset").distinct().count()
    once = rows == lines == ids == 2000
    print(f"parquet_sink: wrote 2000 lines, the table has {rows} rows, each line once: {once}")
    return 0 if once else 1


if __name__ == "__main__":
    sys.exit(main())
