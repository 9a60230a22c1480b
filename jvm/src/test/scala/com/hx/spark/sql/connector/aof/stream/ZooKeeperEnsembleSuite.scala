package com.hx.spark.sql.connector.aof.stream

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.{
  LogWriter, Queries, SparkTestKit, TlsFiles, ZooKeeperEnsemble
}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/** A three-server ensemble over TLS, its leader killed while a stream reads. */
class ZooKeeperEnsembleSuite extends AnyFunSuite with SparkTestKit {
  private lazy val tls = new TlsFiles(newDir("tls"))
  private lazy val ensemble =
    new ZooKeeperEnsemble(newDir("ensemble"), tls.serverSettings, secure = true)

  override protected def afterAll(): Unit =
    try ensemble.stop()
    finally super.afterAll()

  test("the leader killed mid-stream: the stream goes on, every line exactly once") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    val options =
      tls.clientOptions ++ Map("zookeeper.address" -> ensemble.connectString, "meta.store" -> "/ha")
    val query = Queries.start(spark, s"$dir/app-.*\\.log", ckpt, out, options)
    // Stopped however the test ends, before the ensemble is: one still running then would log
    // its lost connections, and what it left running in this JVM, into the suites after.
    val (before, during) =
      try {
        val before = LogWriter.append(dir.resolve("app-a.log"), (1 to 500).map(n => s"a-$n"))
        drain(query)
        val leader = ensemble.leader.get
        val writer = new LogWriter(dir.resolve("app-b.log"), "b", 3000).start()
        ensemble.kill(leader)
        eventually("another leader")(ensemble.leader.exists(_ != leader))
        val during = writer.join()
        drain(query)
        (before, during)
      } finally query.stop()
    val after = LogWriter.append(dir.resolve("app-a.log"), (1 to 300).map(n => s"c-$n"))
    val again = Queries.start(spark, s"$dir/app-.*\\.log", ckpt, out, options)
    drain(again)
    again.stop()
    assertExactlyOnce(spark, out, before ++ during ++ after)
  }
}
