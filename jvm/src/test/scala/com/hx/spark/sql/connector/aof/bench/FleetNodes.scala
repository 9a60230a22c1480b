package com.hx.spark.sql.connector.aof.bench

import java.nio.file.Paths

import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, NodeEndpoint}
import com.hx.spark.sql.connector.aof.files.SourceFiles
import com.hx.spark.sql.connector.aof.zookeeper.{ZkAccess, ZkClients}

/**
 * Simulated nodes for [[FleetPlanning]]: the real endpoint, once per node, each with a directory
 * of its own, all in this JVM, on one ZooKeeper session. Runs until its input closes.
 *
 * Arguments: ZooKeeper connect string, meta store, run id, run key, root directory, first node,
 * number of nodes. Node `i` is host `node-i`, serving `<root>/node-i`.
 */
object FleetNodes {
  def main(args: Array[String]): Unit = {
    val Array(connect, metaStore, runId, runKey, root, first, count) = args: @unchecked
    // One ZooKeeper session for the JVM's nodes: a session of its own each, ten thousand nodes
    // would not fit this machine's memory. Their requests and answers are each node's own.
    val client = ZkClients.open(ZkAccess(connect, 60000), metaStore)
    val endpoints = (first.toInt until first.toInt + count.toInt).map { i =>
      val spec = EndpointSpec(
        runId,
        ZkAccess(connect, 60000),
        metaStore,
        SourceFiles(Paths.get(s"$root/node-$i"), FleetPlanning.FileNames),
        1024,
        runKey)
      val endpoint = new NodeEndpoint(spec, s"node-$i", () => (), Some(client))
      endpoint.start()
      endpoint
    }
    println(FleetPlanning.NodesReady)
    System.out.flush()
    while (System.in.read() >= 0) ()
    endpoints.foreach(_.shutdown())
    client.close()
  }
}
