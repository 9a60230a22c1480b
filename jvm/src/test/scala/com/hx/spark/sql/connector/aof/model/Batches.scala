package com.hx.spark.sql.connector.aof.model

import com.hx.spark.sql.connector.aof.backlog.WriteTimes
import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}
import com.hx.spark.sql.connector.aof.offset.AofOffset
import com.hx.spark.sql.connector.aof.plan.{
  CopiesLookedFor, FileRange, News, PlanChanges, PlanLimits, PlanMemos, Planner, Ranges
}
import com.hx.spark.sql.connector.aof.protocol.{
  Answer, Answered, DriverExchange, Exchange, HostExchanges, Request
}
import com.hx.spark.sql.connector.aof.read.ReadCounters

/**
 * A query's triggers on one node, as the models run them without Spark's scheduler: the node's
 * news planned, the batch read range by range and committed. How a suite's node looks at its
 * files and how it reads a range are its own; so is what it does between the steps.
 *
 * The node and the driver talk as the endpoint and the driver do, messages handed over by hand:
 * the driver sends a request only when what it tracks changes, the node answers it at once and
 * again at each of its own looks ([[nodeLooks]], as its watch would have it look), only when its
 * answer changed, each answer replacing the last where the driver reads it (so the driver may
 * miss some); a trigger plans the latest answer it has not taken yet, however old, and when that
 * plans nothing new, has the node look first.
 */
abstract class Batches(host: String, limits: PlanLimits, counters: ReadCounters) {
  var committed: AofOffset = AofOffset.Empty
  private var planned = Option.empty[AofOffset]
  private val memos = PlanMemos.always
  private var plannedLoss = 0L
  private val driver = new HostExchanges
  private var node = new DriverExchange
  // The node's latest answer, as the driver would find it in the answer's znode.
  private var latest = Option.empty[Answer]

  /** Whether a plan names the files the committed batches read to their end (`cleanup`). */
  var cleaning = false

  /**
   * The node's files, given what the driver tracks there and what it retired, and the files it
   * may remove (`cleanup`).
   */
  protected def scan(
      known: Seq[KnownFile],
      retired: Map[String, KnownFile],
      remove: Set[FileKey]): Seq[FileMeta]

  protected def readRange(range: FileRange): Unit

  /** How many rows were read so far. */
  protected def rowsRead: Int

  /** Bytes counted lost, by the planner or by a reader. */
  def lost: Long = plannedLoss + counters.bytesLost.value

  /** Whether a batch is planned and not read yet. */
  def pending: Boolean = planned.nonEmpty

  /** The node looks at its files now and answers its standing request again if they changed. */
  def nodeLooks(): Unit = node.standing.foreach { case (request, known, before) =>
    answer(request, known, before)
  }

  /**
   * A new endpoint: it keeps nothing of the last one's answers, and answers the request it finds,
   * or asks for it in full when it is a change from an answer it does not have.
   */
  protected def endpointRestarted(): Unit = {
    node = new DriverExchange
    driver.standingFor(host).foreach { s =>
      if (s.base.nonEmpty) latest = Some(Answer(s.id, Nil, needsFull = true))
      else receive(Request(s.id, s.known, retired = s.retired, remove = s.remove))
    }
  }

  private def answer(request: Request, known: Seq[KnownFile], before: Option[Exchange]): Unit = {
    val files = scan(known, request.retired, request.remove.toSet)
    val full = Answer(request.id, files, retired = request.retired.keys.toSeq.sorted)
    node.answer(request, known, before, full).foreach(r => latest = Some(r))
  }

  // The node receives `request`; a restarted node's first answer asks for it in full.
  private def receive(request: Request): Unit =
    node.known(request) match {
      case Some((known, before)) => answer(request, known, before)
      case None => latest = Some(Answer(request.id, Nil, needsFull = true))
    }

