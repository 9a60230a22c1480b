package com.hx.spark.sql.connector.aof

import java.nio.file.Paths
import java.util

import scala.collection.JavaConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import com.hx.spark.sql.connector.aof.cluster.NodeDiscovery
import com.hx.spark.sql.connector.aof.config.{AofOptions, Nodes, PathMistakes}

/**
 * `format("aof")`, and `format("com.hx.spark.sql.connector.aof")` as the original connector was
 * named. Options are checked here, when the query is defined, not when it first runs.
 */
class DefaultSource extends TableProvider with DataSourceRegister {
  override def shortName(): String = "aof"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    AofSchema.of(parsed(options.asCaseSensitiveMap().asScala.toMap))

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val session = SparkSession.getActiveSession
    val options = parsed(properties.asScala.toMap)
    options.files.paths.foreach(p => PathMistakes.check(Paths.get(p.directory), p.fileNameRegex))
    // Where the cluster manager answers, found now: a session that cannot tell is refused here.
    (options.nodes, session) match {
      case (Some(d: Nodes.Discovered), Some(s)) =>
        NodeDiscovery.of(d, s.sparkContext.master, () => s.sparkContext.hadoopConfiguration)
      case _ => ()
    }
    new AofTable(options)
  }

  private def parsed(explicit: Map[String, String]): AofOptions = {
    val sessionConf = SparkSession.getActiveSession.fold(Map.empty[String, String])(_.conf.getAll)
    AofOptions.parse(explicit, sessionConf)
  }
}
