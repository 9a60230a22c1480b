"""Encodings: the default UTF-8 against ``spark.read.text``, and UTF-16 against UTF-8."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof
from data import write_log
from throughput import _noop, _run_timed, _streaming, _text

QUERY = "`noop` of `value`"


def write_utf16(source: Path, path: Path) -> None:
    """Write ``source``'s lines as a Windows service does: UTF-16LE after a byte order mark."""
    if path.exists() and path.stat().st_mtime >= source.stat().st_mtime:
        return
    with source.open(encoding="utf-8") as text, path.open("w", encoding="utf-16") as out:
        for line in text:
            out.write(line)


def measure(spark: SparkSession, utf8: Path, utf16: Path, runs: int) -> dict[str, Any]:
    """Median seconds of each read, and the ratios: what the default and a decode cost."""
    for log in (utf8, utf16):
        subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # page cache
    lines = int(
        subprocess.run(
            ["wc", "-l", str(utf8)], capture_output=True, text=True, check=True
        ).stdout.split()[0]
    )

    def source(log: Path, encoding: str | None) -> Any:
        def make(tmp: str) -> DataFrame:
            return aof.read_stream(
                spark,
                f"{log.parent}/{log.name.replace('.', '[.]')}",
                meta_store=f"/bench/{Path(tmp).name}",
                encoding=encoding,
            ).select("value")

        return make

    results: dict[str, Any] = {
        "utf8_mb": round(utf8.stat().st_size / 1e6, 1),
        "utf16_mb": round(utf16.stat().st_size / 1e6, 1),
        "runs": runs,
        "lines": lines,
    }
    reads = {
        "text": _text(spark, utf8, _noop),
        "utf8": _streaming(spark, source(utf8, None), None, lines),
        "utf16": _streaming(spark, source(utf16, "UTF-16"), None, lines),
    }
    for name, run in reads.items():
        run()  # warm-up
        timings = [_run_timed(run) for _ in range(runs)]
        results[name] = {"seconds": round(statistics.median(t for t, _ in timings), 2)}
        batches = [b for _, b in timings if b is not None]
        if batches:
            results[name]["batch"] = round(statistics.median(batches), 2)
    results["utf8 / text"] = round(results["utf8"]["seconds"] / results["text"]["seconds"], 2)
    results["utf16 / utf8"] = round(results["utf16"]["seconds"] / results["utf8"]["seconds"], 2)
    results["utf16 / utf8 batch"] = round(results["utf16"]["batch"] / results["utf8"]["batch"], 2)
    return results


def run_in(data: Path, spark: SparkSession, gb: float, runs: int) -> dict[str, Any]:
    """Return the encodings' figures on about ``gb`` GB of UTF-8 lines, kept in ``data``."""
    utf8 = data / "encodings" / "app.log"
    write_log(utf8, int(gb * 1e9))
    utf16 = data / "encodings" / "app-utf16.log"
    write_utf16(utf8, utf16)
    return measure(spark, utf8, utf16, runs)