  /** The driver's request, sent if what it tracks changed; then the news, if any. */
  private def news(): Option[(Seq[FileMeta], CopiesLookedFor)] = {
    val remove =
      if (cleaning) Planner.removable(committed, committed, host) else Seq.empty[FileKey]
    val retired = Planner.retired(committed, host)
    driver.request(host, Planner.known(committed, host), retired, remove).foreach {
      case (sent, request) =>
        driver.sent(host, sent)
        receive(request)
    }
    for {
      sent <- driver.standingFor(host)
      r <- latest if r.id == sent.id
      files <- driver.read(sent, r) match {
        case Answered.NeedsFull =>
          val (full, request) = driver.inFull(sent)
          driver.sent(host, full)
          receive(request)
          None
        case answered if driver.isNews(host, r) =>
          driver.complete(Map(host -> ((sent, r, answered))))
          answered match {
            case Answered.Listed(files) => Some(files)
            case _ => None
          }
        case _ => None
      }
    } yield files -> CopiesLookedFor(r.answerId, r.retired.toSet)
  }

  /** Plans the next batch, as a trigger does, unless one is planned and not read yet. */
  def plan(): Unit = if (planned.isEmpty) {
    def planned(news: Option[(Seq[FileMeta], CopiesLookedFor)]) = {
      val files = news.fold(Map.empty[String, Seq[FileMeta]])(n => Map(host -> n._1))
      val looked = news.fold(Map.empty[String, CopiesLookedFor])(n => Map(host -> n._2))
      val plan = Planner.plan(committed, files, limits, looked, memos = memos)
      // A memo is a cache: the plan that skips the settled files is the plan made in full.
      val full = Planner.plan(committed, files, limits, looked)
      assert(
        plan.end.hosts == full.end.hosts && plan.losses == full.losses,
        s"the plan made with a memo differs from the plan made in full:\n$plan\n$full")
      val changes = PlanChanges.between(committed, plan.end)
      assert(
        changes == PlanChanges.between(committed, parsed(plan.end)),
        "what the plan changed, found from what it says it changed, differs")
      backlogBothWays(files, plan.end)
      plan
    }
    val first = planned(news())
    val result =
      if (first.end.hosts != committed.hosts) first
      else {
        nodeLooks() // nothing new: the node is asked to look, then the trigger plans again
        planned(news().orElse(news()))
      }
    plannedLoss += result.losses.map(_.bytes).sum
    this.planned = Some(result.end)
  }

  // The backlog's figures worked out from what changed, and from every file each time.
  private val times = new WriteTimes
  private val timesInFull = new WriteTimes
  private var triggerMs = 0L

  private def backlogBothWays(files: Map[String, Seq[FileMeta]], end: AofOffset): Unit = {
    triggerMs += 1000L
    times.observe(News(files), committed, triggerMs)
    timesInFull.observe(News(files), parsed(committed), triggerMs)
    files.get(host).foreach { answer =>
      val figures = times.backlog(host, answer, end.hosts.get(host))
      val inFull = timesInFull.backlog(host, answer, parsed(end).hosts.get(host))
      assert(figures == inFull, s"the backlog of what changed, $figures, differs: $inFull")
    }
  }

  // The same offsets, as if not made by a plan (parsed from a checkpoint): compared in full.
  private def parsed(o: AofOffset) = o.copy(hosts = o.hosts.map { case (h, offsets) =>
    h -> offsets.copy()
  })

  /** Reads the planned batch, as its tasks do, and commits it. */
  def read(): Unit = planned.foreach { end =>
    val ranges = Ranges.between(committed, end)
    assert(
      ranges == Ranges.between(committed, parsed(end)),
      "the ranges of the files a plan says it changed differ from those of every file")
    ranges.foreach(readRange)
    committed = end
    planned = None
  }

  def trigger(): Unit = {
    read()
    plan()
    read()
  }

  /** Whether a trigger changes nothing and nothing waits for a copy. */
  def settled(): Boolean = {
    val before = (committed, rowsRead)
    trigger()
    before == ((committed, rowsRead)) && committed.hosts.values.forall(_.retired.isEmpty)
  }
}
