package com.hx.spark.sql.connector.aof.driver

/** Why a job that starts endpoints failed, when it is the query's settings. */
object LaunchFailure {

  /**
   * What failed a launch job, when the query's settings did (a key store missing on a host, a
   * login refused): no later launch would start those endpoints, so the query fails with the
   * reason rather than going on without those hosts. The source raises such errors as
   * `IllegalArgumentException`s that begin "aof: ".
   */
  def settingsError(failure: Throwable): Option[IllegalArgumentException] =
    Iterator
      .iterate(failure)(_.getCause)
      .takeWhile(_ != null)
      .take(10)
      .collectFirst {
        case e: IllegalArgumentException if Option(e.getMessage).exists(_.startsWith("aof: ")) =>
          new IllegalArgumentException(
            "aof: an executor could not start its endpoint: " + e.getMessage.stripPrefix("aof: "),
            failure)
      }
}
