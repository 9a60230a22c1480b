r"""Read lines appended to node-local log files as a Spark stream, exactly once.

Examples
--------
>>> import pyspark_aof as aof  # doctest: +SKIP
>>> spark = aof.configure(SparkSession.builder).getOrCreate()  # doctest: +SKIP
>>> lines = aof.read_stream(spark, "/var/log/app/service\\.log.*")  # doctest: +SKIP

"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark_aof._jar import configure, jar_path, maven_coordinates
    from pyspark_aof._json_lines import foreach_json_lines
    from pyspark_aof._option_fields import AofOptions
    from pyspark_aof._options import OptionSpec, StartingOffsets, option_specs
    from pyspark_aof._stream import FORMAT, read_journal, read_stream

# Each name loads its module at first use: the command line notes what it must before PySpark,
# whose import takes half a second, is loaded (``tail``: the files' sizes as it starts).
_WHERE = {
    "FORMAT": "_stream",
    "AofOptions": "_option_fields",
    "OptionSpec": "_options",
    "StartingOffsets": "_options",
    "configure": "_jar",
    "foreach_json_lines": "_json_lines",
    "jar_path": "_jar",
    "maven_coordinates": "_jar",
    "option_specs": "_options",
    "read_journal": "_stream",
    "read_stream": "_stream",
}

__all__ = [
    "FORMAT",
    "AofOptions",
    "OptionSpec",
    "StartingOffsets",
    "configure",
    "foreach_json_lines",
    "jar_path",
    "maven_coordinates",
    "option_specs",
    "read_journal",
    "read_stream",
]


def __getattr__(name: str) -> Any:
    """Return a public name, its module loaded now, or ``__version__``."""
    if name == "__version__":
        # Written once per build tool: pyproject.toml here, build.sbt for the JARs
        # (test_packaging checks that the bundled JARs carry this one).
        from importlib.metadata import version

        return version("pyspark-aof")
    if name in _WHERE:
        value = getattr(importlib.import_module(f"pyspark_aof.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pyspark_aof' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__, "__version__"])
