package com.hx.spark.sql.connector.aof.files.scan

import java.nio.file.Path
import java.util.regex.Pattern

import com.hx.spark.sql.connector.aof.files.identity.{FileKey, FileStamp, NodeRequest}
import com.hx.spark.sql.connector.aof.files.listing.{
  DirectoryChanges, FileListing, LookedDirectories
}
import com.hx.spark.sql.connector.aof.files.listing.LookedDirectories.{Every, Heard, Stamped, Which}

/**
 * Which directories a scan's looks list ([[DirectoryLook]]): every one, or those a watch heard
 * change ([[DirectoryChanges]]) with the others as last found; and a look again while a tracked
 * file is missing. A look that fails has the next list every directory again.
 */
private[files] final class DirectoryLooks(
    tracker: FileTracker,
    looked: LookedDirectories,
    keptDirs: KeptDirectories,
    listing: FileListing,
    stat: Path => FileStamp,
    changes: Option[DirectoryChanges]) {

  /** What a watch heard change since the last scan began; None for every directory. */
  def heard(): Option[Set[Path]] = changes.flatMap(_.take())

  /**
   * A scan's first look, at the directories heard (`taken`). With retired files, at every
   * directory renamed in: the driver gives one up once an answer found no copy of it, and a copy
   * renamed into a directory whose event is still on its way would be missed.
   */
  def first(request: NodeRequest, taken: Option[Set[Path]], retired: Boolean): DirectoryLook =
    lookOrForget(request, if (retired) renamedIn(taken) else taken.fold[Which](Every)(Heard), taken)

  /** A look again, a rotation under way: a copy may be where no watch told yet. */
  def again(request: NodeRequest, taken: Option[Set[Path]]): DirectoryLook =
    lookOrForget(request, renamedIn(taken), taken)

  private def lookOrForget(
      request: NodeRequest,
      which: Which,
      taken: Option[Set[Path]]): DirectoryLook =
    try look(request, which, taken)
    catch {
      case e: Exception =>
        looked.clear()
        keptDirs.clear()
        throw e
    }

  /**
   * One look: the files of the directories `which` names described, with the others as last
   * found, unless a file was made, went or was renamed in one heard (then every directory a name
   * changed in is listed again); then those listed again while a tracked file is missing
   * ([[NodeRequest.missesTracked]]), for the tracked files only: a file renamed into another
   * directory is missing from its own before the watch may have told of the other.
   */
  private def look(request: NodeRequest, which: Which, taken: Option[Set[Path]]): DirectoryLook = {
    val look = new DirectoryLook(request, tracker, looked, keptDirs, listing, stat)
    val wanted = (readBy: Option[Pattern], key: FileKey) => readBy.nonEmpty || request.tracks(key)
    if (look.describe(looked.listed(which), wanted) && which.isInstanceOf[Heard]) {
      this.look(request, renamedIn(taken), taken)
    } else {
      var listings = 1
      while (listings < FileListing.Listings && request.missesTracked(look.trackedFound)) {
        listings += 1
        look.describe(looked.listed(renamedIn(taken)), (_, key) => request.tracks(key))
      }
      look.done()
      look
    }
  }

  /**
   * Every directory whose names changed by now, with those heard since `taken` (what a watch
   * heard as the scan began) and the write in them that no stamp shows; every directory when
   * the scan began whole or events were lost since.
   */
  private def renamedIn(taken: Option[Set[Path]]): Which =
    (for (t <- taken; c <- changes; since <- c.heardSince)
      yield t ++ since).fold[Which](Every)(Stamped)
}
