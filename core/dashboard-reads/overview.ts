// What the dashboard's overview reads (issue 40 point 1), three small reads side by side: the
// delivery figures of the range's buckets (delivery-by-time.ts, the sends' counters), the device
// counts of the last 30 days (core/overview/device-counts.ts, kept by the scheduler's duty) and
// the failure reasons of the range's sends (core/overview/failure-reasons.ts, counted once per
// send). None reads an install, a chunk or an open, so the page costs the same on an app of ten
// installs and one of 10,000,000 (bench/overview/run.ts, docs/benchmarks.md "Overview").
import type { Queryable } from '../store/db.js';
import { deviceCounts, type DeviceDay } from '../overview/device-counts.js';
import { failureReasons, type FailureReason } from '../overview/failure-reasons.js';
import { deliveryByTime, type DeliveryBucket } from './delivery-by-time.js';
import { bucketsOf, type RangeName } from './overview-range.js';

/** The days the reachable devices' chart shows, whatever the range. */
export const DEVICE_DAYS = 30;

export interface Overview {
  range: RangeName;
  delivery: DeliveryBucket[];
  devices: DeviceDay[];
  /** When the latest device count was taken (absent: the app was not counted yet). */
  countedAt?: Date;
  reasons: FailureReason[];
}

export async function readOverview(db: Queryable, appId: string, range: RangeName, now: Date): Promise<Overview> {
  const since = bucketsOf(range, now)[0];
  const [delivery, devices, reasons] = await Promise.all([
    deliveryByTime(db, appId, range, now),
    deviceCounts(db, appId, DEVICE_DAYS, now),
    failureReasons(db, appId, since),
  ]);
  return { range, delivery, devices: devices.days, countedAt: devices.countedAt, reasons };
}
