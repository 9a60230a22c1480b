package com.hx.spark.sql.connector.aof.protocol

import java.nio.charset.StandardCharsets.US_ASCII
import java.util.UUID

import scala.collection.JavaConverters._

import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.KeeperException
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
    if (set(client, path, head).getNumChildren > parts.size) removeParts(client, path, generation)
  }

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

  private def removeParts(client: CuratorFramework, path: String, except: String): Unit =
    client.getChildren
      .forPath(path)
      .asScala
      .filterNot(_.startsWith(s"$except."))
      .foreach { part =>
        try client.delete().forPath(s"$path/$part")
        catch { case _: KeeperException.NoNodeException => () } // another writer removed it
      }
}
