"""A streaming application as a YARN user submits it: ``spark-submit --master yarn --jars``.

Run as ``yarn_app.py PATH ZOOKEEPER CHECKPOINT OUTPUT [OPTION=VALUE ...]``: one
``Trigger.AvailableNow`` query of the source into a JSON file sink, reading what is there, then
stopping.
"""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession

import pyspark_aof as aof


def main() -> None:
    path, zookeeper, checkpoint, output = sys.argv[1:5]
    options = {"zookeeper.address": zookeeper, **dict(a.split("=", 1) for a in sys.argv[5:])}
    spark = SparkSession.builder.appName("aof on yarn").getOrCreate()
    query = (
        aof.read_stream(spark, path, options=aof.AofOptions.from_strings(options))
        .writeStream.format("json")
        .option("checkpointLocation", checkpoint)
        .trigger(availableNow=True)
        .start(output)
    )
    query.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main()
