"""What ``tail`` prints of the files there at its start: every line written after it started.

Spark takes seconds to start, and ``starting.offsets=latest`` is where each file ends at the
query's first plan: lines written meanwhile would be skipped. So ``tail`` notes each matching
file's size as it starts, reads from the start of the files written since (``ignore.older``
leaves the others at their end), and drops from its first batch the bytes each file held then.
"""

from __future__ import annotations

import glob
import os
import re
import stat
from datetime import timedelta

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as sf

from pyspark_aof._option_fields import AofOptions

# A directory component with one of these is a glob; ``{a,b}`` is not matched here. Java's glob
# matches names with a leading dot too.
_GLOB = "*?["
_GZIP = b"\x1f\x8b\x08"  # the magic number the source reads a gzip file by
_ALL = 1 << 62


def noted_at_start(options: AofOptions) -> bool:
    """Whether ``tail`` notes the sizes at its start: its defaults, and no bound on bytes.

    With a bound, bytes from before the start could come after the first batch; with the
    user's ``ignore.older``, a file written since the start could be left at its end.
    """
    bounds = (options.starting_offsets, options.ignore_older)
    return all(v is None for v in (*bounds, options.bytes_max, options.batch_bytes_max))


def sizes_now(path: str) -> dict[str, int] | None:
    """Return the size of each regular file ``path`` matches now, by its ``dev:ino``.

    Parameters
    ----------
    path : str
        As for :func:`pyspark_aof.read_stream`: directories (globs allowed), then a regex on names.

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
                sizes[f"{found.st_dev}:{found.st_ino}"] = _held(entry.path, found.st_size)
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
    if not sizes:
        return batch
    noted = spark.createDataFrame(list(sizes.items()), "start_key string, start_size long")
    key = sf.substring_index(batch["file_id"], ":", 2)
    # Broadcast, so the batch is not shuffled: its rows keep their order.
    joined = batch.join(sf.broadcast(noted), key == noted["start_key"], "left")
    kept = joined.where(sf.col("start_size").isNull() | (sf.col("offset") >= sf.col("start_size")))
    return kept.select(*batch.columns)
