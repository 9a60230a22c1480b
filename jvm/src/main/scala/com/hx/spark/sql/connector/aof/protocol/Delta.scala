package com.hx.spark.sql.connector.aof.protocol

/**
 * How one list of items, each with a unique key, became the next: the items that are new or
 * differ, and the keys no longer there. Once both sides of the exchange hold a host's last
 * request and answer, each trigger sends this instead of the whole list: with ten thousand files
 * and a few of them written to, a few entries instead of ten thousand.
 */
final case class Delta[K, V](changed: Seq[V], removed: Seq[K]) {
  def isEmpty: Boolean = changed.isEmpty && removed.isEmpty
}

object Delta {

  /** The change from `before` to `after`; None when `after` repeats a key (send it in full). */
  def between[K, V](before: Seq[V], after: Seq[V])(key: V => K): Option[Delta[K, V]] = {
    val keys = after.iterator.map(key).toSet
    if (keys.size != after.size) None
    else if (before.size == after.size && before.iterator
        .map(key)
        .sameElements(after.iterator.map(key))) {
      // The same keys in the same order, as most triggers list them: compared pairwise.
      Some(Delta(before.zip(after).collect { case (b, a) if a != b => a }, Nil))
    } else {
      val old = before.iterator.map(v => key(v) -> v).toMap
      Some(
        Delta(
          after.filter(v => !old.get(key(v)).contains(v)),
          old.keys.filterNot(keys.contains).toSeq))
    }
  }

  /**
   * `before` with `delta` applied: the same items by key as the list it was taken from; those
   * kept stay in `before`'s order, new ones follow in the delta's.
   */
  def applied[K, V](before: Seq[V], delta: Delta[K, V])(key: V => K): Seq[V] = {
    val changed = delta.changed.iterator.map(v => key(v) -> v).toMap
    val removed = delta.removed.toSet
    val kept = before.filterNot(v => removed(key(v)))
    val keptKeys = kept.iterator.map(key).toSet
    kept.map(v => changed.getOrElse(key(v), v)) ++ delta.changed.filterNot(v => keptKeys(key(v)))
  }
}
