package com.hx.spark.sql.connector.aof.protocol

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileMeta, KnownFile}

/**
 * A request in full and the answer to it in full: what the driver and a node each keep of their
 * last exchange, the base of the next. Both lists are kept by key: the next request and answer
 * are changes to them.
 */
final case class Exchange(
    id: String,
    keyedKnown: KeyedItems[FileKey, KnownFile],
    keyed: KeyedItems[FileKey, FileMeta]) {
  def known: Seq[KnownFile] = keyedKnown.items
  def files: Seq[FileMeta] = keyed.items
}

object Exchange {
  def apply(id: String, known: Seq[KnownFile], files: Seq[FileMeta]): Exchange =
    Exchange(id, KeyedItems(known)(_.key), KeyedItems(files)(_.key))
}
