"""The command line's errors, each shown as one line, and Spark's errors reduced to one line."""

from __future__ import annotations

import re

# A failed query's message wraps its cause: "[STREAM_FAILED] Query [id = ..., runId = ...]
# terminated with exception: <the cause's message> SQLSTATE: XXKST" (no code before Spark 4).
_QUERY_FAILED = re.compile(r"terminated with exception: (?P<cause>.*)")
_SQLSTATE = re.compile(r"\s*SQLSTATE: \w+$")
_JVM_STACK = "\n\nJVM stacktrace:"
_PYTHON_STACK = "Traceback (most recent call last):"

INTERRUPTED = 130
"""The exit status after Ctrl-C stopped a command before it was done (128 + SIGINT)."""


class UsageError(ValueError):
    """A bad argument: the command line reports it as argparse does, with exit status 2."""


class CommandError(RuntimeError):
    """A failure at run time, worded for the user: shown as one line, with exit status 1.

    ZooKeeper out of reach, a query that failed: errors found only by trying.
    """


def spark_message(error: BaseException) -> str:
    """Return the message of the JVM exception behind ``error``, on one line.

    PySpark's own exceptions carry the JVM exception's message, then (when
    ``spark.sql.pyspark.jvmStacktrace.enabled``) a Java stack trace; a raw Py4J error carries
    the Java exception itself. A failed query's message is reduced to its cause's, and a
    Python traceback in it (from a ``foreachBatch`` function) to the exception it ends with.

    Parameters
    ----------
    error : BaseException
        An exception raised by a call into Spark.

    Returns
    -------
    str
        The first line of the JVM exception's own message, or the exception's type name when
        it has none.

    """
    java = getattr(error, "java_exception", None)  # a Py4JJavaError that PySpark did not convert
    text = str(java.getMessage() or java.toString()) if java is not None else str(error)
    lines = text.split(_JVM_STACK, 1)[0].strip().splitlines() or [""]
    first = lines[0]
    cause = _QUERY_FAILED.search(first)
    if cause:
        first = cause.group("cause")
    if first.endswith(_PYTHON_STACK):  # an error of Python code Spark called: its last line
        raised = next((line for line in lines[1:] if line and not line[0].isspace()), "")
        first = first[: -len(_PYTHON_STACK)] + raised
    return _SQLSTATE.sub("", first).strip() or type(error).__name__
