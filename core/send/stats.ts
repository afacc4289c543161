// The stats body of GET /api/v1/notifications/{id} from a sends row (contract "Stats response body").
import { isFinalStatus, type SendStatus } from '../send-model/states.js';

/** A send's counters as read from its sends row: what its stats are made of. */
export interface SendCountsRow {
  id: number;
  app_id: string;
  status: SendStatus;
  total_recipients: number;
  sent: number;
  failed: number;
  skipped: number;
  left_out: number;
  clicked: number;
  /** The Android share of sent, failed and clicked (migration 085); absent in a row read without them: none. */
  sent_android?: number;
  failed_android?: number;
  clicked_android?: number;
}

/** OneSignal's DeliveryData for one platform: `received` absent (no receipt from the device). */
export interface PlatformCounts {
  successful: number;
  failed: number;
  errored: number;
  converted: number;
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
   * OneSignal's per-platform counts (its client's PlatformDeliveryData / DeliveryData names), from
   * Herald's own counters: an entry counts under the platform of the install that decided it
   * (sender/tally.ts), an open under its install's. `received` is absent: Herald has no confirmed
   * delivery (no receipt from the device), only Apple's or Google's acceptance, which is `successful`.
   */
  platform_delivery_stats: { ios: PlatformCounts; android: PlatformCounts };
}

export function toStats(row: SendCountsRow): SendStats {
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
    platform_delivery_stats: platformCounts(row),
  };
}

/** iOS is the total less Android: rows from before migration 085 (every device iOS) read right as they are. */
function platformCounts(row: SendCountsRow): SendStats['platform_delivery_stats'] {
  const android = { successful: row.sent_android ?? 0, failed: row.failed_android ?? 0, errored: 0, converted: row.clicked_android ?? 0 };
  const ios = { successful: row.sent - android.successful, failed: row.failed - android.failed, errored: 0, converted: row.clicked - android.converted };
  return { ios, android };
}
