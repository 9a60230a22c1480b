package com.hx.spark.sql.connector.aof.cluster

import java.io.IOException
import java.net.InetSocketAddress
import java.nio.charset.StandardCharsets.UTF_8

import com.sun.net.httpserver.HttpServer
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.{ClusterManager, Nodes}

class NodeDiscoverySuite extends AnyFunSuite {
  private def discovered(manager: ClusterManager, url: Option[String]) =
    Nodes.Discovered(manager, None, url, 60000L)

  private def of(
      manager: ClusterManager,
      master: String,
      url: Option[String] = None,
      env: Map[String, String] = Map.empty): NodeDiscovery =
    NodeDiscovery.of(discovered(manager, url), master, () => new Configuration(), env.get)

  test("a standalone master's web UI, on its default port, for each master of the URL") {
    assert(
      of(ClusterManager.Standalone, "spark://m1:7077,m2:7077").source ===
        "the standalone master at http://m1:8080 or http://m2:8080")
    assert(
      of(ClusterManager.Standalone, "local[2]", Some("http://m:9090")).source ===
        "the standalone master at http://m:9090")
    val e = intercept[IllegalArgumentException](of(ClusterManager.Standalone, "yarn"))
    assert(e.getMessage.contains("'nodes.url'") && e.getMessage.contains("'yarn'"), e.getMessage)
  }

  test("the Kubernetes API server of a k8s:// master, or of the pod the driver runs in") {
    def source(master: String, env: Map[String, String] = Map.empty) =
      of(ClusterManager.Kubernetes, master, env = env).source
    assert(source("k8s://https://api:6443") === "the Kubernetes API server at https://api:6443")
    assert(source("k8s://api:6443") === "the Kubernetes API server at https://api:6443")
    val pod = Map("KUBERNETES_SERVICE_HOST" -> "fd00::1", "KUBERNETES_SERVICE_PORT" -> "443")
    assert(source("local[*]", pod) === "the Kubernetes API server at https://[fd00::1]:443")
    val e = intercept[IllegalArgumentException](source("spark://m:7077"))
    assert(e.getMessage.contains("'nodes.url'"), e.getMessage)
  }

  test("YARN's ResourceManager is found from the Hadoop configuration, asked only when needed") {
    val yarn = NodeDiscovery.of(
      Nodes.Discovered(ClusterManager.Yarn, Some("logs"), None, 60000L),
      "local",
      () => fail("read before the first question"))
    assert(yarn.source === "YARN's ResourceManager (nodes labelled logs)")
  }

  /**
   * Two masters, one standing by: a fake server, as two real masters need a recovery ZooKeeper
   * to tell which leads. The master's JSON itself is checked against a real one by the Python
   * suite (`test_every_node.py`).
   */
  test("with masters in high availability, the alive one answers, and only its alive workers") {
    val standBy = serve("""{"status": "STANDBY", "workers": []}""")
    val alive = serve("""{"status": "ALIVE", "workers": [
        |  {"host": "10.0.0.7", "state": "ALIVE"}, {"host": "10.0.0.8", "state": "DEAD"},
        |  {"host": "10.0.0.9", "state": "ALIVE"}]}""".stripMargin)
    try {
      val urls = Seq(standBy, alive).map(s => s"http://127.0.0.1:${s.getAddress.getPort}")
      assert(new StandaloneWorkers(urls).nodes() === Set("10.0.0.7", "10.0.0.9"))
      val e =
        intercept[IOException](new StandaloneWorkers(urls.take(1) :+ "http://127.0.0.1:1").nodes())
      assert(e.getMessage.contains("STANDBY") && e.getMessage.contains("127.0.0.1:1"), e.getMessage)
    } finally Seq(standBy, alive).foreach(_.stop(0))
  }

  private def serve(json: String): HttpServer = {
    val server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0)
    server.createContext(
      "/json/",
      exchange => {
        val body = json.getBytes(UTF_8)
        exchange.sendResponseHeaders(200, body.length.toLong)
        exchange.getResponseBody.write(body)
        exchange.close()
      }
    )
    server.start()
    server
  }
}
