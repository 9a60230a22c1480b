"""A container runtime's lines: ``format=cri`` against ``format=text`` on the same file."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof
from data import write_log
from throughput import _run_timed, _streaming

QUERY = "`noop` of `value` on CRI lines"
SPLIT_EVERY = 1000  # one line in a thousand written in two chunks, as a runtime splits long ones


def write_cri(source: Path, path: Path) -> tuple[int, int]:
    """Write ``source``'s lines as containerd does, both streams; return (lines, messages)."""
    done = path.with_name(path.name + ".done")
    if done.exists() and path.exists():
        kept = done.read_text().split()
        return int(kept[0]), int(kept[1])
    lines = messages = 0
    with source.open() as text, path.open("w") as out:
        for n, line in enumerate(text):
            stamp = f"2026-11-22T10:{n // 60000 % 60:02d}:{n // 1000 % 60:02d}.{n % 10**9:09d}Z"
            stream = "stderr" if n % 8 == 6 else "stdout"
            message = line.rstrip("\n")
            if n % SPLIT_EVERY == 0:
                half = len(message) // 2
                out.write(f"{stamp} {stream} P {message[:half]}\n")
                message = message[half:]
                lines += 1
            out.write(f"{stamp} {stream} F {message}\n")
            lines += 1
            messages += 1
    done.write_text(f"{lines} {messages}")
    return lines, messages


def measure(spark: SparkSession, log: Path, lines: int, messages: int, runs: int) -> dict[str, Any]:
    """Median seconds of the file read as text and as CRI, and the ratio: what parsing costs."""
    size_mb = log.stat().st_size / 1e6
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # warm page cache

    def source(fmt: str) -> Any:
        def make(tmp: str) -> DataFrame:
            # The message alone: `cri` adds two columns, which Spark copies as it does any.
            return aof.read_stream(
                spark,
                f"{log.parent}/{log.name.replace('.', '[.]')}",
                meta_store=f"/bench/{Path(tmp).name}",
                format=fmt,
            ).select("value")

        return make

    results: dict[str, Any] = {"file_mb": round(size_mb, 1), "runs": runs, "rows": messages}
    for fmt, rows in (("text", lines), ("cri", messages)):
        run = _streaming(spark, source(fmt), None, rows)
        run()  # warm-up
        timings = [_run_timed(run) for _ in range(runs)]
        results[fmt] = {
            "seconds": round(statistics.median(t for t, _ in timings), 2),
            "batch": round(statistics.median(b for _, b in timings if b is not None), 2),
        }
    results["cost"] = round(results["cri"]["seconds"] / results["text"]["seconds"], 2)
    results["cost batch"] = round(results["cri"]["batch"] / results["text"]["batch"], 2)
    return results


def run_in(data: Path, spark: SparkSession, gb: float, runs: int) -> dict[str, Any]:
    """Return the formats' figures on about ``gb`` GB of CRI lines, kept in ``data``."""
    text = data / "formats" / "app.log"
    write_log(text, int(gb * 1e9 * 0.8))  # the runtime's prefix adds about a quarter
    lines, messages = write_cri(text, data / "formats" / "0.log")
    return measure(spark, data / "formats" / "0.log", lines, messages, runs)
