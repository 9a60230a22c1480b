"""The systemd journal: entries a second read by the source, beside ``journalctl -o json``.

Both read the same journal file, written by systemd's own ``systemd-journal-remote`` with the
fields journald gives a service's line. The source reads it in one task (one sequence is one
range), ``journalctl`` in one process: each on one core, so entries a second are per core.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_aof as aof
from throughput import _run_timed, _streaming

QUERY = "`noop` of every column"
ENTRIES = 1_000_000
REMOTE = "/lib/systemd/systemd-journal-remote"
BOOT_ID = "4f0c1b5e9a7d4e2f8c3b6a1d0e9f8a7b"
UNITS = ("nginx.service", "kubelet.service", "containerd.service", "ssh.service")


def write_journal(path: Path, entries: int) -> None:
    """Write ``entries`` entries of a node's services to the journal ``path``, once."""
    done = path.with_name(path.name + ".done")
    if done.exists() and path.exists():
        return
    path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    start = 1796601335000000
    exported = path.with_name("entries.export")  # journald's export format, read by journal-remote
    with exported.open("w") as out:
        for n in range(entries):
            unit = UNITS[n % len(UNITS)]
            name = unit.split(".")[0]
            out.write(
                f"__REALTIME_TIMESTAMP={start + n}\n__MONOTONIC_TIMESTAMP={n + 1}\n"
                f"_BOOT_ID={BOOT_ID}\n_HOSTNAME=node-1\n_TRANSPORT=stdout\n_UID=0\n_GID=0\n"
                f"_SYSTEMD_UNIT={unit}\nSYSLOG_IDENTIFIER={name}\n_PID={1000 + n % 4}\n"
                f"_COMM={name}\nPRIORITY={6 if n % 50 else 3}\n"
                f"MESSAGE=request {n} served in {n % 997} ms from 10.0.{n % 256}.{n % 199}\n\n"
            )
    subprocess.run([REMOTE, f"--output={path}", str(exported)], check=True, capture_output=True)
    exported.unlink()
    done.write_text(str(entries))


def _journalctl(path: Path) -> float:
    """Seconds ``journalctl -o json`` takes to print every entry of ``path``."""
    started = time.perf_counter()
    subprocess.run(
        ["journalctl", "--file", str(path), "-o", "json", "--no-pager"],
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - started


def measure(spark: SparkSession, path: Path, entries: int, runs: int) -> dict[str, Any]:
    """Median seconds and entries a second of the source and of ``journalctl``, and the ratio."""
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # warm page cache

    def source(tmp: str) -> DataFrame:
        return aof.read_journal(
            spark, f"{path.parent}/.*\\.journal", meta_store=f"/bench/{Path(tmp).name}"
        )

    run = _streaming(spark, source, None, entries)
    run()  # warm-up
    timings = [_run_timed(run) for _ in range(runs)]
    seconds = statistics.median(t for t, _ in timings)
    batch = statistics.median(b for _, b in timings if b is not None)
    _journalctl(path)  # warm-up
    reference = statistics.median(_journalctl(path) for _ in range(runs))
    return {
        "entries": entries,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "runs": runs,
        "aof": {"seconds": round(seconds, 2), "per_s": round(entries / seconds)},
        "aof batch": {"seconds": round(batch, 2), "per_s": round(entries / batch)},
        "journalctl": {"seconds": round(reference, 2), "per_s": round(entries / reference)},
        "ratio": round(reference / seconds, 2),
        "ratio batch": round(reference / batch, 2),
    }


def run_in(data: Path, spark: SparkSession, entries: int, runs: int) -> dict[str, Any]:
    """Return the journal's figures on ``entries`` entries, their journal kept in ``data``."""
    path = data / "journal" / "remote.journal"
    write_journal(path, entries)
    return measure(spark, path, entries, runs)
