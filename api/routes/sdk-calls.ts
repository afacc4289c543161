// The app-facing calls of the SDKs and OneSignal's v1 device calls (players), in the router's order.
import type { Call } from '../calls/call.js';
import { addPlayerCall, deletePlayerCall, editPlayerCall, newSessionCall, viewPlayerCall, viewPlayersCall } from './players.js';
import { externalUserTagsCall, incrementSessionLengthCall, newPurchaseCall } from './player-sessions.js';
import { iosParamsCall } from './ios-params.js';
import { createSubscriptionCall, reportOpenCall, updateSubscriptionCall } from './subscriptions.js';
import { readSubscriptionCall } from './subscription-read.js';
import { removeStartTokenCall, removeUpdateTokenCall, setStartTokenCall, setUpdateTokenCall } from './live-activity-tokens.js';
import { readActivityChannelCall } from './live-activity-channel.js';
import { removePushTypeTokenCall, setPushTypeTokenCall } from './push-type-tokens.js';

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
