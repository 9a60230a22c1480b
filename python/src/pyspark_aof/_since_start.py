"""What ``tail`` prints of the files there at its start: every line written after it started.

Spark takes seconds to start, and ``starting.offsets=latest`` is where each file ends at the
query's first plan: lines written meanwhile would be skipped. So ``tail`` notes each matching
file's size as it starts, reads from the start of the files written since (``ignore.older``
leaves the others at their end), and drops from its first batch the bytes each file held then.

The sizes are noted before PySpark is loaded, some tens of milliseconds after the process began
(Python's own start). A file written since the process began is taken back by what it grew in
that time, estimated at twice its growth rate over the next half second, and at least to its
last line: a line written as the command began is printed rather than missed.
"""

from __future__ import annotations

import glob
import os
import re
import stat
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from pyspark_aof._option_fields import AofOptions

if TYPE_CHECKING:  # PySpark is loaded only once the sizes are noted
    from pyspark.sql import DataFrame, SparkSession

# A directory component with one of these is a glob; ``{a,b}`` is not matched here. Java's glob
# matches names with a leading dot too.
_GLOB = "*?["
_GZIP = b"\x1f\x8b\x08"  # the magic number the source reads a gzip file by
_ALL = 1 << 62
_LAST_LINE_MAX = 64 * 1024


@dataclass(frozen=True)
class Start:
    """The start of ``tail``: what it noted before loading PySpark.

    ``at`` is when (``time.monotonic()``), ``sizes`` each file's size then (``None``: not
    noted), ``lag`` how long after its process began, ``written`` the path of each file
    (``dev:ino``) written since it began.
    """

    at: float
    sizes: dict[str, int] | None
    lag: float = 0.0
    written: dict[str, str] | None = None

    def as_it_began(self) -> dict[str, int] | None:
        """Return the sizes, each file written since the process began taken back to then."""
        if not self.sizes or not self.written:
            return self.sizes
        growth = max(time.monotonic() - self.at, 1e-3)
        sizes = dict(self.sizes)
        for key, path in self.written.items():
            try:
                grown = max(0, os.stat(path).st_size - sizes[key])
            except OSError:  # gone since: the source says what became of it
                grown = 0
            back = int(2 * grown * self.lag / growth)
            sizes[key] = max(0, min(sizes[key] - back, _last_line(path, sizes[key])))
        return sizes


def note_start(path: str, options: AofOptions, process: bool = True) -> Start:
    """Note the start: each matching file's size, where :func:`noted_at_start` says to.

    The start is the process's, unless not ``process``: then it is now.
    """
    at = time.monotonic()
    if not noted_at_start(options):
        return Start(at, None)
    lag = _process_age() if process else 0.0
    began = time.time() - lag
    written: dict[str, str] = {}
    return Start(at, sizes_now(path, began, written), lag, written)


def _process_age() -> float:
    """Return the seconds since this process began, from Linux's ``/proc``; 0 elsewhere."""
    try:
        with open("/proc/self/stat") as f:
            began_ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # its 22nd field
        with open("/proc/uptime") as f:
            up = float(f.read().split()[0])
        return max(0.0, up - began_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def _last_line(path: str, size: int) -> int:
    """Return where the last line before ``size`` begins (``size`` itself if none is found)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, size - _LAST_LINE_MAX))
            before = f.read(min(size, _LAST_LINE_MAX))
    except OSError:
        return size
    end = before.rfind(b"\n", 0, len(before) - 1)
    return size - len(before) + end + 1 if end >= 0 or size <= _LAST_LINE_MAX else size


def noted_at_start(options: AofOptions) -> bool:
    """Whether ``tail`` notes the sizes at its start: its defaults, and no bound on bytes.

    With a bound, bytes from before the start could come after the first batch; with the
    user's ``ignore.older``, a file written since the start could be left at its end.
    """
    bounds = (options.starting_offsets, options.ignore_older)
    return all(v is None for v in (*bounds, options.bytes_max, options.batch_bytes_max))


def sizes_now(
    path: str, since: float = float("inf"), written: dict[str, str] | None = None
) -> dict[str, int] | None:
    """Return the size of each regular file ``path`` matches now, by its ``dev:ino``.

    Parameters
    ----------
    path : str
        As for :func:`pyspark_aof.read_stream`: directories (globs allowed), then a regex on names.
    since : float, optional
        A time (``time.time()``): the plain files modified since go into ``written``.
    written : dict, optional
        Given the path of each such file, by its ``dev:ino``.

    Returns
    -------
    dict or None
        ``None`` when Python cannot match as the source does: a ``{a,b}`` in a directory, or a
        name regex that Python's ``re`` does not take.

    """
    directory, _, name = os.path.abspath(path).rpartition("/")
    directory = directory or "/"
    if "{" in directory:
        return None
    try:
        regex = re.compile(name)
    except re.error:
        return None
    directories = (
        glob.glob(directory, recursive=True, include_hidden=True)
        if any(c in directory for c in _GLOB)
        else [directory]
    )
    sizes: dict[str, int] = {}
    for d in directories:
        try:
            entries = list(os.scandir(d))
        except OSError:  # not there (yet), or not a directory
            continue
        for entry in entries:
            if not regex.fullmatch(entry.name):
                continue
            try:
                found = entry.stat(follow_symlinks=False)
            except OSError:  # gone since it was listed
                continue
            if stat.S_ISREG(found.st_mode):
                key = f"{found.st_dev}:{found.st_ino}"
                sizes[key] = _held(entry.path, found.st_size)
                if written is not None and found.st_mtime >= since and sizes[key] < _ALL:
                    written[key] = entry.path
    return sizes


def _held(path: str, size: int) -> int:
    """Return where a file's lines from before the start end, in the source's offsets.

    A gzip file's offsets count the bytes it decompresses to, and a compressed file holds lines
    from before the start only: all of them.
    """
    try:
        with open(path, "rb") as f:
            return _ALL if f.read(len(_GZIP)) == _GZIP else size
    except OSError:  # unreadable: the source says so, and reads nothing of it
        return size


def not_older_than(seconds: float) -> timedelta:
    """Return ``ignore.older`` for a query defined ``seconds`` after the sizes were taken.

    A file not written to since well before the start is left at its end. One written to since
    is read from its start, and :func:`written_since` drops what it held when the sizes were
    taken. The query's first look comes seconds after its definition (its ZooKeeper, its
    endpoint): five minutes more leave no file written since the start at its end.
    """
    return timedelta(seconds=int(seconds) + 300)


def written_since(batch: DataFrame, sizes: dict[str, int], spark: SparkSession) -> DataFrame:
    """Return the rows of ``batch`` (the first) written to their file after ``sizes`` were taken.

    A file's id is ``dev:ino:serial``: a row of a file that ``sizes`` has is kept from the size
    noted on. Only the first batch holds bytes from before the start: later, a file given a
    noted file's freed inode would lose its first lines.
    """
    from pyspark.sql import functions as sf

    if not sizes:
        return batch
    noted = spark.createDataFrame(list(sizes.items()), "start_key string, start_size long")
    key = sf.substring_index(batch["file_id"], ":", 2)
    # Broadcast, so the batch is not shuffled: its rows keep their order.
    joined = batch.join(sf.broadcast(noted), key == noted["start_key"], "left")
    kept = joined.where(sf.col("start_size").isNull() | (sf.col("offset") >= sf.col("start_size")))
    return kept.select(*batch.columns)
