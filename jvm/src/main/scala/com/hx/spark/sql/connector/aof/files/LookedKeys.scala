package com.hx.spark.sql.connector.aof.files

/**
 * The files (by key) one or two looks looked at: those of the directories they took whole, by
 * directory, and the others. What two looks that took the same directories (the same objects)
 * looked at differs only in the others, told without a step per file: among 20,000 quiet
 * files, the tracker forgets what one busy directory's rotation renamed away, not asked of each.
 */
private[files] final class LookedKeys(
    private val taken: Vector[KeptDirectories.Dir],
    private val others: collection.Set[FileKey]) {

  /** Both looks' files. */
  def ++(other: LookedKeys): LookedKeys =
    new LookedKeys(taken ++ other.taken, others ++ other.others)

  /**
   * The files looked at here and not by `later`, when both took the same directories (then the
   * others are all that differ: a file is in one directory of a look); None when they did not.
   */
  def goneBy(later: LookedKeys): Option[collection.Set[FileKey]] =
    Some(others -- later.others).filter { _ =>
      taken.size == later.taken.size && taken.iterator.zip(later.taken.iterator).forall {
        case (a, b) => a eq b
      }
    }

  /** Every file's key, made when asked. */
  lazy val all: collection.Set[FileKey] = others ++ taken.iterator.flatMap(_.files.map(_.key))
}
