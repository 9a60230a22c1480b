package com.hx.spark.sql.connector.aof.stream

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Path

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.spark.sql.streaming.StreamingQueryException
import org.apache.zookeeper.{CreateMode, ZooDefs}
import org.apache.zookeeper.data.ACL
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.driver.OffsetBackup
import com.hx.spark.sql.connector.aof.endpoint.NodeEndpoints
import com.hx.spark.sql.connector.aof.testkit.{
  LogWriter, Logged, Queries, SparkTestKit, ZooKeeperFixture
}
import com.hx.spark.sql.connector.aof.testkit.Queries.{assertExactlyOnce, drain}

/** Local mode against a ZooKeeper server in its own process, as on a cluster. */
class ExternalZooKeeperSuite extends AnyFunSuite with SparkTestKit with ZooKeeperFixture {
  private lazy val client: CuratorFramework = zkClient("/aof")

  private def start(
      dir: Path,
      ckpt: Path,
      out: Path,
      metaStore: String,
      options: Map[String, String] = Map.empty) =
    Queries.start(
      spark,
      s"$dir/app-.*\\.log",
      ckpt,
      out,
      Map("zookeeper.address" -> zk.connectString, "meta.store" -> metaStore) ++ options)

  private def children(path: String): Seq[String] =
    if (client.checkExists().forPath(path) == null) Nil
    else client.getChildren.forPath(path).asScala.toSeq

  private def sendThreads(): Int =
    Thread.getAllStackTraces.keySet.asScala.count(_.getName.contains("SendThread"))

  test("exactly once with writers and a restart, and a stopped query leaves nothing running") {
    val (dir, ckpt, out) = (newDir("logs"), newDir("ckpt"), newDir("out"))
    client // connected before counting ZooKeeper client threads
    val threadsBefore = sendThreads()
    val writers = Seq("a", "b").map(w => new LogWriter(dir.resolve(s"app-$w.log"), w, 2000).start())
    val query = start(dir, ckpt, out, "/it/writers")
    val ids = writers.flatMap(_.join())
    drain(query)
    assert(children("/it/writers/runs").nonEmpty, "the run registered no znodes")
    query.stop()
    assertExactlyOnce(spark, out, ids)
    eventually("endpoints stopped")(NodeEndpoints.runningCount == 0)
    eventually("run znodes removed")(children("/it/writers/runs").isEmpty)
    eventually("ZooKeeper client threads closed")(sendThreads() == threadsBefore)
    assert(children("/it/writers").contains("offsets"), "the offset backup must stay")

    val more = LogWriter.append(dir.resolve("app-b.log"), (1 to 300).map(n => s"c-$n"))
    val restarted = start(dir, ckpt, out, "/it/writers")
    drain(restarted)
    restarted.stop()
    assertExactlyOnce(spark, out, ids ++ more)
  }

  // resume.from.backup trusts a backup only where ACLs keep everyone else from writing it.
  private val login = Map("zookeeper.auth.user" -> "aof", "zookeeper.auth.password" -> "s3cret")

  test("a new checkpoint resumes from the backup when told to; an existing checkpoint wins") {
    val dir = newDir("logs")
    val (ckptA, outA, ckptB, outB) =
      (newDir("ckptA"), newDir("outA"), newDir("ckptB"), newDir("outB"))
    val first = LogWriter.append(dir.resolve("app-a.log"), (1 to 400).map(n => s"first-$n"))
    val a = start(dir, ckptA, outA, "/it/switch", login)
    drain(a)
    a.stop()
    assertExactlyOnce(spark, outA, first)

    // The driver moved: same meta.store, no checkpoint. Only what came since is read.
    val second = LogWriter.append(dir.resolve("app-a.log"), (1 to 300).map(n => s"second-$n"))
    val b = start(dir, ckptB, outB, "/it/switch", login + ("resume.from.backup" -> "true"))
    drain(b)
    b.stop()
    assertExactlyOnce(spark, outB, second)

    // Another query on a new checkpoint, not told to: everything, as starting.offsets says.
    val (ckptC, outC) = (newDir("ckptC"), newDir("outC"))
    val c = start(dir, ckptC, outC, "/it/switch", login)
    drain(c)
    c.stop()
    assertExactlyOnce(spark, outC, first ++ second)

    // Query A's checkpoint is behind the backup B advanced: the checkpoint decides.
    val third = LogWriter.append(dir.resolve("app-a.log"), (1 to 200).map(n => s"third-$n"))
    val again = start(dir, ckptA, outA, "/it/switch", login)
    drain(again)
    again.stop()
    assertExactlyOnce(spark, outA, first ++ second ++ third)
  }

