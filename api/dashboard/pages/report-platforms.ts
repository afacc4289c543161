// A send's counts per platform on its report (issue 39 point 8): devices sent, failed and opened
// for iOS and for Android, the same figures as the REST report's platform_delivery_stats
// (core/send/stats.ts: Android's from sends.sent_android/failed_android/clicked_android, iOS's the
// total less Android's). iOS's row is always there (every send before Android counted its devices
// as iOS). Android's is left out when it can only say zeros about a platform the App does not use:
// the send counted no Android device and the App has no Android install. Drawn on the server;
// dashboard.js swaps the markup in from live.json while the send runs, as it does the chart.
import type { NotificationReport } from '../../../core/send/report.js';
import { html, toString, type Html } from '../html.js';
import { count, rate } from './format.js';

export interface PlatformRow {
  platform: 'iOS' | 'Android';
  sent: number;
  failed: number;
  opened: number;
}

/** The rows the table shows, iOS first. `appHasAndroid`: core/dashboard-reads/app-platforms.ts. */
export function platformRows(r: NotificationReport, appHasAndroid: boolean): PlatformRow[] {
  const { ios, android } = r.platform_delivery_stats;
  const rows: PlatformRow[] = [{ platform: 'iOS', sent: ios.successful, failed: ios.failed, opened: ios.converted }];
  const androidCounted = android.successful + android.failed + android.converted > 0;
  if (androidCounted || appHasAndroid) rows.push({ platform: 'Android', sent: android.successful, failed: android.failed, opened: android.converted });
  return rows;
}

/** The table, in the report's table style (class num on the figures, a caption that says what they are). */
export function platformTable(r: NotificationReport, appHasAndroid: boolean): Html {
  const rows = platformRows(r, appHasAndroid);
  return html`<div class="table-wrap"><table id="platforms-table">
    <caption>Devices sent, failed and opened on each platform; opened of sent.</caption>
    <thead><tr><th scope="col">Platform</th><th scope="col" class="num">Sent</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Opened</th><th scope="col" class="num">Opened of sent</th></tr></thead>
    <tbody>${rows.map((p) => html`<tr id="platform-${p.platform.toLowerCase()}"><th scope="row">${p.platform}</th><td class="num">${count(p.sent)}</td><td class="num">${count(p.failed)}</td><td class="num">${count(p.opened)}</td><td class="num">${rate(p.opened, p.sent)}</td></tr>`)}</tbody>
  </table></div>`;
}

/** The section as report.ts places it: a heading and the box dashboard.js refreshes. */
export const platformSection = (r: NotificationReport, appHasAndroid: boolean): Html =>
  html`<h2 id="platforms-title">Per platform</h2><div id="platforms-box">${platformTable(r, appHasAndroid)}</div>`;

export const platformTableMarkup = (r: NotificationReport, appHasAndroid: boolean) => toString(platformTable(r, appHasAndroid));
