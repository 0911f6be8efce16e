package org.apache.spark.sql.slidingwindow

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, LoggerContext}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Configurator
import org.apache.logging.log4j.core.config.Property

/**
 * Captures what one logger logs at INFO and above, as "LEVEL message" lines, for tests run from
 * Python through py4j: `LogCapture.of(name)`, then `lines()`, `thrown()` and `close()`, which
 * gives the logger back its level.
 */
class LogCapture private (loggerName: String, previousLevel: Level)
  extends AbstractAppender(s"capture-$loggerName", null, null, true, Property.EMPTY_ARRAY) {

  private val events = new ConcurrentLinkedQueue[String]()
  private val throwables = new ConcurrentLinkedQueue[String]()

  override def append(event: LogEvent): Unit = {
    events.add(s"${event.getLevel} ${event.getMessage.getFormattedMessage}")
    Option(event.getThrown).foreach(t => throwables.add(t.getClass.getName))
  }

  def lines(): java.util.List[String] = events.asScala.toList.asJava

  /** The classes of the exceptions logged with the lines, in order. */
  def thrown(): java.util.List[String] = throwables.asScala.toList.asJava

  def close(): Unit = {
    val context = LogManager.getContext(false).asInstanceOf[LoggerContext]
    context.getConfiguration.getLoggerConfig(loggerName).removeAppender(getName)
    context.updateLoggers()
    Configurator.setLevel(loggerName, previousLevel)
    super.stop()
  }
}

object LogCapture {
  def of(loggerName: String): LogCapture = {
    val capture = new LogCapture(loggerName, LogManager.getLogger(loggerName).getLevel)
    capture.start()
    Configurator.setLevel(loggerName, Level.INFO)
    val context = LogManager.getContext(false).asInstanceOf[LoggerContext]
    context.getConfiguration.getLoggerConfig(loggerName).addAppender(capture, Level.INFO, null)
    context.updateLoggers()
    capture
  }
}
