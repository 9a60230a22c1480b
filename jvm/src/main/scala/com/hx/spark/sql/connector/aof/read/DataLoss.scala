package com.hx.spark.sql.connector.aof.read

import java.nio.file.Paths

import com.hx.spark.sql.connector.aof.files.copies.UnmatchedCopies
import com.hx.spark.sql.connector.aof.files.listing.SourceFiles
import com.hx.spark.sql.connector.aof.plan.Loss

/** Bytes that went before they were read: the query fails (`fail.on.data.loss`), or says so. */
object DataLoss {

  /** @param what which bytes of which file on which host, and why when known */
  def handle(what: String, failOnDataLoss: Boolean, warn: String => Unit): Unit =
    if (failOnDataLoss) {
      throw new IllegalStateException(
        s"aof: bytes went before they were read: $what. Set fail.on.data.loss=false to log " +
          "and count such losses instead.")
    } else warn(s"aof: bytes went before they were read (deleted, truncated or replaced): $what")

  /** `losses` said, each in a copy the source does not read with what would make it read. */
  def of(losses: Seq[Loss], files: SourceFiles): String =
    losses
      .map { loss =>
        loss.toString + loss.copy.fold("") { c =>
          s" but the source does not read: ${UnmatchedCopies.advice(files, Paths.get(c))}"
        }
      }
      .mkString("; ")
}
