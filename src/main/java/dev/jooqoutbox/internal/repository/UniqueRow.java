package dev.jooqoutbox.internal.repository;

import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Table;

/**
 * The row a one-row insert would create, as {@link OutboxDialect#insertIfAbsent} needs it: its
 * {@code table}, the unique {@code key} the insert may collide on, the condition {@code sameKey}
 * that selects the row holding that key, and a numeric column {@code probe} that a dialect may
 * change and change back to learn that the row already existed (see {@link MariaDbDialect}).
 */
record UniqueRow<N extends Number>(
    Table<?> table, Field<?>[] key, Condition sameKey, Field<N> probe) {}
