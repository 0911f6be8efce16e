package org.apache.spark.sql.slidingwindow.expressions

import java.util.Locale

import org.apache.spark.sql.internal.SQLConf

/**
 * A name as Spark's analyzer resolves it, for comparing what a restarted query refers to with
 * what its checkpoint recorded: case-insensitively (`SUM(V)` is `sum(v)`), unless
 * `spark.sql.caseSensitive` is on. Spark keeps the case a query writes in the names it resolves,
 * so two runs of one query in two casings name their columns differently. Messages keep the
 * query's own text.
 */
object ResolvedName {
  def apply(name: String, caseSensitive: Boolean): String =
    if (caseSensitive) name else name.toLowerCase(Locale.ROOT)

  /** Under the current session's setting. */
  def apply(name: String): String = apply(name, SQLConf.get.caseSensitiveAnalysis)
}
