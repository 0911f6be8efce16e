package org.apache.spark.sql.slidingwindow.late

import java.io.IOException
import java.util.Locale

import org.apache.hadoop.fs.Path

import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType}
import org.apache.spark.sql.internal.StaticSQLConf
import org.apache.spark.sql.slidingwindow.errors.WindowErrors
import org.apache.spark.sql.slidingwindow.planning.CheckpointFiles
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * A query's late-rows table (docs/streaming.md, "Late rows as data"): the table
 * `spark.sql.slidingWindow.lateRows.table` names, in the session catalog, an unpartitioned
 * Parquet table whose files Spark's file sink log lists ([[LateRowsLog]]): created when missing,
 * checked when the query starts, claimed by the query's checkpoint.
 */
object LateRowsTable {
  val settingKey = "spark.sql.slidingWindow.lateRows.table"

  /** What the error of a name that is not one says it must be. */
  val nameExpected = "a table name of the session catalog, such as late_rows or my_db.late_rows"

  /** The file of the table that names the checkpoint of the query that writes it. */
  val writerFile = "writer"

  /**
   * The table the session's setting names, qualified with the current database; None when unset.
   * A value that is no table name of the session catalog is refused ([[nameExpected]]).
   */
  def named(session: SparkSession): Option[TableIdentifier] =
    Option(session.sessionState.conf.getConfString(settingKey, null)).map { value =>
      val parts = nameParts(session, value)
      val catalog = session.sessionState.catalog
      // As the session catalog names them: in lower case, unless the session is case-sensitive.
      val cased: String => String =
        if (session.sessionState.conf.caseSensitiveAnalysis) identity else _.toLowerCase(Locale.ROOT)
      parts match {
        case Seq(table) => TableIdentifier(cased(table), Some(catalog.getCurrentDatabase))
        case Seq(db, table) => TableIdentifier(cased(table), Some(cased(db)))
        case Seq(c, db, table) if c.toLowerCase(Locale.ROOT) == "spark_catalog" =>
          TableIdentifier(cased(table), Some(cased(db)))
        case _ => WindowErrors.invalidSetting(settingKey, value, nameExpected)
      }
    }

  private def nameParts(session: SparkSession, value: String): Seq[String] =
    try session.sessionState.sqlParser.parseMultipartIdentifier(value) catch {
      case _: Exception => WindowErrors.invalidSetting(settingKey, value, nameExpected)
    }

  /**
   * Refuses a name ([[named]]) the query cannot write its late rows to, or a reader would not
   * read them by: in a database that does not exist, in Spark's database of global temporary
   * views, or, written without its database, the name of a temporary view of the session, which
   * `spark.read.table` and SQL resolve before the table.
   */
  private def checkName(session: SparkSession, table: TableIdentifier): Unit = {
    val catalog = session.sessionState.catalog
    val database = table.database.getOrElse(catalog.getCurrentDatabase)
    if (database == session.sessionState.conf.getConf(StaticSQLConf.GLOBAL_TEMP_DATABASE).toLowerCase(Locale.ROOT)) {
      WindowErrors.lateRowsGlobalTempDatabase(show(table), database)
    }
    if (!catalog.databaseExists(database)) WindowErrors.lateRowsDatabaseNotFound(show(table), database)
    val unqualified = Option(session.sessionState.conf.getConfString(settingKey, null))
      .exists(nameParts(session, _).size == 1)
    if (unqualified && catalog.getTempView(table.table).isDefined) {
      WindowErrors.lateRowsTemporaryView(show(table), table.table, s"$database.${table.table}")
    }
  }

  /** The name as the plan and the errors show it. */
  def show(table: TableIdentifier): String = s"spark_catalog.${table.database.getOrElse("default")}.${table.table}"

