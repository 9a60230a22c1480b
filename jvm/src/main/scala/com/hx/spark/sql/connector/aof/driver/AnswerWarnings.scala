package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta}
import com.hx.spark.sql.connector.aof.plan.AnswerChange

/**
 * Says each problem the nodes report when it starts, and when it ends: a directory that does not
 * exist (at start, a typo in `path` is the likely cause) or cannot be listed, directories whose
 * files `path` matches none of, a file that cannot be read; and, once for each pair, two hosts
 * that see the same files. Said at every trigger they would bury the rest of the log. A host
 * that did not answer changes nothing.
 */
final class AnswerWarnings(roots: Seq[String], warn: String => Unit, info: String => Unit) {
  private val missing = roots match {
    case Seq(root) => s"$root does not exist"
    case _ => s"none of ${roots.mkString(", ")} exists"
  }
  private var problems = Map.empty[String, String]
  // Per host, its unreadable files by path (their key, and why), and its last answer's files.
  private var unreadable = Map.empty[String, Map[String, (FileKey, String)]]
  private var lastFiles = Map.empty[String, Array[FileMeta]]
  private var sharing = Set.empty[Seq[String]]
  private var unmatched = Set.empty[String]

  def update(answers: Answers): Unit = {
    warnShared(answers.files)
    warnUnmatched(answers)
    val now = answers.unlisted.map { case (host, why) =>
      host -> s"on $host, $why; its files are read once it can be listed"
    } ++ answers.absent.map { host =>
      host -> (s"$missing on $host (check `path` for a typo); it is looked " +
        "for at every trigger and its files are read once it appears")
    }
    now.foreach { case (host, what) => if (!problems.get(host).contains(what)) warn(s"aof: $what") }
    val answered = answers.files.keySet ++ answers.unlisted.keySet
    answered.filter(h => problems.contains(h) && !now.contains(h)).foreach { host =>
      info(s"aof: ${roots.mkString(", ")} on $host can be listed again")
    }
    problems = problems -- answered ++ now

    answers.files.foreach { case (host, files) => warnUnreadable(host, files) }
  }

  /**
   * Says which files of `host` became unreadable, and which can be read again. Only the files
   * that are not as its last answer had them are looked at ([[AnswerChange]]): a file that is
   * the same object is as it was, and reading every file of thousands again is a cache miss each.
   */
  private def warnUnreadable(host: String, files: Seq[FileMeta]): Unit = {
    val before = unreadable.getOrElse(host, Map.empty)
    val change = lastFiles.get(host).flatMap(AnswerChange.between(_, files))
    val now = change.fold(files.toArray)(_.files)
    // The paths whose file may differ: those of the files changed, and those the changed or gone
    // files had. Any other path holds the file it held.
    val (looked, touched) = change match {
      case Some(c) =>
        val changed = c.changed.map(now(_))
        val keys = changed.iterator.map(_.key).toSet ++ c.gone
        (changed, changed.map(_.path) ++ before.collect { case (p, (k, _)) if keys(k) => p })
      case None => (now.toSeq, before.keys)
    }
    val found = looked.flatMap(f => f.unreadable.map(f.path -> (f.key, _))).toMap
    // Said in the order of their paths, as a comparison of whole answers would say them.
    found.toSeq
      .sortBy(_._1)
      .filter { case (path, (_, why)) => !before.get(path).exists(_._2 == why) }
      .foreach { case (path, (_, why)) =>
        warn(
          s"aof: cannot read $host:$path ($why); its position is kept, and it is read on from " +
            "there once it can be")
      }
    touched.filter(p => before.contains(p) && !found.contains(p)).toSeq.distinct.sorted.foreach {
      p =>
        info(s"aof: $host:$p can be read again")
    }
    unreadable += host -> (before -- touched ++ found)
    lastFiles += host -> now
  }

  /** Hosts whose directories hold files, none of which `path` matches: said once, until it does. */
  private def warnUnmatched(answers: Answers): Unit = {
    answers.closest.filter(h => !unmatched(h._1)).foreach { case (host, names) =>
      warn(
        s"aof: ${roots.mkString(", ")} on $host holds files, but 'path' matches none of them; " +
          s"the closest: ${names.mkString(", ")}. The last part of 'path' is a regex on whole " +
          "file names, case-sensitive ('app\\.log.*' reads app.log and its rotations). Files " +
          "that come to match are read.")
    }
    unmatched = unmatched -- answers.files.keySet ++ answers.closest.keySet
  }

  /**
   * Two hosts that report one file (its device, inode and content the same) see one disk: each
   * reads its lines. So do executor pods on one Kubernetes node with a `hostPath` volume, unless
   * `node.name.env` makes them one node.
   */
  private def warnShared(files: Map[String, Seq[FileMeta]]): Unit = if (files.size > 1) {
    // One host's news alone holds no file of two hosts: most triggers of a busy file's node.
    val seen = for {
      (host, metas) <- files.toSeq
      f <- metas if f.unreadable.isEmpty && f.size > 0
    } yield ((f.key, f.fingerprint), (host, f.path))
    seen.groupBy(_._1).values.map(_.map(_._2)).foreach { copies =>
      val hosts = copies.map(_._1).distinct.sorted
      if (hosts.size > 1 && !sharing(hosts)) {
        sharing += hosts
        warn(
          s"aof: hosts ${hosts.mkString(", ")} report the same file ${copies.head._2} (same " +
            "device, inode and content): they see one disk, and each reads its lines. If they " +
            "are executors on one node (Kubernetes pods sharing a hostPath volume), set the " +
            "option node.name.env to an environment variable holding the node's name.")
      }
    }
  }
}
