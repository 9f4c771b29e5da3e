package dev.jooqoutbox.internal.repository;

/** The model in memory passes the contract the three databases pass. */
class ReferenceClaimRunTest extends ClaimRunContract {
  @Override
  StoreSubject open() {
    return new ReferenceStoreSubject();
  }
}
