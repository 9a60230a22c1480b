package com.hx.spark.sql.connector.aof.stream

import java.nio.file.Paths
import java.util.concurrent.ConcurrentLinkedQueue

import scala.collection.JavaConverters._

import org.apache.spark.{Success => TaskSucceeded, TaskKilled}
import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.config.ZooKeeperSecurity
import com.hx.spark.sql.connector.aof.driver.{DriverSession, MisplacedTaskWatch}
import com.hx.spark.sql.connector.aof.endpoint.EndpointSpec
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.plan.FileRange
import com.hx.spark.sql.connector.aof.protocol.{MessageSeal, MisplacedTasks, ZkPaths}
import com.hx.spark.sql.connector.aof.read.ReadCounters
import com.hx.spark.sql.connector.aof.testkit.{SparkTestKit, ZooKeeperFixture}
import com.hx.spark.sql.connector.aof.zookeeper.EmbeddedZooKeeper

/**
 * A read task on a host other than its files' is killed by the driver and queued again, never
 * failed. In local mode every task runs on the driver's host, so a range planned for another
 * host is misplaced at every attempt; local mode also fails a job at a task's first failure.
 */
class MisplacedTaskSuite extends AnyFunSuite with SparkTestKit with ZooKeeperFixture {

  test("a misplaced task is killed and queued again, not failed") {
    val sc = spark.sparkContext
    val key = MessageSeal.newKey()
    val ends = new ConcurrentLinkedQueue[SparkListenerTaskEnd]()
    val listener = new SparkListener {
      override def onTaskEnd(e: SparkListenerTaskEnd): Unit = ends.add(e)
    }
    sc.addSparkListener(listener)
    val session = DriverSession.open(
      Some(zk.access.connectString),
      EmbeddedZooKeeper.Listen("127.0.0.1", secured = false),
      10000,
      ZooKeeperSecurity(),
      "/misplaced",
      "misplaced-run",
      key,
      (task, reason) => sc.killTaskAttempt(task, interruptThread = true, reason)
    )
    val spec = EndpointSpec(
      "misplaced-run",
      session.access,
      "/misplaced",
      SourceFiles(Paths.get("/etc"), "x"),
      1,
      key)
    val range =
      FileRange("elsewhere", "/etc/hostname", FileKey(1, 1), "1:1:0", 0, 10, Fingerprint.Empty)
    val partition = AofInputPartition(Seq(range))
    val counters = ReadCounters.register(sc)
    try {
      val job = sc
        .parallelize(Seq(1), 1)
        .foreachAsync(_ => new AofPartitionReader(partition, false, counters, spec))
      def killed: Seq[String] = ends.asScala.toSeq.map(_.reason).collect { case k: TaskKilled =>
        k.reason
      }
      eventually("two attempts killed", 60000)(killed.size >= 2 || job.isCompleted)
      assert(!job.isCompleted, s"the job ended: ${job.value}")
      assert(killed.forall(_.contains("a task for files of host elsewhere ran on")))
      job.cancel()
      eventually("the job cancelled")(job.isCompleted)
      assert(
        ends.asScala.forall(e => e.reason == TaskSucceeded || e.reason.isInstanceOf[TaskKilled]))
    } finally {
      sc.removeSparkListener(listener)
      session.close("misplaced-run")
    }
  }

  test("a kill that was lost is asked for again while the report stays") {
    val key = MessageSeal.newKey()
    val client = zkClient("/lost-kill")
    val paths = ZkPaths("/lost-kill", "run")
    val kills = new ConcurrentLinkedQueue[Long]()
    val watch = new MisplacedTaskWatch(client, paths, key, repeatMs = 50)
    try {
      // The callback only counts: nothing is killed, as when the message to the executor is lost.
      watch.start((task, _) => kills.add(task))
      client
        .create()
        .creatingParentsIfNeeded()
        .forPath(s"${paths.misplaced}/7", MisplacedTasks.encode(7, "a", "b", key))
      eventually("the kill asked for again", 30000)(kills.size >= 2)
      assert(kills.asScala.toSet === Set(7L))
    } finally watch.close()
  }

  test("a request to kill not sealed by the run is ignored") {
    assert(MisplacedTasks.decode("7 a b".getBytes("UTF-8"), MessageSeal.newKey()).isEmpty)
    val key = MessageSeal.newKey()
    val value = MisplacedTasks.encode(7, "a", "b", key)
    assert(MisplacedTasks.decode(value, key) === Some((7L, "a", "b")))
    assert(MisplacedTasks.decode(value, MessageSeal.newKey()).isEmpty)
  }
}
