package dev.jooqoutbox.internal.repository;

/**
 * A thread body that waits for writers' commit notifications on a dedicated connection; {@link
 * #stop()} makes {@link #run()} return within its wait (about half a second).
 */
public interface WakeupListener extends Runnable {

  void stop();
}
