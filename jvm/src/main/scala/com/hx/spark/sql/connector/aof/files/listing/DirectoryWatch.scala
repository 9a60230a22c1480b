package com.hx.spark.sql.connector.aof.files.listing

import java.io.IOException
import java.nio.file.{ClosedWatchServiceException, FileSystems, Files, Path, WatchKey, WatchService}
import java.nio.file.StandardWatchEventKinds.{ENTRY_CREATE, ENTRY_DELETE, ENTRY_MODIFY, OVERFLOW}

import scala.collection.JavaConverters._
import scala.util.{Success, Try}

/**
 * Tells whoever watches a directory that something in it was created, written, renamed or
 * deleted. One `WatchService` (inotify on Linux) for the whole JVM, with one thread: Linux gives
 * a user 128 inotify instances by default, and an executor may serve several queries, so a
 * service per endpoint would run out where one per JVM does not.
 *
 * What it cannot watch (no service, a directory that cannot be registered) it says in
 * [[Registration.complete]]: the caller then looks more often by itself. The nearest directory
 * above one that cannot be registered is watched instead, where that one's making or its
 * permissions' change shows. A listener is told too when the directories may be others now: a
 * directory made in one, a watched one gone, or events lost (the kernel's queue overflowed); the
 * caller then watches again what it lists.
 */
object DirectoryWatch {

  /** What one caller watches; `complete` when every directory asked for is watched. */
  trait Registration {
    def complete: Boolean
    def close(): Unit

    /**
     * The same watched again, where a listener that hears once heard them, with the directories
     * the paths name now: what registering again gets, without registering every directory
     * again. None when that cannot be said: register again.
     */
    def again(): Option[Registration] = None
  }

  /** @param files what the directories are of, where they were registered for it */
  private final class Keys(
      keys: Seq[WatchKey],
      listener: Listener,
      val complete: Boolean,
      files: Option[SourceFiles])
      extends Registration {

    /** The same, said incomplete. */
    def incomplete: Keys = new Keys(keys, listener, false, files)

    // Among 20,000 files in 200 directories a file written all the time is heard in one: that
    // one is registered again, and one made since, not the 200 (a syscall each, through the
    // watch's thread).
    override def again(): Option[Registration] = {
      // Listed before the lock, as `registerFor` lists: the watch's thread does not wait for it.
      val wanted = files.filter(_ => complete).flatMap(f => Try(directoriesFor(f)).toOption)
      DirectoryWatch.synchronized(watchedAgain(wanted))
    }

    private def watchedAgain(wanted: Option[Seq[Path]]): Option[Registration] = {
      val heard = listener.heard
      listener.heard = Nil
      val kept = keys.filterNot(heard.contains).filter(_.isValid)
      val watching = kept.map(_.watchable.asInstanceOf[Path]).toSet
      for {
        dirs <- wanted
        s <- service
        renewed = dirs.filterNot(watching).map(watched(s, _))
        if renewed.forall(_.isSuccess)
      } yield {
        val added = renewed.map(_.get).filterNot(kept.contains).distinct
        added.foreach(k => listeners += k -> (listener :: listeners.getOrElse(k, Nil)))
        new Keys(kept ++ added, listener, complete, files)
      }
    }

    override def close(): Unit = DirectoryWatch.synchronized {
      keys.foreach { k =>
        val left = listeners.getOrElse(k, Nil).filterNot(_ eq listener)
        if (left.isEmpty) {
          listeners -= k
          k.cancel()
        } else listeners += k -> left
      }
    }
  }

  /** A caller's function, and whether it hears each directory's first change only. */
  private final class Listener(val changed: (Path, Boolean) => Unit, val once: Boolean) {
    // With `once`, the keys it heard and left since it registered (under DirectoryWatch's lock).
    var heard: List[WatchKey] = Nil
  }

  private var listeners = Map.empty[WatchKey, List[Listener]]
  private lazy val service: Option[WatchService] =
    Try(FileSystems.getDefault.newWatchService()).toOption.map { s =>
      val t = new Thread(() => dispatch(s), "aof-directory-watch")
      t.setDaemon(true)
      t.start()
      s
    }

