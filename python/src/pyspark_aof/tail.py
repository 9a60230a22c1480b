"""``tail``: stream the lines appended to matching files to stdout, like ``tail -F``."""

from __future__ import annotations

import contextlib
import posixpath
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TextIO

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming.query import StreamingQuery

from pyspark_aof._arguments import read_as_regex
from pyspark_aof._errors import INTERRUPTED, CommandError, UsageError, spark_message
from pyspark_aof._local_session import interrupts_deferred, local_session
from pyspark_aof._option_fields import AofOptions
from pyspark_aof._output import discard, progress_line, reader_gone
from pyspark_aof._since_start import Start, not_older_than, note_start, written_since
from pyspark_aof._stream import read_stream
from pyspark_aof._zk_client import connected
from pyspark_aof.demo import quiet_zookeeper
from pyspark_aof.status import command_for

# A local session has py4j, whose errors PySpark converts for most of Spark's exceptions only.
_SPARK_ERRORS = (PySparkException, Py4JJavaError)


WILDCARDS = "*?[{"
"""The characters that make a directory component of a path a glob, as the JVM side takes them."""


def missing_directory(path: str) -> str | None:
    """Say why the directory of ``path`` cannot be watched yet, or return ``None`` when it can.

    The directory is the part of ``path`` before its last ``/``, normalised as the source does,
    up to its first component with a wildcard (``*``, ``?``, ``[`` or ``{``); the source waits
    for it to appear.

    Parameters
    ----------
    path : str
        As for :func:`pyspark_aof.read_stream`, absolute.

    Returns
    -------
    str or None
        ``"/no/such/dir does not exist (yet)"`` or ``"/a/file is not a directory"``.

    """
    directory = posixpath.normpath(posixpath.dirname(path) or "/")
    parts = directory.split("/")
    literal = next((i for i, p in enumerate(parts) if any(c in p for c in WILDCARDS)), len(parts))
    directory = "/".join(parts[:literal]) or "/"
    if posixpath.isdir(directory):
        return None
    state = "is not a directory" if posixpath.exists(directory) else "does not exist (yet)"
    return f"{directory} {state}"


def run(
    path: str,
    options: AofOptions,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    verbose: bool = False,
    start: Start | None = None,
) -> int:
    """Print every complete line appended to the files matching ``path`` until interrupted.

    The query runs in local mode on this machine with a checkpoint of its own that is removed
    at the end, and with a ``meta.store`` of its own unless one is given, so it never touches
    another query's offset backup. Ctrl-C or SIGTERM stops it cleanly, even while Spark starts.

    Parameters
    ----------
    path : str
        As for :func:`pyspark_aof.read_stream`. A directory that does not exist yet gets a
        warning on ``err``; the tail waits for it.
    options : AofOptions
        Source options; ``starting_offsets`` defaults to ``latest`` here, as for ``tail -F``.
    out, err : TextIO
        Where lines and the progress display go; progress only when ``err`` is a terminal.
    verbose : bool
        Show Spark's own warnings and progress bars too, and the ``status`` command that shows
        the tail's files.
    start : Start, optional
        The command's start, noted before PySpark was loaded; now when omitted (a call of a
        process that began long ago).

    Returns
    -------
    int
        0 after a clean stop, :data:`INTERRUPTED` when Ctrl-C came before the query ran.

    Raises
    ------
    UsageError
        When Spark refuses ``path`` or an option (a file-name regex that does not compile).
    CommandError
        When Spark does not start, or the query fails (with the JVM's message on one line).

    """
    # New lines only, including those written while Spark starts: see _since_start.
    start = start or note_start(path, options, process=False)
    sizes = start.as_it_began()  # PySpark is loaded: no need to hurry now
    own_store = options.meta_store is None
    if own_store:
        options = options.with_changes(meta_store=f"/aof-tail/{uuid.uuid4()}")
    if sizes is not None:  # and ignore.older once Spark has started
        options = options.with_changes(starting_offsets="earliest")
    elif options.starting_offsets is None:
        options = options.with_changes(starting_offsets="latest")
    missing = missing_directory(path) if path.startswith("/") else None
    if missing:
        err.write(f"pyspark-aof tail: warning: {missing}; watching for it\n")
        err.flush()
    otherwise = read_as_regex(path) if path.startswith("/") else None
    if otherwise:
        err.write(f"pyspark-aof tail: warning: {otherwise}\n")
        err.flush()
    # Ctrl-C only asks to stop, from here to the end: see interrupts_deferred.
    status = 0  # a stop with the JVM stopped by the same signal (its process group's) ends here
    with interrupts_deferred() as stop:
        try:
            with local_session("tail", verbose, stop) as spark:
                if stop.is_set():
                    return INTERRUPTED
                if sizes is not None:
                    since = not_older_than(time.monotonic() - start.at)
                    options = options.with_changes(ignore_older=since)
                status = _tail(spark, path, options, sizes, out, err, stop, verbose)
        except KeyboardInterrupt:  # pressed while Spark started, which it has then stopped
            return INTERRUPTED
    if own_store and options.zookeeper_address:
        try:
            _remove(options)
        except CommandError as e:  # a login Python cannot make (a JKS store, say)
            err.write(f"pyspark-aof tail: warning: left {options.meta_store} in ZooKeeper: {e}\n")
    return status


