package com.hx.spark.sql.connector.aof.driver

/**
 * What a trigger learned of its hosts, by node: which have an executor, which serve, which
 * answered. The sets the driver warns about and fails on follow from it alone.
 *
 * @param wanted   the nodes of the hosts with an executor, where known
 * @param unknown  hosts with an executor whose node is not known yet (no launch task ran there)
 * @param watched  the nodes with an endpoint serving as the driver's watch saw them, after the
 *                 answers came
 * @param answered the nodes whose latest answer is current
 * @param unlisted the nodes that answered that they could not list their directory
 * @param heard    the nodes that answered in this round: serving, though the watch of serving
 *                 endpoints may not have seen them yet (its news and the answers' come apart)
 */
final case class HostCensus(
    wanted: Set[String],
    unknown: Set[String],
    watched: Set[String],
    answered: Set[String],
    unlisted: Set[String],
    heard: Set[String]) {

  /** The nodes with an endpoint serving. */
  def live: Set[String] = watched ++ heard

  /** With an executor but no endpoint serving: their files wait. */
  def withoutEndpoint: Set[String] = wanted -- live ++ unknown

  /** With an executor but no answer: what AvailableNow cannot finish without. */
  def unheard: Set[String] = wanted -- answered -- unlisted ++ unknown

  /** Serving, yet no answer in time: planned without them. */
  def silent: Set[String] = live -- answered -- unlisted
}