  /**
   * The location of `table` (a name [[checkName]] accepts), created with `schema` when missing;
   * an existing one must be an unpartitioned Parquet table of that schema (names compared as the catalog does, types exactly).
   * A missing table that the query's checkpoint records at `recorded`, where the table says this
   * query writes it, is its table in a catalog that lost it (a new application's in-memory
   * catalog): registered again there (as an external table); any other is created (managed).
   */
  def ensure(session: SparkSession, table: TableIdentifier, schema: StructType, operator: String,
      recorded: Option[String], checkpoint: String): String = {
    val catalog = session.sessionState.catalog
    val name = show(table)
    checkName(session, table)
    if (!catalog.tableExists(table)) try {
      val ours = recorded.filter(writtenBy(session, _, checkpoint))
      val definition = CatalogTable(identifier = table, tableType = CatalogTableType.MANAGED,
        storage = CatalogStorageFormat.empty, schema = schema, provider = Some("parquet"))
      catalog.createTable(ours.map(location => definition.copy(tableType = CatalogTableType.EXTERNAL,
        storage = definition.storage.copy(locationUri = Some(new java.net.URI(location))))).getOrElse(definition),
        ignoreIfExists = true)
    } catch {
      case e: IOException => WindowErrors.lateRowsTableNotWritable(name, recorded.getOrElse("?"), e)
    }
    val t = catalog.getTableMetadata(table)
    val unsuitable =
      if (t.tableType == CatalogTableType.VIEW) Some("is a view")
      else if (!t.provider.exists(_.toLowerCase(Locale.ROOT) == "parquet")) Some(s"is a ${t.provider.getOrElse("Hive")} table")
      else if (t.partitionColumnNames.nonEmpty) Some(s"is partitioned by ${t.partitionColumnNames.mkString(", ")}")
      else if (t.bucketSpec.isDefined) Some("is bucketed")
      else None
    unsuitable.foreach(WindowErrors.lateRowsTableUnsuitable(name, _))
    if (!DataType.equalsIgnoreCaseAndNullability(t.schema, schema)) {
      WindowErrors.lateRowsSchemaMismatch(name, LateRowsColumns.describe(t.schema), operator,
        LateRowsColumns.describe(schema))
    }
    t.location.toString
  }

  private def writerOf(location: String): Path = new Path(new Path(new Path(location), LateRowsLog.stagingDir), writerFile)

  /** Whether the table at `location` says the query whose checkpoint is `checkpoint` writes it. */
  def writtenBy(session: SparkSession, location: String, checkpoint: String): Boolean = {
    val writer = writerOf(location)
    CheckpointFiles.read(writer.getFileSystem(session.sessionState.newHadoopConf()), writer).exists(_.trim == checkpoint)
  }

  /**
   * A table claimed ([[claim]]): its log, and whether the table named the checkpoint before (the
   * query wrote it in an earlier run; else it is new to the query, or was dropped and created
   * again since: its writer file went with it).
   */
  final case class Claim(log: LateRowsLog, claimedBefore: Boolean)

  /**
   * Claims the table at `location` for the query whose checkpoint is `checkpoint`: its writer
   * file names it. A table another checkpoint claimed, or one that holds files no query of the
   * extension wrote, is refused; a location that cannot be written fails here, before any row.
   * Opens its [[LateRowsLog]] (which creates `_spark_metadata`: readers then read its log).
   */
  def claim(session: SparkSession, table: TableIdentifier, location: String, checkpoint: String): Claim = {
    val name = show(table)
    try {
      val root = new Path(location)
      val fs = root.getFileSystem(session.sessionState.newHadoopConf())
      val writer = writerOf(location)
      val claimedBefore = CheckpointFiles.read(fs, writer) match {
        case Some(owner) if owner.trim != checkpoint => WindowErrors.lateRowsTableInUse(name, owner.trim)
        case Some(_) => true
        case None =>
          // Written once (atomically, CheckpointFiles): a restart leaves it as it is.
          val others = if (fs.exists(root)) fs.listStatus(root).map(_.getPath.getName)
            .filter(n => n == LateRowsLog.metadataDir || !LateRowsLog.hidden(n)) else Array.empty[String]
          if (others.nonEmpty) {
            WindowErrors.lateRowsTableUnsuitable(name,
              s"holds files no query wrote as its late rows (${others.sorted.take(3).mkString(", ")})")
          }
          fs.mkdirs(writer.getParent)
          CheckpointFiles.write(fs, writer, checkpoint + "\n")
          false
      }
      Claim(LateRowsLog.open(session, location), claimedBefore)
    } catch {
      case e: IOException => WindowErrors.lateRowsTableNotWritable(name, location, e)
    }
  }
}
