// Segments and templates (api/routes/segments.ts, templates.ts), in the router's order.
import type { Call } from './call.js';
import { createSegmentCall, deleteSegmentCall, getSegmentCall, getSegmentsCall, updateSegmentCall } from '../routes/segments.js';
import { copyTemplateToAppCall, createTemplateCall, deleteTemplateCall, updateTemplateCall, viewTemplateCall, viewTemplatesCall } from '../routes/templates.js';

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
