package org.apache.spark.sql.slidingwindow.codegen

import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue}

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.expressions.{Attribute, BasePredicate, BindReferences, Expression, MutableProjection, Predicate, UnsafeProjection}
import org.apache.spark.sql.internal.SQLConf

/**
 * Spark's generated projections and predicates, lent to a task for its lifetime and taken back
 * when it completes, so that the next task of the same expressions (the next partition, the
 * next micro-batch) reuses them instead of generating their code again.
 *
 * Spark generates a projection's Java source each time one is created, then finds its compiled
 * class in a cache keyed by that source: the generation is paid per creation. An operator that
 * creates a dozen projections per task, in four tasks per micro-batch, spent about 5% of a
 * 100,000-row micro-batch generating code (docs/performance.md), more in small micro-batches.
 *
 * A projection is used by one task at a time (it reuses its output row); two creations of the
 * same expressions within one task get two. Outside a task (the driver), and for
 * nondeterministic expressions (which are initialised per partition), every call creates a new
 * one. The pool is bounded: at most [[MaxKeys]] expression lists, [[MaxFreePerKey]] free
 * projections each.
 */
object ProjectionPool {
  private[codegen] val MaxKeys = 1024
  private[codegen] val MaxFreePerKey = 16

  // The factory mode (codegen or interpreted) is the session's, set per query.
  private final case class Key(kind: String, expressions: Seq[Expression],
      factoryMode: String = SQLConf.get.getConf(SQLConf.CODEGEN_FACTORY_MODE).toString)

  private val free = new ConcurrentHashMap[Key, ConcurrentLinkedQueue[AnyRef]]

  /** As `UnsafeProjection.create(expressions)`. */
  def unsafe(expressions: Seq[Expression]): UnsafeProjection =
    lend(Key("unsafe", expressions), UnsafeProjection.create(expressions))

  /** As `UnsafeProjection.create(expressions, input)`. */
  def unsafe(expressions: Seq[Expression], input: Seq[Attribute]): UnsafeProjection =
    unsafe(BindReferences.bindReferences(expressions, input))

  /** As `MutableProjection.create(expressions, input)`: set its target before each use. */
  def mutable(expressions: Seq[Expression], input: Seq[Attribute] = Nil): MutableProjection = {
    val bound = BindReferences.bindReferences(expressions, input)
    lend(Key("mutable", bound), MutableProjection.create(bound))
  }

  /** As `Predicate.create(expression, input)`. */
  def predicate(expression: Expression, input: Seq[Attribute]): BasePredicate = {
    val bound = BindReferences.bindReference(expression, input)
    lend(Key("predicate", Seq(bound)), Predicate.create(bound))
  }

  /** The number of projections the pool holds for the next tasks (tests check its reuse). */
  def freeCount: Int = {
    var n = 0
    free.values.forEach(q => n += q.size)
    n
  }

  private def lend[P <: AnyRef](key: Key, create: => P): P = {
    val task = TaskContext.get()
    if (task == null || !key.expressions.forall(_.deterministic)) return create
    val queue = free.get(key)
    val taken = if (queue == null) null else queue.poll()
    val projection = if (taken != null) taken.asInstanceOf[P] else create
    task.addTaskCompletionListener[Unit](_ => giveBack(key, projection))
    projection
  }

  private def giveBack(key: Key, projection: AnyRef): Unit = {
    if (free.size >= MaxKeys && !free.containsKey(key)) free.clear()
    val queue = free.computeIfAbsent(key, _ => new ConcurrentLinkedQueue[AnyRef])
    if (queue.size < MaxFreePerKey) queue.offer(projection)
  }
}
