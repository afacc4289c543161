// Segments and templates (api/routes/segments.ts, templates.ts), in the router's order.
import type { Call } from '../calls/call.js';
import { createSegmentCall, deleteSegmentCall, getSegmentCall, getSegmentsCall, updateSegmentCall } from './segments.js';
import { copyTemplateToAppCall, createTemplateCall, deleteTemplateCall, updateTemplateCall, viewTemplateCall, viewTemplatesCall } from './templates.js';

export const RESOURCE_CALLS: readonly Call[] = [
  createSegmentCall,
  getSegmentsCall,
  getSegmentCall,
  updateSegmentCall,
  deleteSegmentCall,
  createTemplateCall,
  viewTemplatesCall,
  viewTemplateCall,
  updateTemplateCall,
  deleteTemplateCall,
  copyTemplateToAppCall,
];
