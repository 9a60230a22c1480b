"""The Spark session every benchmark runs in: ``local[2]``, the connector on the classpath."""

from __future__ import annotations

from pyspark.sql import SparkSession

import pyspark_aof as aof
from pyspark_aof.demo import quiet_zookeeper


def local_session(driver_memory: str = "2g", packages: tuple[str, ...] = ()) -> SparkSession:
    """Start (or return) the benchmark session; ``packages`` are Maven coordinates to add."""
    builder = aof.configure(SparkSession.builder.master("local[2]").appName("pyspark-aof bench"))
    if packages:
        builder = builder.config("spark.jars.packages", ",".join(packages))
    spark = (
        builder.config("spark.driver.memory", driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    quiet_zookeeper(spark)
    return spark
