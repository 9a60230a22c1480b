"""The README's main job, run as a newcomer runs it."""

from __future__ import annotations

import subprocess
import sys


def test_demo_reads_every_line_exactly_once() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pyspark_aof", "demo", "--seconds", "6", "--rate", "1000"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("demo: wrote "), summary
    assert summary.endswith("each exactly once: yes"), summary
    assert "rotated service.log" in result.stdout
    # Its own output only: none of Spark's start-up warnings, log hints or progress bars.
    assert result.stderr == "", result.stderr[-3000:]
