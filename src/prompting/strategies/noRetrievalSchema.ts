import type { ComponentSchema } from '../../registry.js';
import { TemplateOverrideSchema, type TemplateOverride } from '../templateOverrides.js';

/** A strategy without retrieval takes a template override only. */
const noRetrievalSchema = (name: string, description: string): ComponentSchema<TemplateOverride> => ({ name, description, params: TemplateOverrideSchema.strict() });

export const closedBookSchema = noRetrievalSchema('closed-book', 'No retrieval: the question and the answer instructions only.');

export const roleSchema = noRetrievalSchema('role', 'Historian role-play, no retrieval.');

export const profSchema = noRetrievalSchema('prof', 'Professional prompting: rigorous academic answer, cited sources, era names with AD years; no retrieval.');
