package com.hx.spark.sql.connector.aof.endpoint

import java.util.concurrent.{CountDownLatch, ScheduledThreadPoolExecutor, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

/** Endpoints sharing a pool (simulated nodes) keep what a thread each gives them. */
class EndpointWorkerSuite extends AnyFunSuite {

  test("on a shared pool, a worker's tasks run one at a time, in the order they come due") {
    val pool = new ScheduledThreadPoolExecutor(4)
    try {
      val workers = Seq.fill(3)(new EndpointWorker("w", Some(pool)))
      val ran = workers.map(_ => mutable.ArrayBuffer.empty[Int])
      val running = workers.map(_ => new AtomicInteger(0))
      val overlaps = new AtomicInteger(0)
      val done = new CountDownLatch(3 * 200)
      for (i <- 0 until 200; (w, k) <- workers.zipWithIndex) {
        w.schedule(
          () => {
            if (running(k).incrementAndGet() > 1) overlaps.incrementAndGet()
            ran(k).synchronized(ran(k) += i)
            Thread.`yield`() // room for another thread to overlap, were it let
            running(k).decrementAndGet()
            done.countDown()
          },
          0L
        )
      }
      assert(done.await(30, TimeUnit.SECONDS))
      assert(overlaps.get === 0)
      ran.foreach(r => assert(r.synchronized(r.toList) === (0 until 200).toList))
    } finally pool.shutdownNow()
  }

  test("on a shared pool, a worker shut down starts nothing more, and the pool runs on") {
    val pool = new ScheduledThreadPoolExecutor(2)
    try {
      val stopped = new EndpointWorker("stopped", Some(pool))
      val other = new EndpointWorker("other", Some(pool))
      val started = new CountDownLatch(1)
      val release = new CountDownLatch(1)
      val after = new AtomicInteger(0)
      stopped.schedule(() => { started.countDown(); release.await() }, 0L)
      stopped.schedule(() => after.incrementAndGet(), 0L)
      stopped.schedule(() => after.incrementAndGet(), 50L)
      assert(started.await(10, TimeUnit.SECONDS))
      stopped.shutdown()
      assert(stopped.isShutdown)
      // The task running ends by itself: termination waits for it, and only for it.
      assert(!stopped.awaitTermination(50L))
      release.countDown()
      assert(stopped.awaitTermination(10000L))
      stopped.schedule(() => after.incrementAndGet(), 0L)
      val ran = new CountDownLatch(1)
      other.schedule(() => ran.countDown(), 100L)
      assert(ran.await(10, TimeUnit.SECONDS))
      assert(after.get === 0)
    } finally pool.shutdownNow()
  }
}
