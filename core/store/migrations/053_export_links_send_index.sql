-- export_links.send_id (migration 050: a send's history and events links) references sends with
-- ON DELETE CASCADE, and had no index: every send the retention duty deletes read export_links
-- whole to find its links (test/delivery/retention.test.ts checks every such column).
CREATE INDEX export_links_send ON export_links (send_id) WHERE send_id IS NOT NULL;
