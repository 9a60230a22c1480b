"""The node's files for the node-cost benchmark: quiet files, and a writer that rotates its log.

``python node_writer.py DIRECTORY RATE [ROTATE_SECONDS]`` appends ``RATE`` lines a second to
``DIRECTORY/app.log``, each line of 100 bytes a write of its own (a logger that flushes every
event), and every ``ROTATE_SECONDS`` (10) rotates it as ``logrotate`` with ``rotate 2`` does
(``app.log.1`` to ``app.log.2``, over the one before, then ``app.log`` to ``app.log.1``) and writes
on into a new ``app.log``, until SIGTERM; then it prints how many lines it wrote. Each line
starts with its id: ``<n:010d>`` for the writer's, ``q<file>-<line>`` for the quiet files';
readers' outputs are checked against those ids (:func:`tally`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

LINE_BYTES = 100
QUIET_LINES = 10  # lines in each quiet file: a log written once, then left alone
ROTATE_SECONDS = 10.0


def line(line_id: str) -> bytes:
    """Return a line of :data:`LINE_BYTES` bytes, its end of line included, led by ``line_id``."""
    text = f"{line_id} INFO request served, nothing to see".ljust(LINE_BYTES - 1, ".")
    return text.encode() + b"\n"


def line_id(text: str) -> str:
    """Return the id a line starts with, from the line as a reader gave it."""
    return text.strip().split(" ", 1)[0]


def quiet_file(directory: Path, i: int, directories: int) -> Path:
    """Return the ``i``-th quiet file, ``quiet-NNNNN.log``, in ``directory/dNNN/`` if several."""
    parent = directory if directories == 1 else directory / f"d{i % directories:03d}"
    return parent / f"quiet-{i:05d}.log"


def write_quiet(directory: Path, files: int, directories: int) -> set[str]:
    """Write ``files`` quiet files over ``directories``; return the ids of their lines."""
    ids = set()
    for i in range(files):
        path = quiet_file(directory, i, directories)
        path.parent.mkdir(parents=True, exist_ok=True)
        names = [f"q{i:05d}-{k:02d}" for k in range(QUIET_LINES)]
        path.write_bytes(b"".join(line(n) for n in names))
        ids.update(names)
    return ids


def written_ids(count: int) -> set[str]:
    """Return the ids of the writer's first ``count`` lines."""
    return {f"{n:010d}" for n in range(count)}


def tally(found: Iterable[str], expected: set[str]) -> dict[str, int]:
    """Lines a reader delivered against those written: counted, lost, duplicated, unknown."""
    seen = Counter(found)
    return {
        "written": len(expected),
        "counted": sum(seen.values()),
        "lost": len(expected - seen.keys()),
        "duplicated": sum(n - 1 for n in seen.values()),
        "unknown": sum(n for i, n in seen.items() if i not in expected),
    }


class Writer:
    """The writer of this module in a process of its own, appending to ``directory/app.log``."""

    def __init__(self, directory: Path, rate: int, rotate: float = ROTATE_SECONDS) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(directory), str(rate), str(rotate)],
            stdout=subprocess.PIPE,
            text=True,
        )
        self._written: int | None = None

    def stop(self) -> int:
        """Stop the writer, if it still runs; return how many lines it wrote."""
        if self._written is None:
            self._process.send_signal(signal.SIGTERM)
            out, _ = self._process.communicate(timeout=30)
            self._written = int(out.strip())
        return self._written


def _write(directory: Path, rate: int, rotate: float) -> int:
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    log, rotated, older = directory / "app.log", directory / "app.log.1", directory / "app.log.2"
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    out = os.open(log, flags, 0o644)
    started = time.monotonic()
    rotation = started + rotate
    n = 0
    while not stopping:
        now = time.monotonic()
        if now >= rotation:
            os.close(out)
            if rotated.exists():
                os.rename(rotated, older)
            os.rename(log, rotated)
            out = os.open(log, flags, 0o644)
            rotation += rotate
        due = int((now - started) * rate)
        while n < due:
            os.write(out, line(f"{n:010d}"))
            n += 1
        time.sleep(0.001)
    os.close(out)
    return n


if __name__ == "__main__":
    rotate = float(sys.argv[3]) if len(sys.argv) > 3 else ROTATE_SECONDS
    print(_write(Path(sys.argv[1]), int(sys.argv[2]), rotate), flush=True)
