package com.hx.spark.sql.connector.aof.driver

/** Whether a call for answers has every endpoint look. */
sealed trait Look

object Look {

  /** Only news and answers to requests are taken. */
  case object Never extends Look

  /**
   * After a wait for news of ten times the last look's answers, or until some comes; once a
   * look found nothing, only news is waited for ([[Coordinator.answers]]).
   */
  case object AfterWait extends Look

  /** At once: what every host holds now is wanted (`Trigger.AvailableNow`'s first trigger). */
  case object Now extends Look
}
