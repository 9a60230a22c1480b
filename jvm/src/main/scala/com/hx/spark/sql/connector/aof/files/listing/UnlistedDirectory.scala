package com.hx.spark.sql.connector.aof.files.listing

import java.io.IOException

/**
 * A node could not list its directory (not readable, not a directory, or a file in it could not be
 * `stat`-ed): its files are unknown this time, not gone. `reason` says which, for the driver's
 * warning.
 */
final class UnlistedDirectory(val reason: String) extends IOException(reason)
