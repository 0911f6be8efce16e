package org.apache.spark.sql.slidingwindow.harness

import scala.util.Random

import org.apache.spark.sql.slidingwindow.expressions.WindowKind
import org.apache.spark.sql.slidingwindow.state.sliding.StateFormatVersion

/**
 * The random cases of a windowed aggregation (sliding or batch windows): a size of `sizes`, a
 * state format version, an arrangement the provider can have, and the record settings of
 * [[SettingChoices.windowRecords]].
 */
final class WindowedAggregateCases(kind: WindowKind, sizes: Seq[Long], reference: Long => StreamReference[WindowRow]) {
  def apply(provider: ProviderKind, append: Boolean)(rng: Random): StreamCase[WindowRow] = {
    val size = sizes(rng.nextInt(sizes.size))
    val version = StateFormatVersion.supported(rng.nextInt(StateFormatVersion.supported.size))
    val arrangement = provider.arrangements(rng.nextInt(provider.arrangements.size))
    val expected = reference(size)
    StreamCase(new WindowedAggregateOperator(kind, size, append, version, arrangement),
      StreamShape(Seq(size), settings = SettingChoices.windowRecords),
      if (append) expected.append else expected.update)
  }
}
