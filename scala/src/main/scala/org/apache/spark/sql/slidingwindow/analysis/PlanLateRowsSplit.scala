package org.apache.spark.sql.slidingwindow.analysis

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, Filter, LogicalPlan, Project, RepartitionOperation, SubqueryAlias, View}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.slidingwindow.expressions.WindowKind
import org.apache.spark.sql.slidingwindow.late.LateRowsTable
import org.apache.spark.sql.slidingwindow.logical.{LateRowsSplit, StreamingTrailingWindow, WindowedAggregate}
import org.apache.spark.sql.slidingwindow.planning.StreamingQueryContext
import org.apache.spark.sql.slidingwindow.shims.ClassicSession.SparkSession

/**
 * Plan normalization, in each micro-batch of a query with a late-rows table (after
 * [[PlanWindowedAggregates]], before the optimizer prunes a column): gives each streaming
 * operator that drops late rows (sliding windows, trailing windows) a [[LateRowsSplit]] right
 * below it, and carries every column of the query's `withWatermark` up to it, by adding them to
 * the Projects in between. The optimizer then keeps them below the split (which reads them) and
 * prunes them above it, where the operator and its shuffle read only their own columns.
 *
 * They are carried through what keeps a row a row: a projection, a filter, a view or alias, a
 * repartition. Where anything else is between (a join, a union, another stateful operator), the
 * operator drops its late rows itself, with its own input columns.
 */
final case class PlanLateRowsSplit(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.isStreaming || !hasTable) plan
    else plan.transformUp {
      case w: StreamingTrailingWindow if !w.child.isInstanceOf[LateRowsSplit] && TimeColumnWatermark.onTime(w.time) =>
        w.copy(child = PlanLateRowsSplit.split(w.orderSpec.head.child.asInstanceOf[Attribute], w.child.output, w.child))
      case a: WindowedAggregate if a.isStreaming && a.definition.kind == WindowKind.Sliding &&
          !a.child.isInstanceOf[LateRowsSplit] && TimeColumnWatermark.onTime(a.time) =>
        a.copy(child = PlanLateRowsSplit.split(a.time, a.child.output.filter(a.references.contains), a.child))
    }

  // Only a running query writes late rows to a table: its setting is read by the stream's session.
  private def hasTable: Boolean =
    StreamingQueryContext.currentQuery(session).isDefined && session.sessionState.conf.contains(LateRowsTable.settingKey)
}

object PlanLateRowsSplit {
  /**
   * `child`, the input of an operator that reads `output` and judges rows late by `time`, below a
   * [[LateRowsSplit]] whose input has the columns of the query's `withWatermark`; `child` as it is
   * where they cannot be carried.
   */
  def split(time: Attribute, output: Seq[Attribute], child: LogicalPlan): LogicalPlan =
    watermarkOf(child).map(_.output).flatMap { whole =>
      val carried = carry(child, AttributeSet(whole))
      if (whole.forall(carried.outputSet.contains)) Some(LateRowsSplit(time, whole, output, carried)) else None
    }.getOrElse(child)

  /** A node that keeps its input's rows whole: the columns of a row below it can be carried through. */
  private def keepsRows(plan: LogicalPlan): Boolean = plan match {
    case _: Project | _: Filter | _: SubqueryAlias | _: View | _: RepartitionOperation => true
    case _ => false
  }

  /** The query's `withWatermark` below `plan`, through nodes that keep its rows whole. */
  private def watermarkOf(plan: LogicalPlan): Option[EventTimeWatermark] = plan match {
    case w: EventTimeWatermark => Some(w)
    case p if keepsRows(p) => watermarkOf(p.children.head)
    case _ => None
  }

  /** `plan` with the `columns` below it in its output too: each Project in between passes them on. */
  private def carry(plan: LogicalPlan, columns: AttributeSet): LogicalPlan =
    if (columns.subsetOf(plan.outputSet)) plan
    else plan match {
      case p: Project =>
        val child = carry(p.child, columns)
        p.copy(projectList = p.projectList ++ child.output.filter(a => columns.contains(a) && !p.outputSet.contains(a)),
          child = child)
      case other if keepsRows(other) => other.withNewChildren(Seq(carry(other.children.head, columns)))
      case other => other
    }
}
