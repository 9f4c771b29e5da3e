-- The outbox of the console timings (docs/benchmarks.md, "Operator console"), run by
-- docs/bench/console-timings.sh on a freshly migrated PostgreSQL database.
-- 1,000,000 messages on 5 topics and 10,000 aggregates: 970,000 sent, 10,000 dead, 20,000 pending
-- (100 of them of unknown outcome). Times in epoch millis, the newest now.
select (extract(epoch from now()) * 1000)::bigint as now \gset
insert into outbox_message (id, aggregate, topic, payload, headers, created_at, available_at, attempts,
  last_error, sent_at, dead_at, outcome_unknown_at, remote_ref)
select 'msg-' || i, 'agg-' || (i % 10000), 'topic-' || (i % 5),
  jsonb_build_object('n', i, 'text', repeat('x', 150)), '{"trace":"abc"}'::jsonb,
  :now - (1000000 - i) * 10, :now - (1000000 - i) * 10,
  case when i > 970000 and i <= 980000 then 10 when i > 980000 and i <= 980100 then 1 else 0 end,
  case when i > 970000 and i <= 980000 then 'handler failed: connection refused ' || i end,
  case when i <= 970000 then :now - (1000000 - i) * 10 + 50 end,
  case when i > 970000 and i <= 980000 then :now - (1000000 - i) * 10 + 90 end,
  case when i > 980000 and i <= 980100 then :now - (1000000 - i) * 10 + 70 end,
  case when i > 980000 and i <= 980100 then 'remote-' || i end
from generate_series(1, 1000000) i;
analyze outbox_message;
