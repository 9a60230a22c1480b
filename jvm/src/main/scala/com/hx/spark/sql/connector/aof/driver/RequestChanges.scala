package com.hx.spark.sql.connector.aof.driver

import com.hx.spark.sql.connector.aof.offset.{AofOffset, HostOffsets}

/**
 * Which hosts' request may have changed since their standing one was made: those whose
 * offsets (and committed ones, with `cleanup`) are not the very objects the request was made
 * from. The planner keeps a host's offsets object when nothing of it changed, so a trigger does
 * not even look at a host that did not change. Used by the thread that runs the triggers only.
 */
final class RequestChanges {
  private var askedFrom = Map.empty[String, (Option[HostOffsets], Option[HostOffsets])]

  /** The hosts of `hosts` to ask again, given the trigger's start and the last commit. */
  def of(hosts: Set[String], start: AofOffset, committed: Option[AofOffset]): Set[String] =
    hosts.filter(h => !askedFrom.get(h).exists(same(_, from(h, start, committed))))

  /** `hosts` have a standing request made from these offsets. */
  def asked(hosts: Set[String], start: AofOffset, committed: Option[AofOffset]): Unit =
    askedFrom ++= hosts.map(h => h -> from(h, start, committed))

  private def from(h: String, start: AofOffset, committed: Option[AofOffset]) =
    (start.hosts.get(h), committed.flatMap(_.hosts.get(h)))

  private def same(
      a: (Option[HostOffsets], Option[HostOffsets]),
      b: (Option[HostOffsets], Option[HostOffsets])): Boolean = {
    def one(x: Option[HostOffsets], y: Option[HostOffsets]) = (x, y) match {
      case (Some(p), Some(q)) => p eq q
      case (None, None) => true
      case _ => false
    }
    one(a._1, b._1) && one(a._2, b._2)
  }
}
