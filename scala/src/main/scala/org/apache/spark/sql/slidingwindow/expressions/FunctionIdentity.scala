package org.apache.spark.sql.slidingwindow.expressions

import java.lang.invoke.SerializedLambda
import java.lang.reflect.Modifier
import java.security.MessageDigest

import scala.util.Try

/**
 * What a user's function inside an aggregate computes, for [[AggregateIdentity]]: the same text
 * in every JVM for the same function, another text for another function.
 *
 *  - A JVM lambda (a Scala UDF's function; the one Spark wraps around a Java UDF registered with
 *    `registerJavaFunction` or `spark.udf.register`) is named by the method it runs
 *    (`Class.$anonfun$name$1`, the compiler's name, stable across JVMs) and what it captured:
 *    a captured function (the Java UDF instance Spark's wrapper holds) by its own description,
 *    a captured value by its value, any other captured object by its class only (an enclosing
 *    object's fields are no part of what the function computes).
 *  - Any other function object (a Java UDF class, an `Aggregator` of `udaf`, a
 *    `UserDefinedAggregateFunction`) by its class and the values of its own fields of simple
 *    types (`new Scale(2)` and `new Scale(3)` differ).
 *  - A Python function by a digest of its pickled code: not by the interpreter's path or the
 *    worker's environment, which change with a virtualenv or a cluster image while the function
 *    stays the same.
 */
object FunctionIdentity {

  /** The description of a function object found among an expression's arguments. */
  def describe(function: AnyRef): String =
    lambda(function).map(describeLambda).getOrElse(withFields(function))

  /** Whether `value` is a Python function of a Python UDF or UDAF (Spark's `PythonFunction`). */
  def isPythonFunction(value: Any): Boolean =
    value != null && implemented(value.getClass).contains("org.apache.spark.api.python.PythonFunction")

  /** A Python function by the digest of its pickled code (`command`, a sequence of bytes). */
  def describePython(function: AnyRef): String = {
    val command = Try(function.getClass.getMethod("command").invoke(function)).toOption
    val bytes: Array[Byte] = command match {
      case Some(s: Iterable[_]) => s.map(_.asInstanceOf[Byte]).toArray
      case Some(a: Array[Byte]) => a
      case _ => function.getClass.getName.getBytes("UTF-8")
    }
    val digest = MessageDigest.getInstance("SHA-256").digest(bytes).map("%02x".format(_)).mkString
    s"python function with pickled code sha256:${digest.take(16)}"
  }

  // No closure that matches SerializedLambda: Scala 2.12's compiler fails on one (Spark 3.5).
  private def lambda(function: AnyRef): Option[SerializedLambda] = {
    val replaced = Try {
      val writeReplace = function.getClass.getDeclaredMethod("writeReplace")
      writeReplace.setAccessible(true)
      writeReplace.invoke(function)
    }.getOrElse(null)
    if (replaced.isInstanceOf[SerializedLambda]) Some(replaced.asInstanceOf[SerializedLambda]) else None
  }

  private def describeLambda(l: SerializedLambda): String = {
    val captured = (0 until l.getCapturedArgCount).map(i => capturedArgument(l.getCapturedArg(i)))
    s"${l.getImplClass.replace('/', '.')}.${l.getImplMethodName}(${captured.mkString(", ")})"
  }

  private def capturedArgument(value: AnyRef): String = value match {
    case null => "null"
    case v if simple(v) => v.toString
    case f if isFunction(f) => describe(f)
    case other => other.getClass.getName
  }

  private def withFields(function: AnyRef): String = {
    val fields = (ownFields(function.getClass) ++ instanceFields(function.getClass.getSuperclass)).flatMap { f =>
      Try { f.setAccessible(true); f.get(function) }.toOption.filter(simple).map(v => s"${f.getName}=$v")
    }
    function.getClass.getName + (if (fields.isEmpty) "" else fields.mkString("(", ", ", ")"))
  }

  /** A function's class implements one of these: a Scala function, a Java UDF, a Java function. */
  private val functionInterfaces = Seq("scala.Function", "org.apache.spark.sql.api.java.UDF", "java.util.function.")

  private def isFunction(value: AnyRef): Boolean =
    implemented(value.getClass).exists(i => functionInterfaces.exists(i.startsWith))

  private def implemented(c: Class[_]): Set[String] =
    if (c == null) Set.empty
    else (c.getInterfaces.toSet[Class[_]].flatMap(i => implemented(i) + i.getName)) ++ implemented(c.getSuperclass)

  private def simple(value: Any): Boolean = value match {
    case _: String | _: java.lang.Number | _: java.lang.Boolean | _: java.lang.Character => true
    case _ => false
  }

  /**
   * The instance fields of `c` and of its superclasses up to the first one of Java, Scala or
   * Spark (`Aggregator`'s own fields are no part of a user's function), by name.
   */
  private def instanceFields(c: Class[_]): Seq[java.lang.reflect.Field] =
    if (c == null || Seq("java.", "scala.", "org.apache.spark.").exists(c.getName.startsWith)) Nil
    else ownFields(c) ++ instanceFields(c.getSuperclass)

  private def ownFields(c: Class[_]): Seq[java.lang.reflect.Field] =
    c.getDeclaredFields.toSeq.filter { f =>
      !Modifier.isStatic(f.getModifiers) && !Modifier.isTransient(f.getModifiers) && !f.isSynthetic
    }.sortBy(_.getName)
}
