import { describe, expect, it } from 'vitest';
import { splitReasoning } from '../../src/generation/reasoning.js';

describe('splitReasoning', () => {
  it('keeps only what follows the last </think> as the answer', () => {
    expect(splitReasoning('<think>a</think>中间</think> 答案')).toEqual({ text: '答案', reasoning: 'a</think>中间' });
  });

  it('moves reasoning_content into reasoning', () => {
    expect(splitReasoning('答案', '思考')).toEqual({ text: '答案', reasoning: '思考' });
  });

  it('leaves no answer when a <think> block never closes', () => {
    expect(splitReasoning('<think>想到一半')).toEqual({ text: '', reasoning: '想到一半' });
  });

  it('returns plain answers unchanged, without a reasoning field', () => {
    expect(splitReasoning('  答案  ')).toEqual({ text: '答案' });
  });
});
