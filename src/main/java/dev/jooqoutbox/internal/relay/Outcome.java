package dev.jooqoutbox.internal.relay;

import dev.jooqoutbox.OutboxMessage;
import java.time.Duration;
import java.util.List;

/** What became of a claimed message, on its way from a lane to the completer's next write. */
sealed interface Outcome {

  /** The claim token that owns the message(s): every write is a compare-and-swap on it. */
  String token();

  /** How many claimed messages this outcome settles. */
  int count();

  /** The handler returned (or its stage completed normally). */
  record Sent(String token, OutboxMessage message, Duration took) implements Outcome {
    @Override
    public int count() {
      return 1;
    }
  }

  /** The handler threw, its stage failed, or it ran past the maximum handling time. */
  record Failed(String token, OutboxMessage message, Throwable failure, Duration took)
      implements Outcome {
    @Override
    public int count() {
      return 1;
    }
  }

  /** Claimed once more than the attempts allow: crashes used them up; never run. */
  record Exhausted(String token, OutboxMessage message) implements Outcome {
    @Override
    public int count() {
      return 1;
    }
  }

  /** Not run (shutdown, or an earlier message of its lane failed): given back with its attempt. */
  record Released(String token, List<OutboxMessage> messages) implements Outcome {
    @Override
    public int count() {
      return messages.size();
    }
  }
}
