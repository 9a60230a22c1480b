package com.hx.spark.sql.connector.aof.zookeeper

/**
 * Everything an endpoint needs, shipped inside the launch task and never read from ZooKeeper: so
 * nothing written into ZooKeeper can make an endpoint look at another directory.
 */
final case class EndpointSpec(
    runId: String,
    connectString: String,
    metaStore: String,
    directory: String,
    fileNameRegex: String,
    md5SampleLength: Int)
