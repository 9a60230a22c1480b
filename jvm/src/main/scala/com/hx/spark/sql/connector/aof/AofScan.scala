package com.hx.spark.sql.connector.aof

import java.time.Clock

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.metric.CustomMetric
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.types.StructType

import com.hx.spark.sql.connector.aof.config.AofOptions
import com.hx.spark.sql.connector.aof.driver.{QueryRun, ZooKeeperRun}
import com.hx.spark.sql.connector.aof.offset.OffsetSnapshots
import com.hx.spark.sql.connector.aof.shim.{RealTimeMode, SparkExecutors}
import com.hx.spark.sql.connector.aof.stream.{AofMicroBatchStream, CommittedOffsets, ScanMetrics}
import com.hx.spark.sql.connector.aof.zookeeper.EmbeddedZooKeeper

/**
 * @param clock the streams' time: when a trigger plans, and how long a batch has waited for
 *              `batch.bytes.min` (a test moves it rather than wait)
 */
class AofScan(options: AofOptions, clock: Clock = Clock.systemUTC()) extends Scan {
  override def readSchema(): StructType = AofSchema.of(options)

  override def description(): String = s"aof ${options.files}"

  override def supportedCustomMetrics(): Array[CustomMetric] = ScanMetrics.supported

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = {
    val spark = SparkSession.active
    val sc = spark.sparkContext
    val listen = EmbeddedZooKeeper.listen(
      sc.isLocal,
      sc.getConf.get("spark.driver.host", SparkExecutors.currentHost))
    val offsetLog = new CommittedOffsets(sc.hadoopConfiguration, checkpointLocation)
    val snapshots =
      new OffsetSnapshots(sc.hadoopConfiguration, checkpointLocation, () => offsetLog.oldestJson())
    val run = new ZooKeeperRun(
      options,
      sc,
      listen,
      () => offsetLog.latestWholeJson(snapshots),
      checkpointLocation)
    if (!RealTimeMode.inSpark || !RealTimeMode.loads(AofScan.RealTimeStream)) {
      new AofMicroBatchStream(spark, options, run, snapshots, clock)
    } else {
      Class
        .forName(AofScan.RealTimeStream)
        .getConstructor(
          classOf[SparkSession],
          classOf[AofOptions],
          classOf[QueryRun],
          classOf[OffsetSnapshots],
          classOf[String],
          classOf[Clock])
        .newInstance(spark, options, run, snapshots, checkpointLocation, clock)
        .asInstanceOf[MicroBatchStream]
    }
  }
}

object AofScan {

  /** The stream with real-time mode: in the 2.13 JAR only, and loadable on Spark 4.1+ only. */
  private val RealTimeStream = "com.hx.spark.sql.connector.aof.realtime.AofRealTimeStream"
}
