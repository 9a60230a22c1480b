package com.hx.spark.sql.connector.aof.bench

import java.nio.file.Paths
import java.util.concurrent.ScheduledThreadPoolExecutor

import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, NodeEndpoint}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.zookeeper.{ZkAccess, ZkClients}

/**
 * Simulated nodes for [[FleetPlanning]]: the real endpoint, once per node, each with a directory
 * of its own, all in this JVM, on one ZooKeeper session and a few threads. Runs until its input
 * closes.
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
    // A few threads for all the JVM's nodes, each node's tasks still one at a time: a thread of
    // its own each (two, once `status` asks) took 2,500 threads a JVM of 1,250 nodes, where the
    // machine's cores run two at once. Their requests, answers, scanners and state stay each
    // node's own.
    val threads = new ScheduledThreadPoolExecutor(
      Threads,
      { r: Runnable =>
        val t = new Thread(r, "fleet-nodes")
        t.setDaemon(true)
        t
      })
    val endpoints = (first.toInt until first.toInt + count.toInt).map { i =>
      val spec = EndpointSpec(
        runId,
        ZkAccess(connect, 60000),
        metaStore,
        SourceFiles(Paths.get(s"$root/node-$i"), FleetPlanning.FileNames),
        1024,
        runKey)
      val endpoint = new NodeEndpoint(spec, s"node-$i", () => (), Some(client), Some(threads))
      endpoint.start()
      endpoint
    }
    println(FleetPlanning.NodesReady)
    System.out.flush()
    while (System.in.read() >= 0) ()
    endpoints.foreach(_.shutdown())
    threads.shutdown()
    client.close()
  }

  // More than the cores: an answer's ZooKeeper writes wait for their round trips on its thread.
  val Threads: Int = 8
}
