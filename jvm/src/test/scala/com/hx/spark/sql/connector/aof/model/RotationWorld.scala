package com.hx.spark.sql.connector.aof.model

import java.io.{ByteArrayOutputStream, FileOutputStream, OutputStream}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, StandardOpenOption}
import java.util.zip.GZIPOutputStream

import scala.collection.mutable

import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream
import org.apache.commons.compress.compressors.lz4.FramedLZ4CompressorOutputStream
import org.apache.commons.compress.compressors.xz.XZCompressorOutputStream
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorOutputStream

import com.hx.spark.sql.connector.aof.files.identity.FileKey

/**
 * Real files under `dir`, written as applications and logrotate write them, and the model of what
 * they hold: which line ids each file has. Logs `a.log`, `b.log`, ... are each written by an
 * application through an append descriptor it keeps until told to reopen (a late `postrotate`);
 * rotated files are `x.log.1`, `x.log.2.gz`, ..., in `dir` or in its `old` directory (logrotate's
 * `olddir`), compressed by each compressor in turn. Nothing here reads: the runs that use it say
 * what the source delivered.
 */
final class RotationWorld(dir: Path, logNames: Seq[String]) {
  private val old = Files.createDirectories(dir.resolve("old"))

  /** A file as the model knows it: where it is now and the complete lines it holds. */
  final class ModelFile(var path: Path, val ids: mutable.ArrayBuffer[String]) {
    def name: String = path.getFileName.toString
    def gz: Boolean = name.endsWith(".gz")
  }

  private final class Log(val name: String) {
    val live: Path = dir.resolve(name)
    var app: FileChannel = open(live)
    var appFile: ModelFile = new ModelFile(live, mutable.ArrayBuffer.empty)
    // Rotated files, newest first: index 0 is `.1`.
    var rotated: Vector[ModelFile] = Vector.empty
    var half: Option[String] = None
    var written = 0
    // A gzip under way: the file compressed and its .gz, created empty.
    var gzip: Option[(ModelFile, ModelFile)] = None
    // The compressed bytes of the gzip under way, once it began writing them, and how many it
    // wrote: a compressor writes its output as it goes, the original deleted only at its end.
    var gzipBytes: Option[(Array[Byte], Int)] = None
    def held: Boolean = !(appFile.path == live)
  }

  private val logs = logNames.map(new Log(_))
  private val files = mutable.ArrayBuffer[ModelFile](logs.map(_.appFile): _*)

  /** Every complete line id written, in order. */
  val written: mutable.ArrayBuffer[String] = mutable.ArrayBuffer.empty

  // Inodes of deleted files, and how many a new file was given again (as ext4 does at once).
  private val freed = mutable.Set.empty[FileKey]
  var reusedInodes = 0

  /** The pattern a query reads: every log and its rotations, here and in `old`. */
  def pattern: String = s"$dir/**/(${logNames.map(_.stripSuffix(".log")).mkString("|")})\\.log.*"

  private def open(path: Path): FileChannel = FileChannel.open(
    path,
    StandardOpenOption.CREATE,
    StandardOpenOption.WRITE,
    StandardOpenOption.APPEND)

  private def write(log: Log, text: String): Unit = {
    val bytes = ByteBuffer.wrap(text.getBytes(UTF_8))
    while (bytes.hasRemaining) log.app.write(bytes)
  }

  private def complete(log: Log): Unit = log.half.foreach { id =>
    write(log, " end\n")
    log.appFile.ids += id
    written += id
    log.half = None
  }

  private def nextId(log: Log): String = {
    log.written += 1
    s"${log.name.stripSuffix(".log")}-${log.written}"
  }

  // Lines of varied length, so that files cross the fingerprint's sample length at varied points.
  private def line(id: String): String = s"$id ${"x" * (id.hashCode.abs % 90)} end\n"

