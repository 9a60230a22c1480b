"""Each program of examples/ runs as a user runs it, and says that it got what it wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"
SAYS = {
    "parquet_sink.py": "the table has 2000 rows, each line once: True",
    "nginx_access_log.py": "counts per minute and status as written: True",
    "idempotent_sink.py": "the table has 1500 rows, each line once: True",
    "journal_errors.py": "warnings and errors per unit as written: True",
}


def test_every_example_is_run_here() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(SAYS)


@pytest.mark.parametrize("example", sorted(SAYS))
def test_the_example_runs(example: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert SAYS[example] in done.stdout, done.stdout
