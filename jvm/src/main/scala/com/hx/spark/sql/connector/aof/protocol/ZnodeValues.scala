package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.US_ASCII
import java.util.UUID
import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, TimeUnit}

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.api.{BackgroundCallback, CuratorEvent, CuratorEventType}
import org.apache.zookeeper.KeeperException
import org.apache.zookeeper.KeeperException.Code
import org.apache.zookeeper.data.Stat

/**
 * Values of any size at a znode. ZooKeeper refuses a znode larger than its `jute.maxbuffer` (1 MiB
 * unless every server and client is set otherwise), and a node's answer in full takes 30 to 85
 * bytes a file compressed, by the files' names: twelve to thirty thousand files would not fit.
 * Curator has no recipe for larger values, hence this one.
 *
 * A larger value goes in parts, children `<generation>.<i>` of its znode, written first; then the
 * znode itself gets a short manifest naming them, so a reader watching the znode sees the value
 * change only once it is whole; then the older generations' parts go. A reader that follows a
 * manifest whose parts are already gone sees no value: the znode has changed since, and its next
 * version is read in turn. An empty znode (made as the parent of the first parts) is no value
 * either.
 */
object ZnodeValues {

  /** Bytes in one znode, with room to spare under the default 1 MiB for the request around it. */
  val PartBytes: Int = 1000 * 1000

  // No sealed message (version byte 1), gzip (0x1f) or JSON starts like this.
  private val ManifestPrefix = "aof-parts ".getBytes(US_ASCII)

  /** Writes `data` at `path`, creating it and its parents when missing. */
  def put(client: CuratorFramework, path: String, data: Array[Byte]): Unit = {
    val generation = UUID.randomUUID().toString
    val parts = if (data.length > PartBytes) data.grouped(PartBytes).toSeq else Nil
    parts.zipWithIndex.foreach { case (part, i) =>
      client.create().creatingParentsIfNeeded().forPath(s"$path/$generation.$i", part)
    }
    val head = if (parts.isEmpty) data else manifest(generation, parts.size, data.length)
    if (set(client, path, head).getNumChildren > parts.size) {
      removeParts(client, path, Some(generation))
    }
  }

  /**
   * Writes each value as `put` does, those in one piece all sent before any reply is awaited: a
   * write waits for ZooKeeper to log it, and a driver asking a thousand hosts one write at a time
   * waits a thousand times. Returns the paths not written within `timeoutMs`, with why.
   */
  def putAll(
      client: CuratorFramework,
      values: Map[String, Array[Byte]],
      timeoutMs: Long): Map[String, Exception] = {
    val (large, small) = values.partition(_._2.length > PartBytes)
    // Per path: why it failed, or whether parts of an earlier value are left to remove.
    val outcomes = new ConcurrentHashMap[String, Either[Exception, Boolean]]()
    val pending = new CountDownLatch(small.size)
    def ended(path: String, outcome: Either[Exception, Boolean]): Unit = {
      outcomes.put(path, outcome)
      pending.countDown()
    }
    // A write that cannot even be queued (a client closing, say) fails that path alone.
    def queued(path: String)(send: => Unit): Unit =
      try send
      catch { case e: Exception => ended(path, Left(e)) }
    val callback: BackgroundCallback = new BackgroundCallback {
      override def processResult(c: CuratorFramework, e: CuratorEvent): Unit = {
        val path = e.getContext.asInstanceOf[String]
        (Code.get(e.getResultCode), e.getType) match {
          case (Code.OK, _) =>
            ended(path, Right(e.getStat != null && e.getStat.getNumChildren > 0))
          case (Code.NONODE, CuratorEventType.SET_DATA) =>
            queued(path) {
              c.create()
                .creatingParentsIfNeeded()
                .inBackground(this, path)
                .forPath(path, small(path))
            }
          case (Code.NODEEXISTS, CuratorEventType.CREATE) =>
            queued(path)(c.setData().inBackground(this, path).forPath(path, small(path)))
          case (code, _) => ended(path, Left(KeeperException.create(code, path)))
        }
      }
    }
    small.foreach { case (path, data) =>
      queued(path)(client.setData().inBackground(callback, path).forPath(path, data))
    }
    pending.await(timeoutMs, TimeUnit.MILLISECONDS)
    def failure(path: String)(write: => Unit): Option[(String, Exception)] =
      try {
        write
        None
      } catch { case e: Exception => Some(path -> e) }
    val smallFailed = small.keys.flatMap { path =>
      Option(outcomes.get(path)) match {
        case None => Some(path -> new KeeperException.OperationTimeoutException())
        case Some(Left(e)) => Some(path -> e)
        case Some(Right(partsLeft)) =>
          failure(path)(if (partsLeft) removeParts(client, path, except = None))
      }
    }
    val largeFailed = large.flatMap { case (path, data) => failure(path)(put(client, path, data)) }
    (smallFailed ++ largeFailed).toMap
  }

