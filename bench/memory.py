"""Peak resident memory of a 1 GB driver (local mode) reading a large file, ``bytes.max`` unset.

Run as its own process, so the driver memory setting applies: ``python memory.py FILE``. Prints
one JSON line: the JVM's peak RSS, and its RSS sampled every second while it read.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyspark_aof as aof
from session import local_session


def _rss_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def main() -> None:
    """Read the file given as the first argument once and print the memory figures."""
    log = Path(sys.argv[1])
    spark = local_session(driver_memory="1g")
    pid = spark.sparkContext._gateway.proc.pid  # type: ignore[union-attr]
    samples: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(1.0):
            samples.append(_rss_kb(pid, "VmRSS"))

    threading.Thread(target=sample, daemon=True).start()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aof-bench-") as tmp:
        query = (
            aof.read_stream(
                spark,
                f"{log.parent}/{log.name.replace('.', '[.]')}",
                meta_store=f"/bench/{Path(tmp).name}",
            )
            .select("value")
            .writeStream.format("noop")
            .option("checkpointLocation", tmp)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
    seconds = time.perf_counter() - started
    done.set()
    print(
        json.dumps(
            {
                "file_gb": round(log.stat().st_size / 1e9, 1),
                "seconds": round(seconds, 1),
                "peak_rss_mb": _rss_kb(pid, "VmHWM") // 1024,
                "rss_mb_samples": [s // 1024 for s in samples],
            }
        )
    )
    spark.stop()


if __name__ == "__main__":
    main()
