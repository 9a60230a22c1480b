"""``tail``'s output: whether its reader is there, where it goes when not; its progress line."""

from __future__ import annotations

import contextlib
import os
import select
from typing import TextIO


def discard(out: TextIO) -> None:
    """Send what is still written to ``out`` nowhere, its reader gone.

    Python flushes standard output once more at exit, and would report the broken pipe then.
    """
    with contextlib.suppress(OSError, ValueError):  # not a file of the system's: nothing to do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)


def reader_gone(out: TextIO) -> bool:
    """Whether ``out`` is a pipe or terminal whose reader has gone (closed, hung up)."""
    try:
        fd = out.fileno()
    except (OSError, ValueError):  # not a file of the system's
        return False
    poller = select.poll()
    poller.register(fd, 0)  # errors and hang-ups are always reported
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def progress_line(progress: dict[str, object] | None) -> str:
    """One status line from a query progress: batch, rows and bytes still to read."""
    if not progress:
        return "aof tail: starting"
    sources = progress.get("sources")
    metrics = sources[0].get("metrics", {}) if isinstance(sources, list) and sources else {}
    behind = metrics.get("bytesBehindLatest", "?")
    return (
        f"aof tail: batch {progress.get('batchId')}, {progress.get('numInputRows')} lines, "
        f"{behind} bytes behind"
    )
