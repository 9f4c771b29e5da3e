package dev.jooqoutbox.cli.demo;

/**
 * The payload of an {@code order.placed} message: the order as the ledger needs it.
 *
 * @param orderId the order's key in both demo tables
 * @param customer the customer id, also the message's aggregate
 * @param amountCents what the ledger books
 * @param customerSeq 1 for the customer's first order, 2 for the next: the placement order the
 *     ledger must book in
 * @param placedAtMillis wall-clock time of the placement, epoch milliseconds
 */
record OrderPlaced(
    long orderId, String customer, long amountCents, int customerSeq, long placedAtMillis) {

  static final String TOPIC = "order.placed";
}