  /** What can be done now, each with a name for the failure message. */
  def choices(log: Int): Seq[Op] = {
    val l = logs(log)
    val idle = l.rotated.zipWithIndex.filter { case (f, _) =>
      !(f eq l.appFile) && !l.gzip.exists(g => (g._1 eq f) || (g._2 eq f))
    }
    Seq[Option[Op]](
      Some(Op.Append(log, 1)),
      Some(Op.Append(log, 20)),
      Some(Op.HalfLine(log)).filter(_ => l.half.isEmpty),
      Some(Op.Rotate(log, create = true)).filter(_ => !l.held && l.gzip.isEmpty),
      Some(Op.Rotate(log, create = false)).filter(_ => !l.held && l.gzip.isEmpty),
      Some(Op.Reopen(log)).filter(_ => l.held),
      // Writes paused while logrotate copies and truncates: no line is cut in two.
      Some(Op.CopyTruncate(log)).filter(_ => !l.held && l.gzip.isEmpty && l.half.isEmpty),
      // Any rotation the application no longer writes, the newest too: logrotate's `compress`
      // without `delaycompress` compresses it right after the rename.
      idle.collectFirst { case (f, i) if !f.gz && l.gzip.isEmpty => Op.GzipBegin(log, i) },
      // Each compressor in turn, as logrotate's `compresscmd` runs it.
      Some(Op.GzipPart(log, RotationWorld.Compressors(l.written % 5)))
        .filter(_ => l.gzip.nonEmpty),
      Some(Op.GzipEnd(log, RotationWorld.Compressors(l.written % 5))).filter(_ => l.gzip.nonEmpty),
      Some(Op.CompressAtOnce(log, RotationWorld.Compressors(l.written % 5)))
        .filter(_ => !l.held && l.gzip.isEmpty),
      idle.collectFirst { case (f, i) if f.path.getParent != old => Op.ToOldDir(log, i) },
      idle.lastOption.map { case (_, i) => Op.Delete(log, i) }
    ).flatten
  }

  /** The ids a `Delete` would take away: it may run only once they are delivered. */
  def deleting(op: Op.Delete): Seq[String] = logs(op.log).rotated(op.nth).ids.toList

  /** Every file the model knows, for a failure's message. */
  def describe: String = files
    .map(f =>
      s"${dir.relativize(f.path)}: ${f.ids.headOption.getOrElse("")}..${f.ids.lastOption
          .getOrElse("")} (${f.ids.size})")
    .mkString("; ")

  def apply(op: Op): Unit = {
    val l = logs(op.log)
    op match {
      case Op.Append(_, n) =>
        complete(l)
        val ids = (1 to n).map(_ => nextId(l))
        write(l, ids.map(line).mkString)
        l.appFile.ids ++= ids
        written ++= ids
      case Op.HalfLine(_) =>
        complete(l)
        val id = nextId(l)
        write(l, s"$id ${"y" * 40}")
        l.half = Some(id)
      case Op.Rotate(_, create) =>
        shift(l)
        val file = l.appFile
        file.path = Files.move(l.live, dir.resolve(s"${l.name}.1"))
        l.rotated = file +: l.rotated
        // logrotate's `create`; the application writes on to the renamed file until it reopens.
        if (create) created(l, Files.createFile(l.live))
      case Op.Reopen(_) =>
        complete(l) // an application finishes a line where it began it
        l.app.close()
        l.app = open(l.live)
        l.appFile = files.find(_.path == l.live).getOrElse(created(l, l.live))
      case Op.CopyTruncate(_) =>
        shift(l)
        val copy = created(l, Files.copy(l.live, dir.resolve(s"${l.name}.1")))
        copy.ids ++= l.appFile.ids
        l.rotated = copy +: l.rotated
        val truncating = FileChannel.open(l.live, StandardOpenOption.WRITE)
        try truncating.truncate(0)
        finally truncating.close()
        l.appFile.ids.clear()
      case Op.GzipBegin(_, nth) =>
        val source = l.rotated(nth)
        val gz = created(l, Files.createFile(source.path.resolveSibling(s"${source.name}.gz")))
        l.gzip = Some(source -> gz)
      case Op.GzipPart(_, compressor) =>
        // Half of what is left, a byte at least, never the last: the end is GzipEnd's.
        val (bytes, done) = compressed(l, compressor)
        val part = math.max(1, (bytes.length - done) / 2)
        if (done + part < bytes.length) {
          appendTo(l.gzip.get._2.path, bytes, done, part)
          l.gzipBytes = Some(bytes -> (done + part))
        }
      case Op.GzipEnd(_, compressor) =>
        val (source, gz) = l.gzip.get
        val (bytes, done) = compressed(l, compressor)
        appendTo(gz.path, bytes, done, bytes.length - done)
        l.gzipBytes = None
        gz.ids ++= source.ids
        freed += FileKey.of(source.path)
        Files.delete(source.path)
        files -= source
        l.rotated = l.rotated.map(f => if (f eq source) gz else f)
        l.gzip = None
      case Op.CompressAtOnce(_, compressor) =>
        // One run of logrotate with `create` and `compress`, no `delaycompress`: the application
        // told to reopen (`postrotate`) before the compressor runs.
        val l = op.log
        Seq(
          Op.Rotate(l, create = true),
          Op.Reopen(l),
          Op.GzipBegin(l, 0),
          Op.GzipEnd(l, compressor))
          .foreach(apply)
      case Op.ToOldDir(_, nth) =>
        val f = l.rotated(nth)
        f.path = Files.move(f.path, old.resolve(f.name))
      case Op.Delete(_, nth) =>
        val f = l.rotated(nth)
        freed += FileKey.of(f.path)
        Files.delete(f.path)
        files -= f
        l.rotated = l.rotated.filterNot(_ eq f)
    }
  }

