package com.hx.spark.sql.connector.aof.bench

import java.nio.file.Path
import java.util.{Collections, Properties}

import org.apache.kafka.clients.admin.{AdminClient, NewTopic}
import org.apache.kafka.clients.producer.{KafkaProducer, ProducerRecord}
import org.apache.kafka.common.serialization.ByteArraySerializer
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.streaming.Trigger

/**
 * The latency benchmark's reference: Spark's Kafka source, the one real-time source Spark ships,
 * reading the same lines produced to a topic of one partition, a record each as it is written.
 */
object KafkaReference {

  /** The Kafka source's version, from its JAR's name: build.sbt gives the newest Maven has. */
  val Version: String = {
    val provider = "org/apache/spark/sql/kafka010/KafkaSourceProvider.class"
    val jar = getClass.getClassLoader.getResource(provider).getPath.takeWhile(_ != '!')
    jar.split('/').last.stripSuffix(".jar").split('-').last
  }

  def describe(run: Boolean): String =
    if (run) {
      s"Spark's Kafka source is $Version, the newest Maven has for Spark 4, on a local broker " +
        "(one partition; each line a record sent as it is written, `linger.ms=0`)."
    } else "No broker was given: no Kafka row."

  def source(
      spark: SparkSession,
      address: String,
      dir: Path,
      trigger: Trigger): RealTimeLatency.Source = {
    val topic = s"latency-${System.currentTimeMillis()}"
    val settings = new Properties()
    settings.put("bootstrap.servers", address)
    val admin = AdminClient.create(settings)
    try admin.createTopics(Collections.singleton(new NewTopic(topic, 1, 1.toShort))).all().get()
    finally admin.close()
    settings.put("linger.ms", "0")
    settings.put("acks", "1")
    val bytes = new ByteArraySerializer
    val producer = new KafkaProducer[Array[Byte], Array[Byte]](settings, bytes, bytes)
    val query = spark.readStream
      .format("kafka")
      .option("kafka.bootstrap.servers", address)
      .option("subscribe", topic)
      .option("startingOffsets", "earliest")
      .load()
      .selectExpr("CAST(value AS STRING) AS value")
      .writeStream
      .outputMode("update")
      .foreach(new RealTimeLatency.Arrivals)
      .option("checkpointLocation", dir.resolve("checkpoint").toString)
      .trigger(trigger)
      .start()
    RealTimeLatency.Source(
      query,
      line => producer.send(new ProducerRecord[Array[Byte], Array[Byte]](topic, line)),
      () => producer.close())
  }
}
