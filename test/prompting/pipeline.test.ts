import { messageText } from '../../src/prompting/messageContent.js';
import { afterEach, describe, expect, it } from 'vitest';
import { benchmarks } from '../../src/benchmarks/registry.js';
import { generators } from '../../src/generation/registry.js';
import { strategies } from '../../src/prompting/registry.js';
import { parseContextBlock } from '../../src/prompting/contextBlock.js';
import { startOpenAIServer, type OpenAIServer } from '../helpers/openaiServer.js';

// The bundled LongHisDoc-format demo data (QA file + OCR folder) through loader → strategy → generator.
const QA = 'corpora/sources/demo-longhisdoc/qa.json';
const OCR = 'corpora/sources/demo-longhisdoc/OCR_res';

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('benchmark → prompt → generator', () => {
  it('sends each LongHisDoc question with its own book’s OCR pages and records the answer', async () => {
    const items = await (await benchmarks.create({ name: 'longhisdoc', file: QA, ocrDir: OCR, limit: 3 }, undefined)).load();
    const strategy = await strategies.create({ name: 'longhisdoc-full' }, undefined);
    await strategy.prepare!(items);
    server = await startOpenAIServer({ respond: (request) => `收到${parseContextBlock(request.messages.at(-1)!.content ?? '').length}页` });
    const generator = await generators.create({ name: 'openai', baseURL: server.url, model: 'test-model' }, undefined);
    for (const item of items) {
      const prompt = strategy.build({ item, context: null });
      expect(prompt.contextIds.every((id) => id.startsWith(`${item.docId}-p`))).toBe(true);
      const result = await generator.generate(prompt.messages);
      expect(result.text).toBe(`收到${prompt.contextIds.length}页`);
    }
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('lets the offline extractive generator answer RAG prompts from the book’s pages', async () => {
    const items = await (await benchmarks.create({ name: 'longhisdoc', file: QA, ocrDir: OCR }, undefined)).load();
    const full = await strategies.create({ name: 'longhisdoc-full' }, undefined);
    await full.prepare!(items);
    const rag = await strategies.create({ name: 'rag' }, undefined);
    const generator = await generators.create({ name: 'extractive' }, undefined);
    const answers: { text: string; pages: string[] }[] = [];
    for (const item of items) {
      const pages = parseContextBlock(messageText(full.build({ item, context: null }).messages.at(-1)!)).map((p) => p.text);
      const chunks = pages.map((text, i) => ({ id: `p${i}`, docId: item.docId!, title: '书', text, meta: {}, score: 1, rank: i + 1 }));
      answers.push({ text: (await generator.generate(rag.build({ item, context: chunks }).messages)).text, pages });
    }
    const answered = answers.filter((a) => a.text !== '无法回答');
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((a) => a.pages.some((page) => page.includes(a.text.slice(0, 8))))).toBe(true);
  });
});
