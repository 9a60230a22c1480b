"""The warnings and errors of a node's services, from its systemd journal, counted per unit.

Run it with ``python examples/journal_errors.py``. On a node the source reads journald's own
files (``aof.read_journal(spark)``); here a journal is written with systemd's
``systemd-journal-remote`` (Debian's package of that name), so the example runs anywhere.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof

REMOTE = "/lib/systemd/systemd-journal-remote"
BOOT_ID = "0123456789abcdef0123456789abcdef"
# unit -> the priority of each of its entries, 0 (emerg) to 7 (debug)
WRITTEN = {"web.service": [6, 4, 6, 3, 6, 6, 4], "db.service": [6, 6, 3, 3, 2]}


def journal(file: Path, entries: dict[str, list[int]]) -> dict[str, int]:
    """Append ``entries`` to the journal ``file``; return the warnings and worse per unit."""
    now = time.time_ns() // 1000
    exported = []
    for unit, priorities in entries.items():
        for n, priority in enumerate(priorities):
            now += 1
            exported.append(
                f"__REALTIME_TIMESTAMP={now}\n__MONOTONIC_TIMESTAMP={now}\n_BOOT_ID={BOOT_ID}\n"
                f"_SYSTEMD_UNIT={unit}\nPRIORITY={priority}\nMESSAGE={unit} message {n}\n\n"
            )
    subprocess.run(
        [REMOTE, f"--output={file}", "-"],
        input="".join(exported),
        text=True,
        check=True,
        capture_output=True,
    )
    return {u: sum(p <= 4 for p in ps) for u, ps in entries.items()}


def read_all(spark: SparkSession, tmp: str, keep: Callable[[DataFrame, int], None]) -> None:
    """Read what the journal holds now, from where the last run stopped, then stop."""
    # On a node: aof.read_journal(spark, journal_priority="warning") reads journald's own files.
    entries = aof.read_journal(spark, f"{tmp}/.*\\.journal", journal_priority="warning")
    writer = entries.writeStream.foreachBatch(keep).option("checkpointLocation", f"{tmp}/cp")
    writer.trigger(availableNow=True).start().awaitTermination()


def main() -> int:
    """Run the example; 0 when every unit's count is the one written."""
    spark = aof.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    counts: dict[str, int] = {}

    def keep(batch: DataFrame, batch_id: int) -> None:
        for row in batch.groupBy("unit").count().collect():
            counts[row["unit"]] = counts.get(row["unit"], 0) + row["count"]

    with tempfile.TemporaryDirectory(prefix="aof-journal-") as tmp:
        file = Path(tmp, "remote.journal")
        expected = journal(file, WRITTEN)
        read_all(spark, tmp, keep)
        # More entries, and the query run again on its checkpoint: it reads only those.
        for unit, n in journal(file, {"web.service": [3, 6], "db.service": [4]}).items():
            expected[unit] += n
        read_all(spark, tmp, keep)
    print(*(f"journal_errors: {u}: {n} warnings and errors" for u, n in sorted(counts.items())))
    print(f"journal_errors: warnings and errors per unit as written: {counts == expected}")
    return int(counts != expected)


if __name__ == "__main__":
    sys.exit(main())
