// Sends and their reports: notifications, their history, outcomes, Live Activities, exports, in
// the router's order (count-unsaved before notifications/{id}, which would match it).
import type { Call } from '../calls/call.js';
import { createNotificationCall } from './notifications.js';
import { estimateNotificationCall } from './notification-estimate.js';
import { cancelNotificationCall, listNotificationsCall, readNotificationCall } from './notification-reports.js';
import { exportEventsCall, notificationHistoryCall } from './notification-history.js';
import { outcomesCall } from './outcomes.js';
import { startLiveActivityCall, updateLiveActivityCall } from './live-activities.js';
import { downloadExportCall, exportSubscriptionsCall } from './exports.js';

export const SEND_CALLS: readonly Call[] = [
  createNotificationCall,
  listNotificationsCall,
  estimateNotificationCall,
  readNotificationCall,
  cancelNotificationCall,
  notificationHistoryCall,
  exportEventsCall,
  outcomesCall,
  startLiveActivityCall,
  updateLiveActivityCall,
  exportSubscriptionsCall,
  downloadExportCall,
];