  /**
   * Watches the directories `files` names, and those on the way to them from where each path's
   * literal part ends, where a new one shows first. One that cannot be listed now leaves the
   * registration incomplete, as one that cannot be watched does.
   */
  def registerFor(
      files: SourceFiles,
      changed: (Path, Boolean) => Unit,
      once: Boolean): Registration = {
    val dirs = Try(directoriesFor(files))
    val registration = keys(dirs.getOrElse(files.roots), changed, once, Some(files))
    if (dirs.isSuccess) registration else registration.incomplete
  }

  // The directories `files` names, the roots of its paths and those on the way from them.
  private def directoriesFor(files: SourceFiles): Seq[Path] = {
    val roots = files.roots
    def onTheWay(dir: Path): Seq[Path] = roots.find(dir.startsWith).toSeq.flatMap { root =>
      Iterator.iterate(dir)(_.getParent).takeWhile(d => d != null && d.startsWith(root)).toSeq
    }
    val all = files.directories().map(_.path)
    (roots ++ all ++ all.flatMap(onTheWay)).distinct
  }

  /**
   * Calls `changed` (on the watch's thread: it must return quickly) at each change in `dirs`,
   * with the directory (or the one watched in its stead) and `true` when the directories may be
   * others now. With `once`, at the first change of each
   * directory only, until the caller registers again: a directory no caller listens to any more
   * is not watched, so a file written all the time costs the kernel and this JVM nothing more.
   */
  def register(
      dirs: Seq[Path],
      changed: (Path, Boolean) => Unit,
      once: Boolean = false): Registration = keys(dirs, changed, once, None)

  private def keys(
      dirs: Seq[Path],
      changed: (Path, Boolean) => Unit,
      once: Boolean,
      files: Option[SourceFiles]): Keys =
    synchronized {
      // Its own object: a caller that registers again before closing keeps both apart.
      val listener = new Listener(changed, once)
      val keys = service.toSeq.flatMap { s =>
        dirs.distinct.map { d =>
          val key = watched(s, d)
          (key, if (key.isSuccess) None else nearestWatchable(s, d))
        }
      }
      val registered = keys.flatMap { case (key, instead) => key.toOption.orElse(instead) }.distinct
      registered.foreach { k =>
        listeners += k -> (listener :: listeners.getOrElse(k, Nil))
      }
      new Keys(registered, listener, service.nonEmpty && keys.forall(_._1.isSuccess), files)
    }

  /**
   * The nearest directory above `dir` that can be watched: where `dir` is made, or made readable
   * (its permissions are an event in its parent, never in itself), shows at once.
   */
  private def nearestWatchable(s: WatchService, dir: Path): Option[WatchKey] =
    Iterator
      .iterate(dir.toAbsolutePath.getParent)(_.getParent)
      .takeWhile(_ != null)
      .map(watched(s, _))
      .collectFirst { case Success(k) => k }

  private def watched(s: WatchService, dir: Path): Try[WatchKey] =
    Try(dir.register(s, ENTRY_CREATE, ENTRY_MODIFY, ENTRY_DELETE))

  /** The listeners to call for `key`'s change; those that hear once hear no more of it. */
  private def hearing(key: WatchKey): List[Listener] = synchronized {
    val all = listeners.getOrElse(key, Nil)
    val staying = all.filterNot(_.once)
    all.filter(_.once).foreach(l => l.heard ::= key)
    if (staying.size < all.size) {
      if (staying.isEmpty) {
        listeners -= key
        key.cancel()
      } else listeners += key -> staying
    }
    all
  }

  private def dispatch(s: WatchService): Unit =
    try {
      while (true) {
        val key = s.take()
        val dir = key.watchable.asInstanceOf[Path]
        val layout = key.pollEvents().asScala.exists { e =>
          e.kind == OVERFLOW || (e.kind == ENTRY_CREATE && (e.context match {
            case name: Path => Files.isDirectory(dir.resolve(name))
            case _ => true
          }))
        }
        val valid = key.reset()
        hearing(key).foreach(l => Try(l.changed(dir, layout || !valid)))
      }
    } catch {
      case _: ClosedWatchServiceException | _: InterruptedException => ()
      case _: IOException => ()
    }
}
