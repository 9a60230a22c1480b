"""Real infrastructure on one machine for tests, benchmarks and demos.

A Spark standalone cluster whose workers are separate hosts (own loopback address, own files at
the same path), a ZooKeeper server and a Spark Connect server each in its own process, and a TCP
link that can be cut as a network partition cuts it. Linux only; the cluster needs root for its
mount namespaces.
"""

from pyspark_aof.testing.cluster import Host, LocalCluster
from pyspark_aof.testing.connect import ConnectServer
from pyspark_aof.testing.link import Link
from pyspark_aof.testing.zookeeper import ZooKeeperServer

__all__ = ["ConnectServer", "Host", "Link", "LocalCluster", "ZooKeeperServer"]
