package com.hx.spark.sql.connector.aof.driver

/**
 * The hosts whose files changed since their last answer's look: their count of changes is above
 * the count that answer saw. A trigger calls them to look ([[AnswerRound]]).
 */
private[aof] object ChangedHosts {

  /**
   * @param before the hosts owing a look before, which a count raised since cannot lower
   * @param raised the hosts whose count rose since
   * @param count  each host's count as last heard
   * @param seen   the count its latest answer saw, if it answered
   */
  def owing(
      before: Set[String],
      raised: Set[String],
      count: String => Long,
      seen: String => Option[Long]): Set[String] =
    (before ++ raised).filterNot(h => seen(h).exists(_ >= count(h)))
}
