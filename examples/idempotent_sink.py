"""An idempotent sink: each line written once, keyed by ``(host, file_id, offset)``, replays too.

Run it with ``python examples/idempotent_sink.py``. Spark runs a batch again after a crash
between the sink's write and Spark's commit; a sink that appends would then hold its lines
twice. This one upserts each batch into a table keyed by the line's id (SQLite, from Python's
standard library; the same ``MERGE`` works on Delta Lake, Iceberg or a database). The example
causes a real replay: it removes the last batch's commit from the checkpoint, as a crash at that
moment leaves it, and runs the query again.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof

TABLE = """CREATE TABLE IF NOT EXISTS lines (
    host TEXT, file_id TEXT, offset INTEGER, value TEXT, batch INTEGER,
    PRIMARY KEY (host, file_id, offset))"""
UPSERT = """INSERT INTO lines VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (host, file_id, offset)
    DO UPDATE SET value = excluded.value, batch = excluded.batch"""


def append(log: Path, first: int, count: int) -> None:
    """Append lines ``first`` to ``first + count - 1``."""
    with log.open("a") as out:
        out.writelines(f"event {n}\n" for n in range(first, first + count))


def main() -> int:
    """Run the example; 0 when the table holds each line once after a replayed batch."""
    spark = aof.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    with tempfile.TemporaryDirectory(prefix="aof-idempotent-") as tmp:
        work = Path(tmp)
        (work / "logs").mkdir()
        database = work / "lines.db"
        batches: list[tuple[int, int]] = []  # (batch id, rows) of every batch the sink saw

        def upsert(batch: DataFrame, batch_id: int) -> None:
            rows = [
                (r["host"], r["file_id"], r["offset"], r["value"], batch_id)
                for r in batch.select("host", "file_id", "offset", "value").toLocalIterator()
            ]
            batches.append((batch_id, len(rows)))
            with sqlite3.connect(database) as db:  # one transaction per batch
                db.execute(TABLE)
                db.executemany(UPSERT, rows)

        def run() -> None:
            query = (
                aof.read_stream(spark, f"{work}/logs/app\\.log")
                .writeStream.foreachBatch(upsert)
                .option("checkpointLocation", str(work / "checkpoint"))
                .trigger(availableNow=True)
                .start()
            )
            query.awaitTermination()

        append(work / "logs" / "app.log", 0, 1000)
        run()
        append(work / "logs" / "app.log", 1000, 500)
        run()
        # A crash after the sink wrote the last batch and before Spark committed it.
        commits = work / "checkpoint" / "commits"
        last = max(int(c.name) for c in commits.iterdir() if c.name.isdigit())
        (commits / str(last)).unlink()
        (commits / f".{last}.crc").unlink(missing_ok=True)  # its checksum, which Hadoop writes
        run()  # Spark runs batch `last` again, with the same lines and ids
        replayed = [rows for batch_id, rows in batches if batch_id == last]
        with sqlite3.connect(database) as db:
            count, distinct = db.execute(
                "SELECT count(*), count(DISTINCT value) FROM lines"
            ).fetchone()
    print(f"idempotent_sink: batch {last} ran {len(replayed)} times, with {replayed} rows")
    once = len(replayed) == 2 and count == distinct == 1500
    print(f"idempotent_sink: wrote 1500 lines, the table has {count} rows, each line once: {once}")
    return 0 if once else 1


if __name__ == "__main__":
    sys.exit(main())
