"""``tail``: stream the lines appended to matching files to stdout, like ``tail -F``."""

from __future__ import annotations

import contextlib
import signal
import sys
import tempfile
import threading
import uuid
from typing import TextIO

from pyspark.sql import DataFrame

from pyspark_aof._local_session import local_session
from pyspark_aof._options import AofOptions
from pyspark_aof._stream import read_stream
from pyspark_aof.demo import quiet_zookeeper


def _lag(progress: dict[str, object] | None) -> str:
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


def run(
    path: str,
    options: AofOptions,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    verbose: bool = False,
) -> int:
    """Print every complete line appended to the files matching ``path`` until interrupted.

    The query runs in local mode on this machine with a checkpoint of its own that is removed
    at the end, and with a ``meta.store`` of its own unless one is given, so it never touches
    another query's offset backup. Ctrl-C stops it cleanly.

    Parameters
    ----------
    path : str
        As for :func:`pyspark_aof.read_stream`.
    options : AofOptions
        Source options; ``starting_offsets`` defaults to ``latest`` here, as for ``tail -F``.
    out, err : TextIO
        Where lines and the progress display go; progress only when ``err`` is a terminal.
    verbose : bool
        Show Spark's own warnings and progress bars too.

    Returns
    -------
    int
        0 after a clean stop.

    """
    own_store = options.meta_store is None
    if own_store:
        options = options.with_changes(meta_store=f"/aof-tail/{uuid.uuid4()}")
    if options.starting_offsets is None:
        options = options.with_changes(starting_offsets="latest")
    spark = local_session("tail", verbose)
    quiet_zookeeper(spark)
    show_progress = err.isatty()

    def show(batch: DataFrame, batch_id: int) -> None:
        for row in batch.select("value").toLocalIterator():
            out.write(row["value"] + "\n")
        out.flush()

    with tempfile.TemporaryDirectory(prefix="aof-tail-") as checkpoint:
        query = (
            read_stream(spark, path, options=options)
            .writeStream.foreachBatch(show)
            .option("checkpointLocation", checkpoint)
            .trigger(processingTime="250 milliseconds")
            .start()
        )
        # Ctrl-C only asks to stop: raised inside a call into the JVM it would break that call.
        stop = threading.Event()
        previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
        try:
            while query.isActive and not stop.is_set():
                query.awaitTermination(1)
                if show_progress:
                    err.write("\r\033[K" + _lag(query.lastProgress))
                    err.flush()
        finally:
            signal.signal(signal.SIGINT, previous)
            if show_progress:
                err.write("\n")
            query.stop()
            spark.stop()
    if own_store and options.zookeeper_address:
        _remove(options)
    return 0


def _remove(options: AofOptions) -> None:
    """Remove the tail's own meta store (its offset backup) from an external ZooKeeper."""
    from kazoo.client import KazooClient
    from kazoo.exceptions import NotEmptyError

    auth = None
    if options.zookeeper_auth_user and options.zookeeper_auth_password:
        auth = [("digest", f"{options.zookeeper_auth_user}:{options.zookeeper_auth_password}")]
    zk = KazooClient(hosts=options.zookeeper_address, auth_data=auth)
    zk.start(timeout=20)
    try:
        zk.delete(str(options.meta_store), recursive=True)
        with contextlib.suppress(NotEmptyError):  # other tails still running
            zk.delete("/aof-tail")
    finally:
        zk.stop()
        zk.close()
