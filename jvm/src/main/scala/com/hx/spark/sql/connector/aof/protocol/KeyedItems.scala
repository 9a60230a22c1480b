package com.hx.spark.sql.connector.aof.protocol

/**
 * A list of items, and the index of each key in it, found once. A change that only replaces
 * items (a file written to) finds them by key and is applied in a few steps, where a pass over
 * the list would read every item's key again: at thousands of files, a cache miss each, at every
 * trigger. A list made by such a change has the same places, so they are found once per set of
 * keys, not once per list. A list that repeats a key has no places: each change is a pass.
 */
final class KeyedItems[K, V] private (
    val items: Vector[V],
    key: V => K,
    carried: Option[java.util.HashMap[K, Integer]]) {

  // The places of the list this one was made from by replacing items, else found here.
  private lazy val places: Option[java.util.HashMap[K, Integer]] = carried.orElse {
    val m = new java.util.HashMap[K, Integer](items.size * 2)
    var i = 0
    val unique = items.forall { v =>
      i += 1
      m.put(key(v), i - 1) == null
    }
    Some(m).filter(_ => unique)
  }

  /** These items with `delta` applied: the same list as [[Delta.applied]] makes. */
  def applied(delta: Delta[K, V]): KeyedItems[K, V] = if (delta.isEmpty) this
  else
    places match {
      case Some(at) if delta.removed.isEmpty && delta.changed.forall(v => at.containsKey(key(v))) =>
        var replaced = items
        delta.changed.foreach(v => replaced = replaced.updated(at.get(key(v)).intValue, v))
        new KeyedItems(replaced, key, Some(at))
      case _ => KeyedItems(Delta.applied(items, delta)(key))(key)
    }
}

object KeyedItems {
  def apply[K, V](items: Seq[V])(key: V => K): KeyedItems[K, V] =
    new KeyedItems(items.toVector, key, None)
}
