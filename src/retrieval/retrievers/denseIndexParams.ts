import { z } from 'zod';
import { ComponentSpecSchema } from '../../runFiles/indexManifest.js';

/** Params shared by dense retrievers: the index directory and an optional query-embedder override. */
export const denseIndexParams = {
  index: z.string().min(1).describe('Folder of the index searched'),
  embedder: ComponentSpecSchema.optional().describe('Registry spec of the query embedder; default: the one recorded in the index manifest'),
};