package com.hx.spark.sql.connector.aof.metrics

/**
 * Every metric of the source: the code that reports one names it from here, and the metrics
 * tables of docs/operating.md are made from here, so that neither can name one the other lacks.
 */
object MetricDefinitions {
  import Place._

  val Host: String = "<host>"
  private val Query: Set[Place] = Set(Progress, QueryGauge)

  private def m(name: String, places: Set[Place], meaning: String) =
    MetricDefinition(name, places, meaning)

  val BytesBehind: MetricDefinition = m(
    "bytesBehindLatest",
    Query + EndpointGauge,
    "Bytes in the hosts' files that the last batch had not read, by the sizes the hosts " +
      "reported at the last trigger. A last line still without its newline counts. A host " +
      "that did not answer is not in it. In real-time mode, an endpoint gauge too: its " +
      "host's, at each look of the task that follows it, while the batch runs."
  )
  val BytesBehindHost: MetricDefinition =
    m(s"bytesBehindLatest.$Host", Query, "The same for one host: one for each host that answered.")
  val SecondsBehind: MetricDefinition = m(
    "secondsBehindLatest",
    Query + EndpointGauge,
    "The age of the oldest byte the last batch had not read, at the last trigger: seconds " +
      "since it was written, as late as can be told (its file's last write, or the first " +
      "trigger that found the file past it, whichever was first). 0 when every file is read " +
      "to its end. In real-time mode, an endpoint gauge too, as `bytesBehindLatest`."
  )
  val SecondsBehindHost: MetricDefinition =
    m(s"secondsBehindLatest.$Host", Query, "The same for one host.")
  val LinesRead: MetricDefinition = m(
    "linesRead",
    Set(Progress, QueryGauge, EndpointGauge, SparkUi),
    "Rows read: lines, or records with a multi-line rule or a runtime's `format`. Since the " +
      "query last started; of an endpoint, by the tasks of its executor; in the Spark UI, " +
      "per batch."
  )
  val BytesRead: MetricDefinition = m(
    "bytesRead",
    Set(Progress, QueryGauge, EndpointGauge, SparkUi),
    "Bytes of the files the read tasks went through. Since the query last started; of an " +
      "endpoint, by the tasks of its executor; in the Spark UI, per batch."
  )
  val FilesTracked: MetricDefinition =
    m("filesTracked", Query, "Files in the query's offsets, over all hosts.")
  val FilesIgnored: MetricDefinition = m(
    "filesIgnored",
    Query,
    "Files the hosts' last answers left unread for `ignore.older`: first seen not modified " +
      "for that long. A plain one is then followed from its end; a compressed one is left out."
  )
  val HostsWithoutEndpoint: MetricDefinition = m(
    "hostsWithoutEndpoint",
    Query,
    "Hosts with an executor but no endpoint serving them at the last trigger. Their files wait.")
  val NodesExpected: MetricDefinition = m(
    "nodesExpected",
    Query,
    "With the option [`nodes`](deploying.md#every-node-read): the nodes to read, as listed or " +
      "as the cluster manager last named them. Absent until it has named them once."
  )
  val NodesUnread: MetricDefinition = m(
    "nodesUnread",
    Query,
    "Of those, the nodes no endpoint served at the last trigger: no executor there, or its " +
      "endpoint not up yet. Their files wait.")
  val NodesUnreadNames: MetricDefinition =
    m("nodesUnreadNames", Set(Progress), "Their names, sorted: the first 20, then `and <n> more`.")
  val BytesLost: MetricDefinition = m(
    "bytesLost",
    Set(Progress, QueryGauge, SparkUi),
    "Bytes that went before they were read, since the query last started; in the Spark UI, " +
      "per batch. See [Lost bytes](rotation.md#lost-bytes)."
  )
  val LinesTruncated: MetricDefinition =
    m("linesTruncated", Query, "Lines cut at `line.length.max`, since the query last started.")
  val LinesFiltered: MetricDefinition = m(
    "linesFiltered",
    Set(Progress, QueryGauge, SparkUi),
    "Lines (or records) `include.lines` and `exclude.lines` dropped, since the query last " +
      "started; in the Spark UI, per batch."
  )
  val LinesMalformed: MetricDefinition = m(
    "linesMalformed",
    Query,
    "With a runtime's `format`: lines not of it, each read as a row of its own " +
      "([Kubernetes logs](kubernetes.md)), since the query last started."
  )
  val LinesInvalidEncoding: MetricDefinition = m(
    "linesInvalidEncoding",
    Query,
    "Lines that held bytes not of the `encoding`, read as U+FFFD ([Encodings](encodings.md)), " +
      "since the query last started. Not 0 on a file that is all ASCII: look at the `encoding`."
  )
  val FilesRemoved: MetricDefinition = m(
    "filesRemoved",
    Query,
    "With `cleanup`: files removed (deleted or archived) once read to their end in committed " +
      "batches, since the query last started ([Removing files once read]" +
      "(rotation.md#removing-files-once-read))."
  )
  val FilesNotRemoved: MetricDefinition = m(
    "filesNotRemoved",
    Query,
    "With `cleanup`: files read and due to go that their nodes could not remove at the last " +
      "try (a permission, a missing archive directory). Each is tried again at every trigger " +
      "and warned about on its executor, at most once a minute."
  )
  val PlanningMs: MetricDefinition = m(
    "planningMs",
    Query,
    "Milliseconds the last trigger took to ask the hosts and plan its batch.")
  val FilesRead: MetricDefinition =
    m("filesRead", Set(SparkUi), "Files (or parts of files) the batch's tasks read.")
  val RecordsJoined: MetricDefinition = m(
    "recordsJoined",
    Set(SparkUi),
    "With `multiline.start` or `multiline.continue`: records the batch's tasks joined, of " +
      "one line or more.")
  val ZooKeeperAddress: MetricDefinition = m(
    "zookeeperAddress",
    Set(Progress),
    "The connect string of the query's ZooKeeper, the embedded server's included. Absent " +
      "until the source has connected."
  )
  val MetaStore: MetricDefinition =
    m("metaStore", Set(Progress), "The query's `meta.store`: where its znodes are.")
  val Queries: MetricDefinition = m(
    "queries",
    Set(QueryGauge),
    "Queries of the source running in the application: one gauge of the driver, beside the " +
      "queries' own.")
  val Endpoints: MetricDefinition = m(
    "endpoints",
    Set(EndpointGauge),
    "Endpoints running in the executor (the driver, in local mode): one gauge, beside theirs.")
  val FilesWatched: MetricDefinition =
    m("filesWatched", Set(EndpointGauge), "Files the endpoint's last look found under `path`.")
  val LookMs: MetricDefinition = m(
    "lookMs",
    Set(EndpointGauge),
    "Milliseconds the endpoint's last look took: listing, describing, answering.")
  val Looks: MetricDefinition = m(
    "looks",
    Set(EndpointGauge),
    "Looks the endpoint made: one per request it answered, and one per call to look (a " +
      "trigger after its files changed).")
  val Serving: MetricDefinition = m(
    "serving",
    Set(EndpointGauge),
    "1 while the endpoint serves its node, 0 while it stands by for another executor's.")

