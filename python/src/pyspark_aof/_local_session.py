"""The command line's own local Spark session, which shows the command's output only."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socketserver
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession

from pyspark_aof._errors import CommandError, spark_message
from pyspark_aof._jar import configure

# What a call into a JVM that is gone raises: Py4J's errors, PySpark's, a refused connection.
_JVM_GONE = (Py4JError, PySparkException, ConnectionError)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[threading.Event]:
    """Make Ctrl-C (SIGINT) and SIGTERM only set the event yielded, for the ``with`` block.

    Raised inside a call into the JVM, a ``KeyboardInterrupt`` breaks that call; raised while
    the JVM starts, it ends Python before the JVM (which ignores SIGINT) has reported to it, and
    the JVM then waits for its driver for ever. The block checks the event instead, at points
    where stopping is safe. Outside the main thread, where Python cannot take signals, nothing
    changes.

    Yields
    ------
    threading.Event
        Set once Ctrl-C was pressed, or SIGTERM came.

    """
    asked = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield asked
        return
    # SIGTERM (``kill``, a service manager's stop) asks the same: a clean stop, nothing left.
    stops = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, lambda signum, frame: asked.set()) for s in stops}
    try:
        yield asked
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def local_session(
    command: str, verbose: bool = False, stopping: threading.Event | None = None
) -> Iterator[SparkSession]:
    """Run the ``with`` block in a local session for ``command``, stopped at its end.

    Spark's JVM writes its start-up notes (a loopback host name, native libraries, log level
    hints, the JVM's own module warnings), its log and its progress bars to the standard error
    it inherits. Unless ``verbose``, it inherits a log file instead:
    ``pyspark-aof-<command>-<pid>.log`` in the temporary directory, removed when the block ends
    normally and kept when it raises (what Spark said about the failure).

    A Ctrl-C while the session starts takes effect once it has started: the session is stopped
    and :class:`KeyboardInterrupt` raised then, so that no JVM is left behind.

    Parameters
    ----------
    command : str
        The command's name, for the application's name and the log's.
    verbose : bool
        Show Spark's warnings and progress bars on standard error.
    stopping : threading.Event, optional
        Set when the command was asked to stop (see :func:`interrupts_deferred`). A signal to
        the whole process group (a terminal's, ``timeout``'s, systemd's) stops the JVM too, and
        the block's calls into it then fail: once this is set, that is a clean stop.

    Yields
    ------
    SparkSession
        A ``local[2]`` session with the connector on its classpath.

    Raises
    ------
    KeyboardInterrupt
        When Ctrl-C was pressed while the session started (it is stopped).
    CommandError
        When Spark does not start, Java missing for one.

    """
    log = Path(tempfile.gettempdir()) / f"pyspark-aof-{command}-{os.getpid()}.log"
    with interrupts_deferred() as interrupted:
        try:
            spark = _start(command, None if verbose else log)
        except PySparkException as e:  # no Java, for one: the JVM's own words are in its output
            where = "" if verbose else f"; its output is in {log}"
            raise CommandError(
                f"Spark did not start: {spark_message(e).rstrip('.')}{where}"
            ) from None
    if interrupted.is_set():
        spark.stop()
        log.unlink(missing_ok=True)
        raise KeyboardInterrupt
    asked = stopping or threading.Event()
    try:
        with _connections_end_quietly(asked):
            yield spark
    except _JVM_GONE:
        if not asked.is_set():
            raise
    finally:
        _stop(spark, asked)
    log.unlink(missing_ok=True)


@contextlib.contextmanager
def _connections_end_quietly(asked: threading.Event) -> Iterator[None]:
    """Drop what this process says of its connections to a JVM gone, once asked to stop.

    A JVM stopped by the same signal closes them mid-read. PySpark's accumulator server, a
    ``socketserver`` in this process (the command's only one), prints the ``EOFError``'s
    traceback (``BaseServer.handle_error``); Py4J logs its failed call on the root logger.
    """
    said = socketserver.BaseServer.handle_error

    def handle_error(server: socketserver.BaseServer, request: object, address: object) -> None:
        if not (asked.is_set() and isinstance(sys.exc_info()[1], (EOFError, ConnectionError))):
            said(server, request, address)  # type: ignore[arg-type]

    def py4j_at_a_stop(record: logging.LogRecord) -> bool:
        return not (asked.is_set() and f"{os.sep}py4j{os.sep}" in record.pathname)

    socketserver.BaseServer.handle_error = handle_error  # type: ignore[method-assign,assignment]
    logging.getLogger().addFilter(py4j_at_a_stop)
    try:
        yield
    finally:
        if not asked.is_set():  # else the JVM may end a connection after the session's end
            socketserver.BaseServer.handle_error = said  # type: ignore[method-assign]
            logging.getLogger().removeFilter(py4j_at_a_stop)


def _stop(spark: SparkSession, asked: threading.Event) -> None:
    """Stop the session; when asked to stop, its JVM may be gone already, stopped with us."""
    if not asked.is_set():
        spark.stop()
        return
    with warnings.catch_warnings(), contextlib.suppress(*_JVM_GONE):
        warnings.simplefilter("ignore")  # PySpark's "Unable to cleanly shutdown Spark JVM"
        spark.stop()


def _start(command: str, log: Path | None) -> SparkSession:
    """Build the session; the JVM writes to ``log``, or to this standard error without one."""
    builder = (
        configure(SparkSession.builder.master("local[2]").appName(f"pyspark-aof {command}"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", str(log is None).lower())
    )
    if log is None:
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("WARN")
        return spark
    saved = os.dup(2)
    try:
        with log.open("ab") as out:
            os.dup2(out.fileno(), 2)  # the JVM started now keeps this as its standard error
        return builder.getOrCreate()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
