-- The dashboard's audience pages find an install by the start of its APNs token. The unique
-- (app_id, token) index orders tokens by the database's collation, which a prefix range may not
-- follow (en_US sorts differently from bytes); text_pattern_ops orders bytewise, so the range
-- `token ~>=~ prefix AND token ~<~ prefix || 'g'` (tokens are lowercase hex) is an index scan
-- under any collation. One more index on subscriptions: a write pays for it (docs/decisions.md).
CREATE INDEX subscriptions_token_prefix ON subscriptions (app_id, token text_pattern_ops);
