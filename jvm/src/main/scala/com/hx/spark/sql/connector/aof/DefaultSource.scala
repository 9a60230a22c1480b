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

import com.hx.spark.sql.connector.aof.config.{AofOptions, PathMistakes}

/**
 * `format("aof")`, and `format("com.hx.spark.sql.connector.aof")` as the original connector was
 * named. Options are checked here, when the query is defined, not when it first runs.
 */
class DefaultSource extends TableProvider with DataSourceRegister {
  override def shortName(): String = "aof"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = AofSchema.Schema

  override def getTable(
      schema: StructType,
      partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val sessionConf = SparkSession.getActiveSession.fold(Map.empty[String, String])(_.conf.getAll)
    val options = AofOptions.parse(properties.asScala.toMap, sessionConf)
    options.files.paths.foreach(p => PathMistakes.check(Paths.get(p.directory), p.fileNameRegex))
    new AofTable(options)
  }
}
