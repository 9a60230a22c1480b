r"""Read lines appended to node-local log files as a Spark stream, exactly once.

Examples
--------
>>> import pyspark_aof as aof  # doctest: +SKIP
>>> spark = aof.configure(SparkSession.builder).getOrCreate()  # doctest: +SKIP
>>> lines = aof.read_stream(spark, "/var/log/app/service\\.log.*")  # doctest: +SKIP

"""

from importlib.metadata import version

from pyspark_aof._jar import configure, jar_path, maven_coordinates
from pyspark_aof._json_lines import foreach_json_lines
from pyspark_aof._option_fields import AofOptions
from pyspark_aof._options import OptionSpec, StartingOffsets, option_specs
from pyspark_aof._stream import FORMAT, read_stream

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
    "read_stream",
]
# The version is written once per build tool: pyproject.toml here, build.sbt for the JARs
# (test_packaging checks that the bundled JARs carry this one).
__version__ = version("pyspark-aof")
