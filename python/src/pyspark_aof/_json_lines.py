"""A JVM ``foreach`` sink for real-time mode from Python: rows in milliseconds, not batches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.errors import IllegalArgumentException

from pyspark_aof._errors import spark_message

if TYPE_CHECKING:  # a Spark Connect client without py4j imports the package too
    from pyspark.sql.streaming.readwriter import DataStreamWriter

_WRITER = "com.hx.spark.sql.connector.aof.sink.JsonLines"


def foreach_json_lines(writer: DataStreamWriter, target: str) -> DataStreamWriter:
    """Send each row, as it comes, as one JSON line to a TCP socket or a file.

    A Python ``foreach`` gets its rows through a pipe Spark buffers up to a megabyte, so in
    real-time mode they arrive seconds late, or at the batch's end. This sink is a ``foreach``
    of the JVM's, in the connector's JAR: each task writes each row as it gets it, and flushes
    the rows its reader read together once that reader has no more at hand (row by row behind
    another source).

    Parameters
    ----------
    writer : DataStreamWriter
        ``df.writeStream``, of a session started with the connector's JAR (not Spark Connect).
    target : str
        ``tcp://host:port``: each task connects there and writes its rows;
        or an absolute file path: each task appends its rows to that file on its own host.

    Returns
    -------
    DataStreamWriter
        ``writer``, its sink set, for ``.trigger(realTime=...)``, ``.option`` and ``.start()``.

    Raises
    ------
    ValueError
        When ``target`` is neither ``tcp://host:port`` nor an absolute path.

    Examples
    --------
    >>> query = (  # doctest: +SKIP
    ...     foreach_json_lines(lines.writeStream.outputMode("update"), "tcp://alerts:9000")
    ...     .option("checkpointLocation", "/checkpoints/alerts")
    ...     .trigger(realTime="5 minutes")
    ...     .start()
    ... )

    """
    jvm = getattr(getattr(writer, "_spark", None), "_jvm", None)
    jwrite = getattr(writer, "_jwrite", None)
    if jvm is None or jwrite is None:
        raise RuntimeError(
            "foreach_json_lines needs a session with a JVM (a classic session, not Spark "
            "Connect): use Spark's Kafka sink there"
        )
    from py4j.protocol import Py4JJavaError

    try:
        sink = getattr(jvm, _WRITER).to(target)
    except (IllegalArgumentException, Py4JJavaError) as e:  # converted or not, by version
        raise ValueError(spark_message(e)) from e
    jwrite.foreach(sink)
    return writer
