package com.hx.spark.sql.connector.aof.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.scalatest.TagAnnotation;

/**
 * A suite whose outcome the Spark line cannot change: what it holds is the files' side (how
 * logrotate moves them, how records are cut, the scanner, the rotation model), which both lines'
 * JARs share, or real-time mode's follower, which only Spark 4.1 and later run. It runs on the
 * newest line only; the build leaves it out of the Spark 3 run unless AOF_EVERY_LINE is set.
 * docs/internals.md lists these suites.
 * ScalaTest reads tags from Java annotations only, hence Java.
 */
@TagAnnotation
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Spark4Only {}
