package dev.jooqoutbox.internal.convert;

import java.time.Instant;
import org.jooq.impl.AbstractConverter;

/**
 * Maps the epoch-millisecond {@code BIGINT} time columns to {@link Instant}.
 *
 * <p>Every dialect stores time as epoch milliseconds because SQLite has no time type; one
 * representation keeps comparisons (leases, backoff, purge cutoffs) identical everywhere and immune
 * to session time zones. Sub-millisecond precision is dropped on the way in.
 *
 * <p>Referenced by the generated classes in {@code dev.jooqoutbox.schema}.
 */
public final class EpochMillisConverter extends AbstractConverter<Long, Instant> {

  private static final long serialVersionUID = 1L;

  public EpochMillisConverter() {
    super(Long.class, Instant.class);
  }

  @Override
  public Instant from(Long millis) {
    return millis == null ? null : Instant.ofEpochMilli(millis);
  }

  @Override
  public Long to(Instant instant) {
    return instant == null ? null : instant.toEpochMilli();
  }
}
