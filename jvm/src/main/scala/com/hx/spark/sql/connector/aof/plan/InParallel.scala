package com.hx.spark.sql.connector.aof.plan

import java.util.stream.IntStream

/**
 * Work on the driver that a trigger waits for and that splits by host (a plan), on its cores at
 * once: a thousand hosts take a core a tenth of a second. Runs in the JVM's common pool, with the
 * calling thread; results in order.
 */
object InParallel {
  def map[A, B <: AnyRef](items: Seq[A])(f: A => B): Seq[B] =
    // One host, as a real-time task's every look: handing it to the pool costs more than it.
    if (items.lengthCompare(1) <= 0) items.map(f)
    else {
      val in = items.toIndexedSeq
      val out = new Array[AnyRef](in.size)
      IntStream.range(0, in.size).parallel().forEach(i => out(i) = f(in(i)))
      out.toSeq.map(_.asInstanceOf[B])
    }
}
