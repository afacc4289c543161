// OneSignal's users, aliases and their subscriptions, in the order the router mounted them.
import type { Call } from '../calls/call.js';
import { createUserCall, deleteUserCall, getUserCall, updateUserCall } from './users.js';
import { createAliasByUserCall, createAliasBySubscriptionCall, deleteAliasCall, getAliasesBySubscriptionCall, getAliasesByUserCall } from './user-aliases.js';
import { createUserSubscriptionCall, deleteSubscriptionCall, transferSubscriptionCall, updateSubscriptionByTokenCall } from './user-subscriptions.js';

export const USER_CALLS: readonly Call[] = [
  createUserCall,
  getUserCall,
  updateUserCall,
  deleteUserCall,
  getAliasesByUserCall,
  createAliasByUserCall,
  deleteAliasCall,
  createUserSubscriptionCall,
  transferSubscriptionCall,
  updateSubscriptionByTokenCall,
  getAliasesBySubscriptionCall,
  createAliasBySubscriptionCall,
  deleteSubscriptionCall,
];
