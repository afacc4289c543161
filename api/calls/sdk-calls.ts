// The app-facing calls of the SDKs and OneSignal's v1 device calls (players), in the router's order.
import type { Call } from './call.js';
import { addPlayerCall, deletePlayerCall, editPlayerCall, newSessionCall, viewPlayerCall, viewPlayersCall } from '../routes/players.js';
import { externalUserTagsCall, incrementSessionLengthCall, newPurchaseCall } from '../routes/player-sessions.js';
import { iosParamsCall } from '../routes/ios-params.js';
import { createSubscriptionCall, reportOpenCall, updateSubscriptionCall } from '../routes/subscriptions.js';
import { readSubscriptionCall } from '../routes/subscription-read.js';
import { removeStartTokenCall, removeUpdateTokenCall, setStartTokenCall, setUpdateTokenCall } from '../routes/live-activity-tokens.js';
import { readActivityChannelCall } from '../routes/live-activity-channel.js';
import { removePushTypeTokenCall, setPushTypeTokenCall } from '../routes/push-type-tokens.js';

export const SDK_CALLS: readonly Call[] = [
  addPlayerCall,
  viewPlayersCall,
  viewPlayerCall,
  editPlayerCall,
  deletePlayerCall,
  newSessionCall,
  newPurchaseCall,
  incrementSessionLengthCall,
  externalUserTagsCall,
  iosParamsCall,
  createSubscriptionCall,
  updateSubscriptionCall,
  readSubscriptionCall,
  reportOpenCall,
  setUpdateTokenCall,
  removeUpdateTokenCall,
  readActivityChannelCall,
  setStartTokenCall,
  removeStartTokenCall,
  setPushTypeTokenCall,
  removePushTypeTokenCall,
];
