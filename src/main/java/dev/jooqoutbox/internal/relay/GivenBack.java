package dev.jooqoutbox.internal.relay;

import java.util.List;

/**
 * What a lane that stopped early did not deliver: its failed message (retried later) and the rest
 * of its run (released), as seqs of the lane's claim, in seq order.
 */
record GivenBack(Lane lane, List<Long> seqs) {}