def _tail(
    spark: SparkSession,
    path: str,
    options: AofOptions,
    sizes: dict[str, int] | None,
    out: TextIO,
    err: TextIO,
    stop: threading.Event,
    verbose: bool,
) -> int:
    """Run the query until ``stop`` is set; return the exit status."""
    quiet_zookeeper(spark)
    new_only = "(new lines only; --starting-offsets earliest for all)"
    if sizes is not None:
        start = f"where each file ended as the command started {new_only}"
    elif options.starting_offsets == "latest":
        start = f"the end of each file {new_only}"
    else:
        start = "the start of each file"
    said = False
    saying = threading.Lock()  # the batches' thread and this one

    def say_reading() -> None:
        """Say where the lines come from, once: before the first line, or at the first batch."""
        nonlocal said
        with saying:
            if not said:
                said = True
                err.write(f"pyspark-aof tail: reading {path} from {start}\n")
                err.flush()

    def state(progress: dict[str, Any]) -> str:
        # Only the query knows the port of an embedded server.
        command = command_for(progress, options.zookeeper_auth_user)
        return f"pyspark-aof tail: its state: {command}\n" if verbose else ""

    with tempfile.TemporaryDirectory(prefix="aof-tail-") as checkpoint:
        query = _start(spark, path, options, sizes, checkpoint, out, stop, say_reading)
        status = INTERRUPTED if stop.is_set() else 0
        try:
            _follow(query, stop, out, err, say_reading, state)
        finally:
            query.stop()
    return status


def _start(
    spark: SparkSession,
    path: str,
    options: AofOptions,
    sizes: dict[str, int] | None,
    checkpoint: str,
    out: TextIO,
    stop: threading.Event,
    before_lines: Callable[[], None],
) -> StreamingQuery:
    """Start the query that prints each batch's lines to ``out``, until its reader goes.

    With ``sizes``, the first batch's lines of bytes the files held at the start are not.
    """

    def show(batch: DataFrame, batch_id: int) -> None:
        if sizes and batch_id == 0:
            batch = written_since(batch, sizes, spark)
        try:
            for row in batch.select("value").toLocalIterator():
                before_lines()
                out.write(row["value"] + "\n")
            out.flush()
        except BrokenPipeError:  # ``| head``: stop quietly, as tail -F does
            discard(out)
            stop.set()

    try:
        lines = read_stream(spark, path, options=options)
    except ValueError as e:  # the source checks path and options as it is defined
        raise UsageError(str(e)) from None
    try:
        return (
            lines.writeStream.foreachBatch(show)
            .option("checkpointLocation", checkpoint)
            .trigger(processingTime="250 milliseconds")
            .start()
        )
    except _SPARK_ERRORS as e:
        raise CommandError(f"the query did not start: {spark_message(e)}") from None


def _follow(
    query: StreamingQuery,
    stop: threading.Event,
    out: TextIO,
    err: TextIO,
    say_reading: Callable[[], None],
    state: Callable[[dict[str, Any]], str],
) -> None:
    """Wait for Ctrl-C or ``out``'s reader to go, showing progress on ``err`` if a terminal.

    Once the query has run its first batch, ``say_reading`` is called (unless a line came
    first), and what ``state`` makes of the progress is said on ``err``.

    Raises
    ------
    CommandError
        When the query fails.

    """
    show_progress = err.isatty()
    failure: BaseException | None = None
    stated = False
    try:
        while query.isActive and not stop.is_set():
            query.awaitTermination(1)
            if not stated and query.lastProgress is not None:
                say_reading()
                err.write(state(query.lastProgress))
                err.flush()
                stated = True
            if reader_gone(out):  # ``| head -3`` has its lines: no write is needed to stop
                discard(out)
                stop.set()
            elif show_progress:
                err.write("\r\033[K" + progress_line(query.lastProgress))
                err.flush()
        if not stop.is_set():  # it failed between two waits, which then did not raise
            failure = query.exception()
    except _SPARK_ERRORS as e:
        failure = e
    finally:
        if show_progress:
            err.write("\n")
    if failure is not None and not stop.is_set():  # the stop asked for, the JVM's too
        raise CommandError(f"the query failed: {spark_message(failure)}")


def _remove(options: AofOptions) -> None:
    """Remove the tail's own meta store (its offset backup) from an external ZooKeeper."""
    from kazoo.exceptions import NoNodeError, NotEmptyError

    with connected(str(options.zookeeper_address), options, timeout=20) as zk:
        with contextlib.suppress(NoNodeError):  # stopped before its query wrote anything
            zk.delete(str(options.meta_store), recursive=True)
        with contextlib.suppress(NotEmptyError, NoNodeError):  # other tails still running
            zk.delete("/aof-tail")
