package com.hx.spark.sql.connector.aof.zookeeper

import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong, AtomicReference}

import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.api.{BackgroundCallback, CuratorEvent, CuratorWatcher}
import org.apache.curator.framework.state.{ConnectionState, ConnectionStateListener}
import org.apache.zookeeper.KeeperException.Code
import org.apache.zookeeper.WatchedEvent
import org.apache.zookeeper.Watcher.Event.EventType

/**
 * The data of one znode, read again whenever it changes, with `changed` called after each read.
 *
 * Curator's `NodeCache` asks `exists` before each `getData`: two round trips a change. A host's
 * request changes at every trigger, which it answers with one write: that `exists` was a third of
 * each host's round trips with ZooKeeper. Here a change costs one `getData`; `exists` is asked
 * only while the znode is missing, to hear when it comes.
 *
 * A watch is set by a read: a read that fails while the connection stays up leaves none, and the
 * znode's changes go unheard until it is read again. [[check]] heals that at small cost.
 */
final class WatchedZnode(client: CuratorFramework, path: String, changed: () => Unit) {
  import WatchedZnode._

  private val closed = new AtomicBoolean(false)
  private val data = new AtomicReference[Option[Array[Byte]]](None)
  // The change the data last read holds (its `mzxid`), `Missing` while there is no znode.
  private val readAt = new AtomicLong(Unread)

  // Not at a watch's removal, which has an event of its own: no change to read.
  private val watcher: CuratorWatcher = (event: WatchedEvent) => if (Changes(event.getType)) read()
  // A new session has none of the old one's watches; a change while disconnected may be missed.
  private val reconnected: ConnectionStateListener = (_: CuratorFramework, s: ConnectionState) =>
    if (s == ConnectionState.RECONNECTED) read()

  private val readCallback: BackgroundCallback = (_: CuratorFramework, e: CuratorEvent) =>
    Code.get(e.getResultCode) match {
      case Code.OK =>
        readAt.set(e.getStat.getMzxid)
        update(Some(e.getData))
      case Code.NONODE =>
        readAt.set(Missing)
        update(None)
        client.checkExists().usingWatcher(watcher).inBackground(existsCallback).forPath(path)
      case _ => () // read again once the connection is back, or at the next `check`
    }
  // Created between the `getData` that found nothing and this `exists`: its watch would not fire.
  private val existsCallback: BackgroundCallback = (_: CuratorFramework, e: CuratorEvent) =>
    if (Code.get(e.getResultCode) == Code.OK) read()
  private val checkCallback: BackgroundCallback = (_: CuratorFramework, e: CuratorEvent) =>
    Code.get(e.getResultCode) match {
      case Code.OK if e.getStat.getMzxid != readAt.get => read()
      case Code.NONODE if readAt.get != Missing => read()
      case _ => ()
    }

  def start(): Unit = {
    client.getConnectionStateListenable.addListener(reconnected)
    read()
  }

  /**
   * Reads the znode again if it changed since the last read, a change its watch did not tell:
   * one `exists` when it did not.
   */
  def check(): Unit = if (!closed.get) {
    client.checkExists().inBackground(checkCallback).forPath(path)
  }

  /** The data last read, `None` while the znode is missing or not read yet. */
  def current: Option[Array[Byte]] = data.get

  def close(): Unit = {
    closed.set(true)
    client.getConnectionStateListenable.removeListener(reconnected)
  }

  private def read(): Unit = if (!closed.get) {
    client.getData.usingWatcher(watcher).inBackground(readCallback).forPath(path)
  }

  private def update(value: Option[Array[Byte]]): Unit = if (!closed.get) {
    data.set(value)
    changed()
  }
}

object WatchedZnode {
  private val Unread = -2L
  private val Missing = -1L
  private val Changes = Set(EventType.NodeCreated, EventType.NodeDataChanged, EventType.NodeDeleted)
}
