package com.hx.spark.sql.connector.aof.stream

import com.hx.spark.sql.connector.aof.zookeeper.Answers

/**
 * Says each problem the nodes report when it starts, and when it ends: a directory that does not
 * exist (at start, a typo in `path` is the likely cause) or cannot be listed, a file that cannot
 * be read. Said at every trigger they would bury the rest of the log. A host that did not answer
 * changes nothing.
 */
final class ReportWarnings(directory: String, warn: String => Unit, info: String => Unit) {
  private var problems = Map.empty[String, String]
  private var unreadable = Map.empty[String, Map[String, String]]

  def update(answers: Answers): Unit = {
    val now = answers.unlisted.map { case (host, why) =>
      host -> s"on $host, $why; its files are read once it can be listed"
    } ++ answers.absent.map { host =>
      host -> (s"$directory does not exist on $host (check `path` for a typo); it is looked " +
        "for at every trigger and its files are read once it appears")
    }
    now.foreach { case (host, what) => if (!problems.get(host).contains(what)) warn(s"aof: $what") }
    val answered = answers.files.keySet ++ answers.unlisted.keySet
    answered.filter(h => problems.contains(h) && !now.contains(h)).foreach { host =>
      info(s"aof: $directory on $host can be listed again")
    }
    problems = problems -- answered ++ now

    answers.files.foreach { case (host, files) =>
      val found = files.flatMap(f => f.unreadable.map(f.path -> _)).toMap
      val before = unreadable.getOrElse(host, Map.empty)
      found.filter { case (path, why) => !before.get(path).contains(why) }.foreach {
        case (path, why) =>
          warn(
            s"aof: cannot read $host:$path ($why); its position is kept, and it is read on " +
              "from there once it can be")
      }
      before.keys.filterNot(found.contains).foreach(p => info(s"aof: $host:$p can be read again"))
      unreadable += host -> found
    }
  }
}
