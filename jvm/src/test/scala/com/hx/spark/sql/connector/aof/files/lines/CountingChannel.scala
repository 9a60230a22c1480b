package com.hx.spark.sql.connector.aof.files.lines

import java.nio.{ByteBuffer, MappedByteBuffer}
import java.nio.channels.{FileChannel, FileLock, ReadableByteChannel, WritableByteChannel}

/**
 * A read-only view of a channel that counts what is read through it. Everything but positional
 * reads is refused, so a test also shows that a reader needs nothing else. `beforeRead` runs
 * before each read: a test changes the file there, between a reader's two looks at it.
 */
final class CountingChannel(underlying: FileChannel, beforeRead: () => Unit = () => ())
    extends FileChannel {
  @volatile var bytesRead: Long = 0L
  @volatile var largestRequest: Int = 0

  override def read(dst: ByteBuffer, position: Long): Int = {
    beforeRead()
    largestRequest = math.max(largestRequest, dst.remaining())
    val n = underlying.read(dst, position)
    if (n > 0) bytesRead += n
    n
  }

  override def size(): Long = underlying.size()

  private def refused: Nothing = throw new UnsupportedOperationException("positional reads only")

  override def read(dst: ByteBuffer): Int = refused
  override def read(dsts: Array[ByteBuffer], offset: Int, length: Int): Long = refused
  override def write(src: ByteBuffer): Int = refused
  override def write(srcs: Array[ByteBuffer], offset: Int, length: Int): Long = refused
  override def position(): Long = refused
  override def position(newPosition: Long): FileChannel = refused
  override def truncate(size: Long): FileChannel = refused
  override def force(metaData: Boolean): Unit = refused
  override def transferTo(position: Long, count: Long, target: WritableByteChannel): Long =
    refused
  override def transferFrom(src: ReadableByteChannel, position: Long, count: Long): Long =
    refused
  override def write(src: ByteBuffer, position: Long): Int = refused
  override def map(mode: FileChannel.MapMode, position: Long, size: Long): MappedByteBuffer =
    refused
  override def lock(position: Long, size: Long, shared: Boolean): FileLock = refused
  override def tryLock(position: Long, size: Long, shared: Boolean): FileLock = refused
  override protected def implCloseChannel(): Unit = underlying.close()
}
