"""The streaming DataFrame of the source."""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

FORMAT = "aof"

OptionValue = str | int | bool


def _option_key(name: str) -> str:
    return name.replace("_", ".")


def _option_value(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def read_stream(spark: SparkSession, path: str, **options: OptionValue) -> DataFrame:
    r"""Return a streaming DataFrame of the complete lines appended to the matching files.

    Parameters
    ----------
    spark : SparkSession
        A session whose classpath holds the connector (see :func:`configure`).
    path : str
        Absolute path whose last component is a Java regex on file names,
        for example ``/var/log/app/service\\.log.*``.
    **options
        Source options; ``starting_offsets="latest"`` stands for ``starting.offsets``.

    Returns
    -------
    DataFrame
        Columns ``value``, ``host``, ``path``, ``offset``, ``file_id``.

    Raises
    ------
    pyspark.errors.IllegalArgumentException
        When an option has a bad value; the message names the option.

    """
    reader = spark.readStream.format(FORMAT)
    for name, value in options.items():
        reader = reader.option(_option_key(name), _option_value(value))
    return reader.load(path)
