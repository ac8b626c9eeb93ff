import { ragTemplate } from '../../prompting/templates/rag.js';
import type { MethodPrompt } from '../prompts.js';

/** The answer step every method ends with when it answers from passages: the `rag` template. */
export const answerPrompt: MethodPrompt = { system: ragTemplate.system, user: ragTemplate.user, slots: ['question', 'context', 'instructions'] };
