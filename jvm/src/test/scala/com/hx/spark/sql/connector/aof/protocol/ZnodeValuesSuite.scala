package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.security.MessageDigest

import scala.collection.JavaConverters._
import scala.util.Random

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.{CreateMode, KeeperException}
import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.driver.{Coordinator, OffsetBackup}
import com.hx.spark.sql.connector.aof.endpoint.{EndpointSpec, NodeEndpoints}
import com.hx.spark.sql.connector.aof.endpoint.Rounds.{awaitHosts, collect}
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, Fingerprint, KnownFile}
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.offset.{AofOffset, FileOffset, HostOffsets}
import com.hx.spark.sql.connector.aof.testkit.{TempDirectories, ZooKeeperFixture}
import com.hx.spark.sql.connector.aof.testkit.Polling.eventually
import com.hx.spark.sql.connector.aof.zookeeper.ZkClients

/** Values larger than a znode takes, against a real ZooKeeper server in its own process. */
class ZnodeValuesSuite extends AnyFunSuite with ZooKeeperFixture with TempDirectories {
  private val root = tempDirectory("aof-values-")
  private lazy val client: CuratorFramework = zkClient("/values")

  override protected def afterAll(): Unit =
    try NodeEndpoints.stop("many-files")
    finally super.afterAll()

  private def bytes(n: Int, seed: Int): Array[Byte] = {
    val b = new Array[Byte](n)
    new Random(seed).nextBytes(b)
    b
  }

  private def parts(path: String): Seq[String] =
    client.getChildren.forPath(path).asScala.toSeq.sorted

  private def md5(s: String): String =
    MessageDigest.getInstance("MD5").digest(s.getBytes(UTF_8)).map(b => f"${b & 0xff}%02x").mkString

  test("a value larger than a znode takes is written in parts and read back whole") {
    val large = bytes(2 * ZnodeValues.PartBytes + 5, 1)
    ZnodeValues.put(client, "/values/large", large)
    assert(parts("/values/large").size === 3)
    assert(client.getData.forPath("/values/large").length < 100) // the manifest only
    assert(ZnodeValues.get(client, "/values/large").map(_.toSeq) === Some(large.toSeq))
  }

  test("a new value leaves no parts of the old one behind") {
    val path = "/values/replaced"
    ZnodeValues.put(client, path, bytes(ZnodeValues.PartBytes + 1, 2))
    val first = parts(path)
    val next = bytes(3 * ZnodeValues.PartBytes, 3)
    ZnodeValues.put(client, path, next)
    assert(parts(path).size === 3)
    assert(parts(path).intersect(first).isEmpty)
    assert(ZnodeValues.get(client, path).map(_.toSeq) === Some(next.toSeq))
    ZnodeValues.put(client, path, "small".getBytes(UTF_8))
    assert(parts(path).isEmpty)
    assert(ZnodeValues.get(client, path).map(new String(_, UTF_8)) === Some("small"))
  }

  test("a manifest whose parts are gone, and an empty znode, are no value") {
    val path = "/values/superseded"
    ZnodeValues.put(client, path, bytes(ZnodeValues.PartBytes + 1, 4))
    val seen = client.getData.forPath(path) // as a cache holds it while the value is replaced
    ZnodeValues.put(client, path, bytes(ZnodeValues.PartBytes + 1, 5))
    assert(ZnodeValues.resolve(client, path, seen) === None)
    assert(ZnodeValues.resolve(client, path, Array.emptyByteArray) === None)
    assert(ZnodeValues.get(client, "/values/never-written") === None)
  }