  /**
   * Time passes, as `cleanup.after` needs: every application writes to its live file again (a
   * late `postrotate` ran), and the live files are written now (`nowMs`): nothing else is.
   */
  def timePasses(nowMs: Long): Unit = logs.foreach { l =>
    if (l.held) apply(Op.Reopen(logs.indexOf(l)))
    Files.setLastModifiedTime(l.live, java.nio.file.attribute.FileTime.fromMillis(nowMs))
  }

  /** Every file by key, for what the source removes: it cannot be asked its key once gone. */
  def byKey: Map[FileKey, ModelFile] = files.map(f => FileKey.of(f.path) -> f).toMap

  /**
   * Files the source removed (`cleanup`), by key: no longer the world's. A compression of one
   * that had begun is given up, its output gone with it (it held no line yet).
   */
  def removedBySource(removed: Seq[(FileKey, ModelFile)]): Unit = removed.foreach { case (key, f) =>
    freed += key
    files -= f
    logs.foreach { l =>
      l.rotated = l.rotated.filterNot(_ eq f)
      l.gzip.filter(_._1 eq f).foreach { case (_, gz) =>
        Files.deleteIfExists(gz.path)
        files -= gz
        l.gzip = None
        l.gzipBytes = None
      }
    }
  }

  /** Every half line completed and every application writing to its live file. */
  def settle(): Unit = logs.foreach { l =>
    complete(l)
    if (l.held) apply(Op.Reopen(logs.indexOf(l)))
  }

  def close(): Unit = logs.foreach(_.app.close())

  /** The gzip under way's whole output (by the compressor it began with) and what it wrote. */
  private def compressed(l: Log, compressor: String): (Array[Byte], Int) =
    l.gzipBytes.getOrElse {
      val bytes = new ByteArrayOutputStream()
      val out = RotationWorld.compressing(compressor, bytes)
      try out.write(Files.readAllBytes(l.gzip.get._1.path))
      finally out.close()
      bytes.toByteArray -> 0
    }

  private def appendTo(path: Path, bytes: Array[Byte], from: Int, length: Int): Unit = {
    val out = new FileOutputStream(path.toFile, true)
    try out.write(bytes, from, length)
    finally out.close()
  }

  private def created(l: Log, path: Path): ModelFile = {
    if (freed.remove(FileKey.of(path))) reusedInodes += 1
    val f = new ModelFile(path, mutable.ArrayBuffer.empty)
    files += f
    f
  }

  /**
   * Each rotated file one number on, the oldest first: `x.log.2.gz` becomes `x.log.3.gz`. By
   * the number each has, as logrotate does: one removed (`cleanup`) leaves a gap.
   */
  private def shift(l: Log): Unit = l.rotated.sortBy(-number(_)).foreach { f =>
    val name = s"${l.name}.${number(f) + 1}${if (f.gz) ".gz" else ""}"
    f.path = Files.move(f.path, f.path.resolveSibling(name))
  }

  private def number(f: ModelFile): Int = f.name.stripSuffix(".gz").split('.').last.toInt
}

object RotationWorld {

  /** The compressors a rotation may use. Their files are all named `.gz`: told by their bytes. */
  val Compressors: Seq[String] = Seq("gzip", "bzip2", "xz", "zstd", "lz4")

  def compressing(compressor: String, out: OutputStream): OutputStream = compressor match {
    case "gzip" => new GZIPOutputStream(out)
    case "bzip2" => new BZip2CompressorOutputStream(out)
    case "xz" => new XZCompressorOutputStream(out)
    case "zstd" => new ZstdCompressorOutputStream(out)
    case "lz4" => new FramedLZ4CompressorOutputStream(out)
  }
}

/** What the world can be told to do; `log` is an index into its logs. */
sealed trait Op extends Product with Serializable { def log: Int }

object Op {
  final case class Append(log: Int, lines: Int) extends Op
  final case class HalfLine(log: Int) extends Op
  final case class Rotate(log: Int, create: Boolean) extends Op
  final case class Reopen(log: Int) extends Op
  final case class CopyTruncate(log: Int) extends Op
  final case class GzipBegin(log: Int, nth: Int) extends Op
  final case class GzipPart(log: Int, compressor: String) extends Op
  final case class GzipEnd(log: Int, compressor: String) extends Op
  final case class CompressAtOnce(log: Int, compressor: String) extends Op
  final case class ToOldDir(log: Int, nth: Int) extends Op
  final case class Delete(log: Int, nth: Int) extends Op
}
