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

  /**
   * The change from `before` to `after`; None when `after` repeats a key (send it in full).
   *
   * @param unique that `before` repeats no key (an `after` a delta was made to before): then an
   *               `after` of the same keys in the same order is not checked again
   */
  def between[K, V](before: Seq[V], after: Seq[V], unique: Boolean = false)(
      key: V => K): Option[Delta[K, V]] = {
    // The same keys in the same order, as most triggers list them: compared pair by pair, and the
    // same object has the same key.
    val sameKeys = before.size == after.size && eachOtherPair(before, after)(key(_) == key(_))
    // A Java set: a look's answer of thousands of files makes one at every trigger.
    lazy val keys = new java.util.HashSet[K](after.size * 2)
    if (!(sameKeys && unique) && !after.forall(v => keys.add(key(v)))) None
    else if (sameKeys) {
      val changed = Vector.newBuilder[V]
      eachOtherPair(before, after) { (b, a) =>
        if (b != a) changed += a
        true
      }
      Some(Delta(changed.result(), Nil))
    } else {
      // Java's map, as `keys`: a rotation among thousands of files makes one.
      val old = new java.util.HashMap[K, V](before.size * 2)
      before.foreach(v => old.put(key(v), v))
      val removed = Vector.newBuilder[K]
      old.keySet.forEach(k => if (!keys.contains(k)) removed += k)
      Some(Delta(after.filter(v => old.get(key(v)) != v), removed.result()))
    }
  }

  /**
   * Whether two lists hold equal items in the same order: items that are the same object are
   * not read, where `==` on the lists would call each item's `equals`, a cache miss each.
   */
  def sameItems[V](before: Seq[V], after: Seq[V]): Boolean =
    (before eq after) || before.size == after.size && eachOtherPair(before, after)(_ == _)

  /**
   * Calls `goOn` with each pair of items at the same place in two lists of one size that are not
   * the same object, until it says no: whether it never did. No pair object is made for each.
   */
  private def eachOtherPair[V](before: Seq[V], after: Seq[V])(goOn: (V, V) => Boolean): Boolean = {
    val b = before.iterator
    val a = after.iterator
    var going = true
    while (going && b.hasNext) {
      val x = b.next()
      val y = a.next()
      going = (x.asInstanceOf[AnyRef] eq y.asInstanceOf[AnyRef]) || goOn(x, y)
    }
    going
  }

  /**
   * `before` with `delta` applied: the same items by key as the list it was taken from; those
   * kept stay in `before`'s order, new ones follow in the delta's; `before` itself when the delta
   * is empty.
   */
  def applied[K, V](before: Seq[V], delta: Delta[K, V])(key: V => K): Seq[V] =
    if (delta.isEmpty) before
    else {
      val changed = delta.changed.iterator.map(v => key(v) -> v).toMap
      val removed = delta.removed.toSet
      // The changed items found among those kept: the others are new. Not a set of every key
      // kept, which a request of thousands of files would make at every trigger.
      val replaced = scala.collection.mutable.Set.empty[K]
      val kept = Vector.newBuilder[V]
      before.foreach { v =>
        val k = key(v)
        if (!removed(k)) changed.get(k) match {
          case Some(c) =>
            replaced += k
            kept += c
          case None => kept += v
        }
      }
      kept.result() ++ delta.changed.filterNot(v => replaced(key(v)))
    }
}
