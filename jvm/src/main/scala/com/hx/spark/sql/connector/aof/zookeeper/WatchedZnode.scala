package com.hx.spark.sql.connector.aof.zookeeper

import java.util.concurrent.atomic.{AtomicBoolean, AtomicReference}

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
 */
final class WatchedZnode(client: CuratorFramework, path: String, changed: () => Unit) {
  private val closed = new AtomicBoolean(false)
  private val data = new AtomicReference[Option[Array[Byte]]](None)

  private val watcher: CuratorWatcher = (event: WatchedEvent) =>
    if (event.getType != EventType.None) read()
  // A new session has none of the old one's watches; a change while disconnected may be missed.
  private val reconnected: ConnectionStateListener = (_: CuratorFramework, s: ConnectionState) =>
    if (s == ConnectionState.RECONNECTED) read()

  private val readCallback: BackgroundCallback = (_: CuratorFramework, e: CuratorEvent) =>
    Code.get(e.getResultCode) match {
      case Code.OK => update(Some(e.getData))
      case Code.NONODE =>
        update(None)
        client.checkExists().usingWatcher(watcher).inBackground(existsCallback).forPath(path)
      case _ => () // the connection is down: read again once it is back
    }
  // Created between the `getData` that found nothing and this `exists`: its watch would not fire.
  private val existsCallback: BackgroundCallback = (_: CuratorFramework, e: CuratorEvent) =>
    if (Code.get(e.getResultCode) == Code.OK) read()

  def start(): Unit = {
    client.getConnectionStateListenable.addListener(reconnected)
    read()
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
