package com.hx.spark.sql.connector.aof.zookeeper

import java.net.InetAddress
import java.nio.file.{Files, Path, Paths}

import scala.util.Try

import org.apache.spark.SparkFiles

/**
 * Files that options name (key stores, keytabs), found on the host that needs them: where the
 * option says, or where Spark put a file shipped with `--files` (`spark.files`). On YARN such a
 * file is in the container's working directory; elsewhere in `SparkFiles`' directory.
 */
private[zookeeper] object ShippedFiles {

  /**
   * @throws IllegalArgumentException naming the option, when the file is on neither place
   */
  def local(option: String, location: String): String = {
    val named = Paths.get(location)
    val shipped =
      Option(named.getFileName).flatMap(name => Try(SparkFiles.get(name.toString)).toOption)
    (Seq(named) ++ shipped.map(Paths.get(_)))
      .find(Files.isReadable(_: Path))
      .map(_.toAbsolutePath.toString)
      .getOrElse {
        val host = Try(InetAddress.getLocalHost.getHostName).getOrElse("this host")
        throw new IllegalArgumentException(
          s"aof: option '$option': no readable file '$location' on $host; put it there on " +
            "every host, or ship it with --files (spark.files) and give its file name.")
      }
  }
}
