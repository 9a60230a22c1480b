"""Finding the bundled connector JAR for the running PySpark and putting it on a classpath."""

from __future__ import annotations

import os
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

from pyspark_aof._versions import (
    PYSPARK_REQUIREMENT,
    SCALA_OF_SPARK,
    SUPPORTED,
    SUPPORTED_TEXT,
    binary_version,
    minor_version,
)

_JARS = Path(__file__).parent / "jars"


def _spark_jars() -> Path:
    """Return the directory of Spark's JARs, for a PySpark imported from its wheel or its zip.

    ``spark-submit`` runs an application with PySpark from ``python/lib/pyspark.zip`` of the
    Spark home it sets in ``SPARK_HOME``, where the package's own directory has no JARs.
    """
    home = os.environ.get("SPARK_HOME")
    candidates = [Path(home) / "jars"] if home else []
    candidates.append(Path(pyspark.__file__).parent / "jars")
    return next((c for c in candidates if c.is_dir()), candidates[-1])


_SPARK_JARS = _spark_jars()


def _check_supported() -> None:
    if not SUPPORTED[0] <= minor_version(pyspark.__version__) <= SUPPORTED[1]:
        raise RuntimeError(
            f"pyspark-aof does not support PySpark {pyspark.__version__}: it works with "
            f"{SUPPORTED_TEXT}. Install one of them, for example "
            f"`pip install '{PYSPARK_REQUIREMENT}'`."
        )


def _scala_version() -> str:
    """Return the Scala binary version of the installed PySpark, read from the JARs it ships."""
    libraries = sorted(_SPARK_JARS.glob("scala-library-*.jar"))
    if libraries:
        full = libraries[0].name.removeprefix("scala-library-").removesuffix(".jar")
        return binary_version(full)
    # Callers checked that the version is supported.
    return SCALA_OF_SPARK[minor_version(pyspark.__version__)[0]]


def _check_jvm() -> None:
    """Raise when this PySpark is a Spark Connect client without Spark's JARs (pyspark-client)."""
    if not _SPARK_JARS.is_dir():
        raise RuntimeError(
            f"PySpark {pyspark.__version__} here is a Spark Connect client without a JVM "
            "(pyspark-client), so there is no classpath to add the connector to: it runs in the "
            f"Spark Connect server. Start the server with --packages {maven_coordinates()} (or "
            "--jars with the JAR), then read with pyspark_aof.read_stream on the remote session."
        )


def jar_path() -> str:
    """Return the path of the bundled connector JAR that matches the installed PySpark.

    Returns
    -------
    str
        Absolute path of ``spark-aof_<scala>-<version>.jar``.

    Raises
    ------
    RuntimeError
        When this PySpark is not supported, or is a Spark Connect client without a JVM.
    FileNotFoundError
        When the package holds no JAR for this PySpark's Scala version (a source checkout
        that was not built: run ``make setup``).

    """
    _check_supported()
    _check_jvm()
    scala = _scala_version()
    found = sorted(_JARS.glob(f"spark-aof_{scala}-*.jar"))
    if not found:
        raise FileNotFoundError(
            f"pyspark-aof has no connector JAR for Scala {scala} in {_JARS}; "
            "in a source checkout run `make setup` to build it."
        )
    return str(found[-1].resolve())


def maven_coordinates() -> str:
    """Return the connector's Maven coordinates for this PySpark, for ``--packages``.

    Returns
    -------
    str
        ``com.hx.spark:spark-aof_2.12:<version>`` for PySpark 3, ``..._2.13:...`` for PySpark 4.

    Raises
    ------
    RuntimeError
        When this PySpark is not supported.

    Examples
    --------
    >>> maven_coordinates()  # doctest: +SKIP
    'com.hx.spark:spark-aof_2.13:0.1.0'

    """
    from pyspark_aof import __version__

    _check_supported()
    return f"com.hx.spark:spark-aof_{_scala_version()}:{__version__}"


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Add the connector JAR to ``spark.jars`` of a session builder, keeping JARs already set.

    A session already running (``getOrCreate`` returns it, and ``spark.jars`` applies only to a
    new one) gets the JAR added as ``ADD JAR`` adds one: to its driver and its executors.

    It also adds the source's metrics plugin to ``spark.plugins``, keeping plugins already set:
    each query's gauges (and each endpoint's) then reach every sink of Spark's metrics system,
    Prometheus and JMX among them (docs/operating.md). A running session keeps its plugins.

    Parameters
    ----------
    builder : SparkSession.Builder
        The builder of the session that will read with the source.

    Returns
    -------
    SparkSession.Builder
        The same builder, for chaining.

    Raises
    ------
    RuntimeError
        When this PySpark is not supported, or is a Spark Connect client without a JVM, or a
        running session refuses the JAR (then stop it first, ``spark.stop()``).

    Examples
    --------
    >>> spark = configure(SparkSession.builder.master("local[2]")).getOrCreate()  # doctest: +SKIP

    """
    # The builder keeps its options privately; reading them is the only way to append.
    options: dict[str, str] = getattr(builder, "_options", {})
    jars = [j for j in options.get("spark.jars", "").split(",") if j]
    jar = jar_path()
    if jar not in jars:
        jars.append(jar)
    plugins = [p for p in options.get("spark.plugins", "").split(",") if p]
    if METRICS_PLUGIN not in plugins:
        plugins.append(METRICS_PLUGIN)
    _add_to_running_session(jar)
    return builder.config("spark.jars", ",".join(jars)).config("spark.plugins", ",".join(plugins))


_SOURCE_CLASS = "com.hx.spark.sql.connector.aof.DefaultSource"
METRICS_PLUGIN = "com.hx.spark.sql.connector.aof.MetricsPlugin"
"""The class of the source's metrics plugin, for ``spark.plugins``."""


def _add_to_running_session(jar: str) -> None:
    """Add ``jar`` to the session this process runs, if one runs and cannot load the source."""
    # Here, not at the top: a Spark Connect client (pyspark-client) has neither.
    from py4j.protocol import Py4JError
    from pyspark import SparkContext

    session = SparkSession.getActiveSession()
    context = SparkContext._active_spark_context
    if context is None or context._jvm is None:
        return
    jvm = context._jvm
    try:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        jvm.java.lang.Class.forName(_SOURCE_CLASS, False, loader)
        return
    except Py4JError:
        pass
    try:
        (session or SparkSession(context)).sql(f"ADD JAR '{jar}'")
    except Exception as e:
        raise RuntimeError(
            "A Spark session is running without the aof source and did not take its JAR "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}). Stop it first "
            "(spark.stop()), then build it with pyspark_aof.configure(SparkSession.builder)."
        ) from e
