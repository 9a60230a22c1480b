package com.hx.spark.sql.connector.aof.model

import scala.collection.mutable
import scala.util.Random

import com.hx.spark.sql.connector.aof.driver.ChangedHosts
import com.hx.spark.sql.connector.aof.endpoint.ChangeCount
import com.hx.spark.sql.connector.aof.testkit.Spark4Only

/**
 * The change-reporting path as a model: random writes on a few hosts, their watch events late,
 * coalesced or lost, counts whose write fails, counts and answers that reach the driver late,
 * triggers between, with the endpoint's own [[ChangeCount]] and the driver's [[ChangedHosts]].
 * What must hold: a host notes one change between two looks however many writes it had (and one
 * more per write that failed); and once the events came (and, for those lost, a note every so
 * often), the driver's next triggers see every host's files as they are.
 */
@Spark4Only
class ChangeReportingModelSuite extends SeededSuite {
  private val hosts = Seq("a", "b", "c")
  private val opsPerSeed = 400

  /** One host: its files' version, the endpoint's count, what ZooKeeper and the driver hold. */
  private final class Host {
    var version = 0
    val count = new ChangeCount
    var eventDue = false // a watch event on its way: coalesced with the next ones
    var eventLost = false // one lost: only a note every so often sees the change
    var written = Option.empty[Long] // the count in ZooKeeper, and whether the driver heard it
    var countHeard = true
    var lateAnswer = Option.empty[(Long, Int)] // the answer written, not heard yet
    var answer = Option.empty[(Long, Int)] // the answer the driver holds: count seen, version
    var heardCount = 0L
    var writesSinceLook = 0
    var failedSinceLook = 0
  }

  private final class World(rnd: Random, done: mutable.ArrayBuffer[String]) {
    val of: Map[String, Host] = hosts.map(_ -> new Host).toMap
    private var owing = Set.empty[String]
    private var raised = Set.empty[String]

    private def step(what: String): Unit = {
      done += what
      covered(what.takeWhile(_ != ' ')) += 1
    }

    def write(h: String): Unit = {
      val host = of(h)
      host.version += 1
      if (rnd.nextInt(20) == 0) { host.eventLost = true; step(s"write-unseen $h") }
      else { host.eventDue = true; step(s"write $h") }
    }

    /** The endpoint notes a change: from a watch event, once quiet, or every so often. */
    def note(h: String, why: String): Unit = {
      val host = of(h)
      host.count.note(0L).foreach { c =>
        if (rnd.nextInt(10) == 0) {
          host.count.unwritten()
          host.failedSinceLook += 1
          step(s"count-unwritten $h ($why)")
        } else {
          host.written = Some(c)
          host.countHeard = false
          host.writesSinceLook += 1
          step(s"count $h=$c ($why)")
        }
      }
      assert(host.writesSinceLook <= 1 + host.failedSinceLook, s"$h wrote its count again")
    }

    def deliverEvent(h: String): Unit = if (of(h).eventDue) {
      of(h).eventDue = false
      note(h, "event")
    }

    def hearCount(h: String): Unit = of(h).written.filter(_ => !of(h).countHeard).foreach { c =>
      of(h).countHeard = true
      if (c != of(h).heardCount) raised += h
      of(h).heardCount = c
      step(s"heard-count $h=$c")
    }

    def hearAnswer(h: String): Unit = of(h).lateAnswer.foreach { a =>
      of(h).answer = Some(a)
      of(h).lateAnswer = None
      step(s"heard-answer $h")
    }

    /** A trigger: the hosts owing a look are called, and look; some answers come late. */
    def trigger(late: Boolean): Unit = {
      owing = ChangedHosts.owing(owing, raised, of(_).heardCount, of(_).answer.map(_._1))
      raised = Set.empty
      step(s"trigger ${owing.toSeq.sorted.mkString(",")}")
      owing.foreach { h =>
        val host = of(h)
        val answer = (host.count.looking(), host.version)
        host.writesSinceLook = 0
        host.failedSinceLook = 0
        // ZooKeeper keeps a host's latest answer: an earlier one on its way is never heard.
        if (late && rnd.nextBoolean()) host.lateAnswer = Some(answer)
        else {
          host.answer = Some(answer)
          host.lateAnswer = None
        }
      }
    }

    /** Everything on its way arrives, a note every so often, then a trigger: all seen. */
    def settle(): Unit = {
      hosts.foreach { h =>
        val host = of(h)
        deliverEvent(h)
        if (host.eventLost) note(h, "every so often")
        host.eventLost = false
        hearAnswer(h)
        // A count left unwritten is written at a later note: every so often, at the latest.
        def told = host.answer.exists(_._2 == host.version) ||
          host.written.exists(c => host.answer.forall(_._1 < c))
        var notes = 0
        while (!told && notes < 100) {
          note(h, "every so often")
          notes += 1
        }
        hearCount(h)
      }
      trigger(late = false)
      hosts.foreach { h =>
        val host = of(h)
        assert(
          host.answer.exists(_._2 == host.version),
          s"$h: the driver's answer ${host.answer} is stale: version ${host.version}, count " +
            s"${host.written} written, ${host.heardCount} heard"
        )
      }
      step("settled")
    }
  }

  seedTests(
    "change reporting model",
    "every change reaches the driver, one count a look",
    Seeds.of(100),
    25) { (seed, done) =>
    val rnd = new Random(seed)
    val world = new World(rnd, done)
    (1 to opsPerSeed).foreach { _ =>
      val h = hosts(rnd.nextInt(hosts.size))
      rnd.nextInt(12) match {
        case 0 | 1 | 2 | 3 => world.write(h)
        case 4 | 5 => world.deliverEvent(h)
        case 6 => world.note(h, "quiet")
        case 7 | 8 => world.hearCount(h)
        case 9 => world.hearAnswer(h)
        case 10 => world.trigger(late = true)
        case _ => if (rnd.nextInt(4) == 0) world.settle() else world.trigger(late = false)
      }
    }
    world.settle()
  }
}
