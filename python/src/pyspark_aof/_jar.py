"""Finding the bundled connector JAR and putting it on a session's classpath."""

from __future__ import annotations

from pathlib import Path

import pyspark
from pyspark.sql import SparkSession

_JARS = Path(__file__).parent / "jars"


def _scala_version() -> str:
    """Return the Scala binary version of the installed PySpark, read from the JARs it ships."""
    libraries = sorted((Path(pyspark.__file__).parent / "jars").glob("scala-library-*.jar"))
    if libraries:
        full = libraries[0].name.removeprefix("scala-library-").removesuffix(".jar")
        return ".".join(full.split(".")[:2])
    return "2.13" if pyspark.__version__.startswith("4") else "2.12"


def jar_path() -> str:
    """Return the path of the bundled connector JAR that matches the installed PySpark.

    Returns
    -------
    str
        Absolute path of ``spark-aof_<scala>-<version>.jar``.

    Raises
    ------
    FileNotFoundError
        When the package holds no JAR for this PySpark's Scala version (a source checkout
        that was not built: run ``make setup``).

    """
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

    Examples
    --------
    >>> maven_coordinates()  # doctest: +SKIP
    'com.hx.spark:spark-aof_2.12:0.1.0'

    """
    from pyspark_aof import __version__

    return f"com.hx.spark:spark-aof_{_scala_version()}:{__version__}"


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Add the connector JAR to ``spark.jars`` of a session builder, keeping JARs already set.

    Parameters
    ----------
    builder : SparkSession.Builder
        The builder of the session that will read with the source.

    Returns
    -------
    SparkSession.Builder
        The same builder, for chaining.

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
    return builder.config("spark.jars", ",".join(jars))
