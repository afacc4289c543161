// The stats body of GET /api/v1/notifications/{id} from a sends row (contract "Stats response body").
import { isFinalStatus, type SendStatus } from '../send-model/states.js';

export interface SendRow {
  id: number;
  app_id: string;
  status: SendStatus;
  total_recipients: number;
  sent: number;
  failed: number;
  skipped: number;
  left_out: number;
  clicked: number;
}

export interface SendStats {
  id: number;
  status: SendStatus;
  total_recipients: number;
  processed: number;
  remaining: number;
  sent: number;
  successful: number;
  failed: number;
  skipped: number;
  clicked: number;
  converted: number;
  errored: number;
  /**
   * OneSignal's per-platform counts (its client's PlatformDeliveryData / DeliveryData names): iOS
   * only, Herald's own counters. `received` is absent: Herald has no confirmed delivery (no
   * receipt from the device), only Apple's acceptance, which is `successful`.
   */
  platform_delivery_stats: { ios: { successful: number; failed: number; errored: number; converted: number } };
}

export function toStats(row: SendRow): SendStats {
  const processed = row.sent + row.failed + row.skipped;
  // Devices left out by a pause are in neither processed nor remaining; a finished send has none left.
  const remaining = isFinalStatus(row.status) ? 0 : Math.max(0, row.total_recipients - processed - row.left_out);
  return {
    id: row.id,
    status: row.status,
    total_recipients: row.total_recipients,
    processed,
    remaining,
    sent: row.sent,
    successful: row.sent,
    failed: row.failed,
    skipped: row.skipped,
    clicked: row.clicked,
    converted: row.clicked,
    errored: 0,
    platform_delivery_stats: { ios: { successful: row.sent, failed: row.failed, errored: 0, converted: row.clicked } },
  };
}
