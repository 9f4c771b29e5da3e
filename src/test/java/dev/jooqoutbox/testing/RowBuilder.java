package dev.jooqoutbox.testing;

import java.time.Instant;

/** A changed copy of a {@link ModelRow}: the model's one way to write a row. */
final class RowBuilder {

  long seq;
  String id;
  String aggregate;
  String topic;
  Instant createdAt;
  Instant availableAt;
  int attempts;
  String claimToken;
  Instant lockedUntil;
  Instant sentAt;
  Instant deadAt;
  Instant outcomeUnknownAt;
  String lastError;
  String remoteRef;
  String resolution;
  boolean committed;

  RowBuilder(ModelRow r) {
    seq = r.seq();
    id = r.id();
    aggregate = r.aggregate();
    topic = r.topic();
    createdAt = r.createdAt();
    availableAt = r.availableAt();
    attempts = r.attempts();
    claimToken = r.claimToken();
    lockedUntil = r.lockedUntil();
    sentAt = r.sentAt();
    deadAt = r.deadAt();
    outcomeUnknownAt = r.outcomeUnknownAt();
    lastError = r.lastError();
    remoteRef = r.remoteRef();
    resolution = r.resolution();
    committed = r.committed();
  }

  RowBuilder availableAt(Instant value) {
    availableAt = value;
    return this;
  }

  RowBuilder attempts(int value) {
    attempts = value;
    return this;
  }

  RowBuilder claimToken(String value) {
    claimToken = value;
    return this;
  }

  RowBuilder lockedUntil(Instant value) {
    lockedUntil = value;
    return this;
  }

  RowBuilder sentAt(Instant value) {
    sentAt = value;
    return this;
  }

  RowBuilder deadAt(Instant value) {
    deadAt = value;
    return this;
  }

  RowBuilder outcomeUnknownAt(Instant value) {
    outcomeUnknownAt = value;
    return this;
  }

  RowBuilder lastError(String value) {
    lastError = value;
    return this;
  }

  RowBuilder remoteRef(String value) {
    remoteRef = value;
    return this;
  }

  RowBuilder resolution(String value) {
    resolution = value;
    return this;
  }

  RowBuilder committed(boolean value) {
    committed = value;
    return this;
  }

  /** Sets the remote reference unless one is stored: a stored one is never replaced. */
  RowBuilder keepRemoteRef(String value) {
    if (remoteRef == null) {
      remoteRef = value;
    }
    return this;
  }

  ModelRow build() {
    return new ModelRow(
        seq,
        id,
        aggregate,
        topic,
        createdAt,
        availableAt,
        attempts,
        claimToken,
        lockedUntil,
        sentAt,
        deadAt,
        outcomeUnknownAt,
        lastError,
        remoteRef,
        resolution,
        committed);
  }
}
