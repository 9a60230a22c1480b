package com.hx.spark.sql.connector.aof.stream

import org.apache.spark.SparkConf
import org.scalatest.funsuite.AnyFunSuite

class LocalityWaitSuite extends AnyFunSuite {
  private val cluster = "spark://master:7077"

  private val cases = Seq(
    // (master, settings, warns naming)
    ("local[2]", Map("spark.locality.wait" -> "0"), None),
    (cluster, Map.empty[String, String], None),
    (cluster, Map("spark.locality.wait" -> "3s"), None),
    (cluster, Map("spark.locality.wait" -> "30s"), None),
    (cluster, Map("spark.locality.wait" -> "0"), Some("spark.locality.wait")),
    (cluster, Map("spark.locality.wait" -> "500ms"), Some("spark.locality.wait")),
    (cluster, Map("spark.locality.wait" -> "0", "spark.locality.wait.node" -> "10s"), None),
    (cluster, Map("spark.locality.wait.node" -> "1s"), Some("spark.locality.wait.node"))
  )

  cases.foreach { case (master, settings, expected) =>
    test(s"$master with $settings ${expected.fold("does not warn")(k => s"warns naming $k")}") {
      val conf = new SparkConf(false).setMaster(master).setAll(settings)
      val warning = LocalityWait.warning(conf)
      assert(warning.map(_.split(" ")(1)) === expected, warning)
    }
  }
}
