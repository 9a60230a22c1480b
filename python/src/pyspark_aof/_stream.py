"""The streaming DataFrame of the source."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

from pyspark.errors import IllegalArgumentException, PySparkException
from pyspark.sql import DataFrame, SparkSession

from pyspark_aof._errors import spark_message
from pyspark_aof._option_fields import AofOptions

try:
    from py4j.protocol import Py4JJavaError

    _NOT_FOUND: tuple[type[Exception], ...] = (PySparkException, Py4JJavaError)
except ImportError:  # a Spark Connect client (pyspark-client) has no py4j
    _NOT_FOUND = (PySparkException,)

FORMAT = "aof"

OptionValue = str | int | bool | list[str] | tuple[str, ...]


def read_stream(
    spark: SparkSession,
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    options: AofOptions | Mapping[str, OptionValue | None] | None = None,
    **kwargs: OptionValue | None,
) -> DataFrame:
    r"""Return a streaming DataFrame of the complete lines appended to the matching files.

    Parameters
    ----------
    spark : SparkSession
        A session whose classpath holds the connector (see :func:`configure`).
    path : str or os.PathLike, or a sequence of them
        Absolute path whose last component is a Java regex on file names,
        for example ``/var/log/app/service\\.log.*``; its directories may hold globs
        (``*`` within a component, ``**`` for any depth): ``/var/log/pods/*/*/0\\.log``.
        Several paths are read by one source; a file two of them match is read once.
    options : AofOptions or mapping, optional
        Typed source options, or options by name as in ``**kwargs``; ``None`` fields keep the
        source's defaults.
    **kwargs
        Options by name, over ``options``: ``starting_offsets="latest"`` or
        ``**{"starting.offsets": "latest"}``; ``None`` keeps the default.

    Returns
    -------
    DataFrame
        Columns ``value``, ``host``, ``path``, ``offset``, ``file_id``, ``timestamp`` (when the
        source first planned the line, the same in a replay).

    Raises
    ------
    ValueError
        When an option is unknown or has a bad value, here or in the JVM when the query is
        defined; the message names the option.
    RuntimeError
        When the session cannot find the connector, with the ways to add it.

    Examples
    --------
    >>> lines = read_stream(spark, "/var/log/app/service\\.log.*",  # doctest: +SKIP
    ...                     options=AofOptions(starting_offsets=StartingOffsets.LATEST),
    ...                     bytes_max=64 << 20)

    """
    return _load(spark, path, _settings(options, kwargs))


def read_journal(
    spark: SparkSession,
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    options: AofOptions | Mapping[str, OptionValue | None] | None = None,
    **kwargs: OptionValue | None,
) -> DataFrame:
    r"""Return a streaming DataFrame of the entries of each node's systemd journal.

    Parameters
    ----------
    spark : SparkSession
        A session whose classpath holds the connector (see :func:`configure`).
    path : str or os.PathLike, or a sequence of them, optional
        The journal files, as :func:`read_stream` takes paths; by default journald's own:
        ``/var/log/journal/*/.*\\.journal~?`` and ``/run/log/journal/*/.*\\.journal~?``.
    options : AofOptions or mapping, optional
        Typed source options, or options by name as in ``**kwargs``.
    **kwargs
        Options by name, over ``options``: ``journal_units=["ssh.service"]``,
        ``journal_priority="warning"``.

    Returns
    -------
    DataFrame
        Columns ``value`` (the entry's ``MESSAGE``), ``host``, ``path``, ``offset`` (the
        entry's number), ``file_id``, ``timestamp``, ``time``, ``unit``, ``identifier``,
        ``priority``, ``pid``, ``boot_id``, ``cursor`` and ``fields`` (every other field).

    Raises
    ------
    ValueError
        When an option is unknown, has a bad value, or applies to files' lines only.
    RuntimeError
        When the session cannot find the connector, with the ways to add it.

    Examples
    --------
    >>> errors = read_journal(spark, journal_priority="err")  # doctest: +SKIP

    """
    return _load(spark, path, _settings(options, {**kwargs, "format": "journald"}))


def _settings(
    options: AofOptions | Mapping[str, OptionValue | None] | None,
    kwargs: Mapping[str, OptionValue | None],
) -> AofOptions:
    """Return the options given, ``kwargs`` over ``options``."""
    if isinstance(options, AofOptions):
        return options.with_changes(**kwargs)
    if options is None or isinstance(options, Mapping):
        return AofOptions().with_changes(**{**(options or {}), **kwargs})
    raise TypeError(
        f"options must be an AofOptions or a dict of options, not {type(options).__name__}"
    )


def _load(
    spark: SparkSession,
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None,
    settings: AofOptions,
) -> DataFrame:
    """Return the source's DataFrame with ``settings``, its errors made Python's."""
    reader = spark.readStream.format(FORMAT).options(**settings.to_options())
    remote = _is_connect(spark)
    try:
        lines = reader.load(None if path is None else _path_option(path))
        if remote:
            _ = lines.schema  # a Connect client defines lazily: the server looks the source up now
        return lines
    except IllegalArgumentException as e:  # the JVM checked what Python cannot (the path)
        raise ValueError(spark_message(e)) from e
    except _NOT_FOUND as e:  # which one depends on the Spark version and the session's kind
        if "DATA_SOURCE_NOT_FOUND" not in str(e) and "Failed to find data source" not in str(e):
            raise
        from pyspark_aof._jar import jar_path, maven_coordinates

        if remote:
            raise RuntimeError(
                "The Spark Connect server cannot find the aof source: its JAR is not on the "
                f"server's classpath. Start the server with --packages {maven_coordinates()} "
                "(or --jars with the JAR)."
            ) from e
        raise RuntimeError(
            "This Spark session cannot find the aof source: its JAR is not on the classpath. "
            "Get the session with pyspark_aof.configure(SparkSession.builder).getOrCreate() (it "
            "adds the JAR to a session already running), or start it with "
            f"--jars {jar_path()} or --packages {maven_coordinates()}."
        ) from e


def _is_connect(spark: SparkSession) -> bool:
    """Whether the session is a Spark Connect client's (Spark 4), whatever PySpark is installed."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def _path_option(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> str:
    """Return ``path`` as the source's ``path`` option: one path, or a JSON array of several."""
    if isinstance(path, (str, os.PathLike)):
        return os.fspath(path)
    return json.dumps([os.fspath(p) for p in path])
