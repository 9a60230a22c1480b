package com.hx.spark.sql.connector.aof.driver

import scala.concurrent.Await
import scala.concurrent.duration._

import org.scalatest.funsuite.AnyFunSuite

import com.hx.spark.sql.connector.aof.testkit.SparkTestKit

/** Which failures of a real launch job (a Spark job whose task threw) fail the query. */
class LaunchFailureSuite extends AnyFunSuite with SparkTestKit {
  private def failure(thrown: String => RuntimeException, message: String): Throwable = {
    val job = spark.sparkContext
      .parallelize(Seq(1), 1)
      .map[Int](_ => throw thrown(message))
      .collectAsync()
    Await.ready(job, 60.seconds)
    job.value.get.failed.get
  }

  test("a setting an executor lacks fails the query with the reason; other failures do not") {
    val missing = "aof: option 'zookeeper.ssl.truststore.location': no readable file 'ca.pem'"
    val error =
      LaunchFailure.settingsError(failure(new IllegalArgumentException(_), missing)).get
    assert(
      error.getMessage === "aof: an executor could not start its endpoint: option " +
        "'zookeeper.ssl.truststore.location': no readable file 'ca.pem'")
    val unreachable = "aof: cannot reach ZooKeeper at 'zk:2181' within 20 s"
    assert(LaunchFailure.settingsError(failure(new IllegalStateException(_), unreachable)).isEmpty)
    assert(LaunchFailure.settingsError(failure(new IllegalArgumentException(_), "other")).isEmpty)
  }
}