  val All: Seq[MetricDefinition] = Seq(
    BytesBehind,
    BytesBehindHost,
    SecondsBehind,
    SecondsBehindHost,
    LinesRead,
    BytesRead,
    FilesTracked,
    FilesIgnored,
    HostsWithoutEndpoint,
    NodesExpected,
    NodesUnread,
    NodesUnreadNames,
    BytesLost,
    LinesTruncated,
    LinesFiltered,
    LinesMalformed,
    LinesInvalidEncoding,
    FilesRemoved,
    FilesNotRemoved,
    PlanningMs,
    FilesRead,
    RecordsJoined,
    ZooKeeperAddress,
    MetaStore,
    Queries,
    Endpoints,
    FilesWatched,
    LookMs,
    Looks,
    Serving
  )

  /** The metrics shown at `place`. */
  def at(place: Place): Seq[MetricDefinition] = All.filter(_.in(place))

  /** The Markdown table of docs/operating.md: every metric, where it shows, what it means. */
  def table: String = {
    val rows = All.map { d =>
      val where = Place.All.filter(d.in).map(_.title).mkString(", ")
      s"| `${d.name}` | $where | ${d.meaning} |\n"
    }
    ("| metric | shown in | meaning |\n| --- | --- | --- |\n" +: rows).mkString
  }
}