  test("values written all at once: new, replaced, once in parts, and larger than a znode") {
    val (replaced, wasLarge) = ("/values/all/replaced", "/values/all/was-large")
    ZnodeValues.put(client, replaced, "before".getBytes(UTF_8))
    ZnodeValues.put(client, wasLarge, bytes(ZnodeValues.PartBytes + 1, 6))
    val values = Map(
      "/values/all/new/a" -> "a".getBytes(UTF_8), // its parent is made too
      replaced -> "after".getBytes(UTF_8),
      wasLarge -> "small now".getBytes(UTF_8),
      "/values/all/large" -> bytes(ZnodeValues.PartBytes + 7, 7)
    ) ++
      (1 to 200).map(n => s"/values/all/many/$n" -> s"value $n".getBytes(UTF_8))
    assert(ZnodeValues.putAll(client, values, 30000) === Map.empty)
    values.foreach { case (path, value) =>
      assert(ZnodeValues.get(client, path).map(_.toSeq) === Some(value.toSeq), path)
    }
    assert(parts(wasLarge).isEmpty)
    // A path that cannot be written (an ephemeral znode has no children) is named, with why.
    client.create().withMode(CreateMode.EPHEMERAL).forPath("/values/all/ephemeral")
    val refused = ZnodeValues.putAll(
      client,
      Map("/values/all/ephemeral/child" -> Array[Byte](1), "/values/all/ok" -> Array[Byte](2)),
      30000)
    assert(refused.keySet === Set("/values/all/ephemeral/child"))
    assert(refused.values.head.isInstanceOf[KeeperException.NoChildrenForEphemeralsException])
    assert(ZnodeValues.get(client, "/values/all/ok").map(_.toSeq) === Some(Seq[Byte](2)))
    // A client closed (a driver stopping): every write is named failed, none is waited for.
    val closed = ZkClients.open(zk.access, "/values")
    closed.close()
    val unsent = ZnodeValues.putAll(closed, Map("/values/all/ok" -> Array[Byte](3)), 30000)
    assert(unsent.keySet === Set("/values/all/ok"))
  }

  test("a node with 40,000 files: its request, answer and report each take several znodes") {
    val dir = Files.createDirectories(root.resolve("many"))
    (1 to 40000).foreach(n => Files.write(dir.resolve(f"app-$n%05d.log"), s"line $n\n".getBytes))
    val key = MessageSeal.newKey()
    val coordinator = new Coordinator(client, "/values/many", "many-files", key)
    coordinator.start()
    val spec =
      EndpointSpec("many-files", zk.access, "/values/many", SourceFiles(dir, "app.*"), 1024, key)
    NodeEndpoints.ensureRunning(spec, "host-a")
    awaitHosts(coordinator, Set("host-a"), 10000)
    val files = collect(coordinator, Map("host-a" -> Nil), 30000)("host-a")
    assert(files.size === 40000)
    val paths = ZkPaths("/values/many", "many-files")
    assert(parts(paths.answer("host-a")).size >= 2)
    // Every file read to its end: the request and the answer name each file as changed.
    val known = files.map(f => KnownFile(f.key, f.lineEnd, f.fingerprint, f.tailAtLineEnd))
    val answer = collect(coordinator, Map("host-a" -> known), 30000)("host-a")
    assert(parts(paths.request("host-a")).size >= 2)
    assert(parts(paths.answer("host-a")).size >= 2)
    assert(answer.map(f => f.key -> f.floor).toMap === files.map(f => f.key -> Some(f.size)).toMap)
    client.setData().forPath(paths.reports, Array[Byte]()) // as `status` asks for reports
    eventually("a report", 20000)(ZnodeValues.get(client, paths.report("host-a")).nonEmpty)
    val report = ZnodeValues.get(client, paths.report("host-a")).get
    assert(Messages.decodeAnswer(report, key).files.size === 40000)
    coordinator.stop()
  }

  test("the offset backup of 30,000 files reads back; a value it did not write is refused") {
    val files = (1 to 30000).map { n =>
      val f = FileOffset(
        s"/var/log/app/service-$n.log",
        FileKey(2049, 100000L + n),
        0,
        0,
        n * 1000L,
        Fingerprint(1024, md5(s"head $n")),
        Some(Fingerprint(1024, md5(s"tail $n"))),
        n * 1000L)
      f.fileId -> f
    }
    val offset = AofOffset(Map("host-a" -> HostOffsets(10000, files.toMap)))
    val backup = new OffsetBackup(client, "/values/backup")
    backup.write(offset.json())
    assert(parts("/values/backup/offsets").nonEmpty)
    assert(backup.read().map(AofOffset.fromJson) === Some(offset))
    client.setData().forPath("/values/backup/offsets", """{"hosts":{}}""".getBytes(UTF_8))
    intercept[java.util.zip.ZipException](backup.read())
  }
}
