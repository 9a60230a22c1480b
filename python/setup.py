"""The wheel carries a connector JAR for each Spark line; in a source checkout they are built first.

Everything else about the package is in ``pyproject.toml``.
"""

import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
JARS = HERE / "src" / "pyspark_aof" / "jars"
SCALA_LINES = ("2.12", "2.13")


def missing() -> list[str]:
    """Return the Scala versions whose JAR the package does not hold yet."""
    return [s for s in SCALA_LINES if not list(JARS.glob(f"spark-aof_{s}-*.jar"))]


class BuildWithJars(build_py):
    """Refuses to build a wheel without its JARs, building them when the checkout can."""

    def run(self) -> None:
        """Check for the JARs (building them if need be), then build as setuptools does."""
        # An editable install sees the JARs wherever `make jar` puts them later.
        if not self.editable_mode and missing():
            if (HERE.parent / "build" / "sbt").is_file():
                subprocess.run(["make", "-C", str(HERE.parent), "jar"], check=True)
            if missing():
                raise SystemExit(
                    f"pyspark-aof: no connector JAR for Scala {', '.join(missing())} in {JARS}: "
                    "build them with `make jar` in the source checkout first."
                )
        super().run()


setup(cmdclass={"build_py": BuildWithJars})
