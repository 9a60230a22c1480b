"""The versions of the two Spark lines, from ``versions.properties``.

build.sbt and the Makefile read the same file, so that a version is written once.
"""

from __future__ import annotations

from pathlib import Path


def _read(path: Path) -> dict[str, str]:
    pairs = (
        line.split("=", 1)
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )
    return {key.strip(): value.strip() for key, value in pairs}


VERSIONS = _read(Path(__file__).parent / "versions.properties")


def minor_version(version: str) -> tuple[int, int]:
    """Return ``(major, minor)`` of a version such as ``4.3.0`` or ``3.5.1.dev0``."""
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def binary_version(scala: str) -> str:
    """Return the binary version of a Scala version: ``2.13`` of ``2.13.16``."""
    return ".".join(scala.split(".")[:2])


# Each Spark line and its Scala version: the connector is built once for each.
SCALA_OF_SPARK = {line: binary_version(VERSIONS[f"spark{line}.scala"]) for line in (3, 4)}
# The PySpark versions the package supports, oldest and newest.
SUPPORTED = (
    minor_version(VERSIONS["spark3.pyspark.oldest"]),
    minor_version(VERSIONS["spark4.pyspark.newest"]),
)
SUPPORTED_TEXT = "PySpark " + " and ".join(
    f"{VERSIONS[f'spark{line}.pyspark.oldest']} to {VERSIONS[f'spark{line}.pyspark.newest']} "
    f"(Spark {line}, Scala {SCALA_OF_SPARK[line]})"
    for line in (3, 4)
)
# What pip is asked for: pyproject.toml's dependency is this (a test holds them together).
PYSPARK_REQUIREMENT = (
    f"pyspark>={SUPPORTED[0][0]}.{SUPPORTED[0][1]},<{SUPPORTED[1][0]}.{SUPPORTED[1][1] + 1}"
)
