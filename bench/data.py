"""Deterministic log files for the benchmarks: the same bytes on every run and machine."""

from __future__ import annotations

import shutil
from pathlib import Path

_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "INFO", "ERROR", "INFO")
# One line in a hundred at ERROR, for the line filters: what an alert on errors selects.
_RARE_ERRORS = tuple(
    "ERROR" if n == 0 else _LEVELS[n % 8].replace("ERROR", "INFO") for n in range(100)
)
_PATHS = ("/api/v1/items", "/api/v1/users", "/health", "/api/v2/search?q=spark", "/login")


def _line(n: int, levels: tuple[str, ...] = _LEVELS) -> str:
    """One access-log-like line of about 120 bytes, a function of ``n`` alone."""
    seconds = n // 1000
    return (
        f"2026-11-22T{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}."
        f"{n % 1000:03d}Z {levels[n % len(levels)]} [worker-{n % 16}] request id={n:010d} "
        f"path={_PATHS[n % 5]}/{n % 9973} status={200 if n % 50 else 500} took={n * 7 % 997}ms\n"
    )


def write_log(path: Path, size_bytes: int, rare_errors: bool = False) -> int:
    """Write (or keep, when already complete) a log of at least ``size_bytes``; return its lines.

    A marker file beside it records a finished write, so an interrupted one is redone. With
    ``rare_errors``, one line in a hundred is at ERROR (else one in eight), and no other holds it.
    """
    levels = _RARE_ERRORS if rare_errors else _LEVELS
    done = path.with_name(path.name + ".done")
    if done.exists() and path.exists() and path.stat().st_size >= size_bytes:
        return int(done.read_text())
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    written = 0
    with path.open("w") as out:
        while written < size_bytes:
            block = "".join(_line(i, levels) for i in range(n, n + 10000))
            out.write(block)
            written += len(block)
            n += 10000
    done.write_text(str(n))
    return n


def repeat_log(source: Path, path: Path, size_bytes: int) -> None:
    """Write ``source`` over and over into ``path`` until it holds ``size_bytes`` (kept if so)."""
    if path.exists() and path.stat().st_size >= size_bytes:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        while out.tell() < size_bytes:
            with source.open("rb") as chunk:
                shutil.copyfileobj(chunk, out, 1 << 24)


def many_file(directory: Path, i: int, directories: int = 1) -> Path:
    """Return the ``i``-th file of :func:`write_many`, in ``directory`` or ``directory/dNNNN/``."""
    parent = directory if directories == 1 else directory / f"d{i % directories:04d}"
    return parent / f"app-{i:05d}.log"


def write_many(directory: Path, count: int, directories: int = 1) -> None:
    """``count`` small log files of one line each (for the planning cost), over ``directories``."""
    for i in range(count):
        f = many_file(directory, i, directories)
        if not f.exists():
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(_line(i))