  /**
   * A value whose head is written in a transaction of the caller's, beside other writes: `parts`
   * of it, under `generation`, are already at its znode, which no reader follows before the head
   * names them.
   */
  final case class Staged(head: Array[Byte], generation: Option[String], parts: Int)

  /**
   * Stages `data` for `path`: in one piece when it has at most `inOneMax` bytes (the rest of the
   * transaction must fit in the same request), else its parts written now, the znode made if
   * missing. Once the head is written, [[settle]] removes the parts of older values.
   */
  def stage(client: CuratorFramework, path: String, data: Array[Byte], inOneMax: Int): Staged =
    if (data.length <= inOneMax) Staged(data, None, 0)
    else {
      val generation = UUID.randomUUID().toString
      val parts = data.grouped(PartBytes).toSeq
      parts.zipWithIndex.foreach { case (part, i) =>
        client.create().creatingParentsIfNeeded().forPath(s"$path/$generation.$i", part)
      }
      Staged(manifest(generation, parts.size, data.length), Some(generation), parts.size)
    }

  /** Once `staged`'s head is written and its znode has `children`: the older parts removed. */
  def settle(client: CuratorFramework, path: String, staged: Staged, children: Int): Unit =
    if (children > staged.parts) removeParts(client, path, staged.generation)

  /** The value at `path`; None when there is none, or it is being replaced. */
  def get(client: CuratorFramework, path: String): Option[Array[Byte]] =
    try resolve(client, path, client.getData.forPath(path))
    catch { case _: KeeperException.NoNodeException => None }

  /** The value whose znode at `path` holds `head` (as a cache saw it), its parts read when any. */
  def resolve(client: CuratorFramework, path: String, head: Array[Byte]): Option[Array[Byte]] =
    if (head == null || head.isEmpty) None
    else {
      parsed(head) match {
        case None => Some(head)
        case Some((generation, count, length)) =>
          try {
            val parts = (0 until count).map(i => client.getData.forPath(s"$path/$generation.$i"))
            Some(Array.concat(parts: _*)).filter(_.length == length)
          } catch { case _: KeeperException.NoNodeException => None }
      }
    }

  /** What a value in parts leaves in its znode: `aof-parts <generation> <count> <length>`. */
  def manifest(generation: String, count: Int, length: Int): Array[Byte] =
    ManifestPrefix ++ s"$generation $count $length".getBytes(US_ASCII)

  /** The generation, count and length a manifest names; None for a value in one piece. */
  def parsed(head: Array[Byte]): Option[(String, Int, Int)] =
    if (!head.startsWith(ManifestPrefix)) None
    else {
      val Array(generation, count, length) =
        new String(head.drop(ManifestPrefix.length), US_ASCII).split(' '): @unchecked
      Some((generation, count.toInt, length.toInt))
    }

  private def set(client: CuratorFramework, path: String, data: Array[Byte]): Stat =
    try client.setData().forPath(path, data)
    catch {
      case _: KeeperException.NoNodeException =>
        try {
          client.create().creatingParentsIfNeeded().forPath(path, data)
          new Stat() // a znode just made has no children
        } catch {
          case _: KeeperException.NodeExistsException => client.setData().forPath(path, data)
        }
    }

  private def removeParts(client: CuratorFramework, path: String, except: Option[String]): Unit =
    client.getChildren
      .forPath(path)
      .asScala
      .filterNot(part => except.exists(g => part.startsWith(s"$g.")))
      .foreach { part =>
        try client.delete().forPath(s"$path/$part")
        catch { case _: KeeperException.NoNodeException => () } // another writer removed it
      }
}
