package com.hx.spark.sql.connector.aof.config

/** Where a file first seen by a new query starts. */
sealed trait StartingOffsets

object StartingOffsets {
  case object Earliest extends StartingOffsets
  case object Latest extends StartingOffsets
}
