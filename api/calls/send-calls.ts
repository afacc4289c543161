// Sends and their reports: notifications, their history, outcomes, Live Activities, exports, in
// the router's order (count-unsaved before notifications/{id}, which would match it).
import type { Call } from './call.js';
import { openApiCall } from '../routes/openapi-document.js';
import { createNotificationCall } from '../routes/notifications.js';
import { estimateNotificationCall } from '../routes/notification-estimate.js';
import { cancelNotificationCall, listNotificationsCall, readNotificationCall } from '../routes/notification-reports.js';
import { exportEventsCall, notificationHistoryCall } from '../routes/notification-history.js';
import { outcomesCall } from '../routes/outcomes.js';
import { startLiveActivityCall, updateLiveActivityCall } from '../routes/live-activities.js';
import { downloadExportCall, exportSubscriptionsCall } from '../routes/exports.js';

export const SEND_CALLS: readonly Call[] = [
  openApiCall,
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
