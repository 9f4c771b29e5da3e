package dev.jooqoutbox.internal.repository;

/** The model in memory passes the contract the three databases pass. */
class ReferenceClaimTest extends ClaimContract {
  @Override
  StoreSubject open() {
    return new ReferenceStoreSubject();
  }
}
