package com.hx.spark.sql.connector.aof

import java.util

import scala.collection.JavaConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, TableCapability}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import com.hx.spark.sql.connector.aof.config.AofOptions

/** The lines of the files its paths match, readable only as a stream. */
class AofTable(options: AofOptions) extends SupportsRead {
  override def name(): String = s"aof:${options.files}"

  override def schema(): StructType = AofSchema.of(options)

  override def capabilities(): util.Set[TableCapability] =
    Set(TableCapability.MICRO_BATCH_READ).asJava

  override def newScanBuilder(ignored: CaseInsensitiveStringMap): ScanBuilder = new ScanBuilder {
    override def build(): Scan = new AofScan(options)
  }
}
