"""The README's main job, run as a newcomer runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_demo_reads_every_line_exactly_once(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pyspark_aof", "demo", "--seconds", "6", "--rate", "1000"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("demo: wrote "), summary
    assert summary.endswith("each exactly once: yes"), summary
    assert "rotated service.log" in result.stdout
    # Its own output only: none of Spark's start-up warnings, log hints or progress bars.
    assert result.stderr == "", result.stderr[-3000:]
    assert list(tmp_path.glob("pyspark-aof-*")) == [], "its log was left behind"


def test_demo_verbose_says_how_to_see_its_state(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyspark_aof",
            "demo",
            "--seconds",
            "3",
            "--rate",
            "200",
            "--verbose",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    said = [line for line in result.stdout.splitlines() if line.startswith("demo: its state: ")]
    assert len(said) == 1, result.stdout
    assert "pyspark-aof status --zookeeper " in said[0] and " --meta-store /aof/" in said[0]
