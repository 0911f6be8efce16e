package org.apache.spark.sql.slidingwindow.windows

/** Time arithmetic in microseconds that stops at the ends of Long instead of wrapping around. */
object SaturatingTime {
  def add(t: Long, d: Long): Long = if (t > Long.MaxValue - d) Long.MaxValue else t + d
  def sub(t: Long, d: Long): Long = if (t < Long.MinValue + d) Long.MinValue else t - d
}