  test("a backup anyone could write is not resumed from: the login that restricts it removes it") {
    val dir = newDir("logs")
    val first = LogWriter.append(dir.resolve("app-a.log"), (1 to 400).map(n => s"first-$n"))
    // A query on an open store: anyone could have written its backup, to skip these lines.
    val open = start(dir, newDir("ckpt"), newDir("out"), "/it/opened")
    drain(open)
    open.stop()
    assert(children("/it/opened").contains("offsets"))
    val (ckpt, out) = (newDir("ckpt"), newDir("out"))
    val resumed = Logged.during(classOf[OffsetBackup].getName) { said =>
      val q = start(
        dir,
        ckpt,
        out,
        "/it/opened",
        login ++ Map("resume.from.backup" -> "true", "starting.offsets" -> "earliest"))
      drain(q)
      q.stop()
      said()
    }
    assert(resumed.exists(_.contains("could be written by anyone")), resumed)
    assertExactlyOnce(spark, out, first)
  }

  test("a second query on the meta.store of a running one is refused, naming meta.store") {
    val dir = newDir("logs")
    LogWriter.append(dir.resolve("app-a.log"), Seq("a", "b"))
    val running = start(dir, newDir("ckpt1"), newDir("out1"), "/it/shared")
    try {
      drain(running)
      val second = start(dir, newDir("ckpt2"), newDir("out2"), "/it/shared")
      val refused = intercept[StreamingQueryException](second.awaitTermination(60000))
      assert(refused.getMessage.contains("another query (checkpoint "))
      assert(refused.getMessage.contains("is running with meta.store '/it/shared'"))
      assert(refused.getMessage.contains(""".option("meta.store", "/it/shared-2")"""))
      assert(refused.getMessage.contains("deleteall /it/shared/runs/"))
      assert(running.isActive, "the running query goes on")
    } finally running.stop()
  }

  // Anyone who may write ZooKeeper can make a persistent driver znode: no session ever ends it.
  test("a driver znode that no session holds is no running query: it does not refuse a start") {
    val dir = newDir("logs")
    val lines = LogWriter.append(dir.resolve("app-a.log"), (1 to 50).map(n => s"line-$n"))
    val other = "/elsewhere/checkpoint".getBytes(UTF_8)
    client.create().creatingParentsIfNeeded().forPath("/it/forged/runs/forged/driver", other)
    // One the query may not remove: nobody may delete under it.
    val keep = new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, ZooDefs.Ids.ANYONE_ID_UNSAFE)
    client.create().withACL(Seq(keep).asJava).forPath("/it/forged/runs/kept")
    client.create().forPath("/it/forged/runs/kept/driver", other)
    val (ckpt, out) = (newDir("ckpt"), newDir("out"))
    val warned = Logged.during("com.hx.spark.sql.connector.aof.driver.StoreRuns") { logged =>
      val query = start(dir, ckpt, out, "/it/forged")
      try {
        drain(query)
        assert(query.isActive)
      } finally query.stop()
      logged()
    }
    assertExactlyOnce(spark, out, lines)
    eventually("the forged run removed, the other left")(children("/it/forged/runs") == Seq("kept"))
    Seq("forged", "kept").foreach { run =>
      assert(warned.exists(_.startsWith(s"aof: /it/forged/runs/$run/driver is persistent")), warned)
    }
  }

  test("a live run of another query that stays is removed as its refusal says") {
    val dir = newDir("logs")
    val lines = LogWriter.append(dir.resolve("app-a.log"), Seq("a", "b"))
    // A session that lives on without a driver: the run never ends by itself.
    client
      .create()
      .creatingParentsIfNeeded()
      .withMode(CreateMode.EPHEMERAL)
      .forPath("/it/held/runs/held/driver", "/elsewhere/checkpoint".getBytes(UTF_8))
    val (ckpt, out) = (newDir("ckpt"), newDir("out"))
    val refused = start(dir, ckpt, out, "/it/held")
    val message = intercept[StreamingQueryException](refused.awaitTermination(60000)).getMessage
    val removal = "zkCli.sh -server <zookeeper.address> deleteall /it/held/runs/held"
    assert(message.contains(removal), message)
    client.delete().deletingChildrenIfNeeded().forPath("/it/held/runs/held")
    val query = start(dir, ckpt, out, "/it/held")
    try drain(query)
    finally query.stop()
    assertExactlyOnce(spark, out, lines)
  }
}
