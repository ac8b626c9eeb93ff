import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBatchOutput } from '../../src/endpoints/batchClient.js';
import { closeResponseCaches, openResponseCache } from '../../src/generation/responseCache.js';
import type { ChatRequestBody } from '../helpers/openaiServer.js';
import { runCli } from '../helpers/runCli.js';
import { deterministicResponder, endpointExperimentConfig } from '../experiment/endpointFixtures.js';

/** A chat completion as vLLM's OpenAI server returns it. */
const completion = (model: string, content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1764633600,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: [] }, logprobs: null, finish_reason: 'stop', stop_reason: null }],
  usage: { prompt_tokens: 30, total_tokens: 40, completion_tokens: 10, prompt_tokens_details: null },
  prompt_logprobs: null,
});

/**
 * The lines `vllm run-batch` writes (vllm/entrypoints/openai/run_batch.py, BatchRequestOutput.model_dump_json()):
 * an answer; a request that raised (`make_error_request_output(request, error_msg=str(e))`: the error a
 * plain string, `response: {status_code: 400, body: null}`); the server's ErrorResponse in the older flat
 * shape (`{object: "error", message, type, param, code: 400}`) and in the newer nested one
 * (`{error: {message, type, param, code: 400}}`), the response's status its integer code.
 */
const vllm = {
  answer: (customId: string, model: string, content: string) => ({ id: 'vllm-a1', custom_id: customId, response: { status_code: 200, request_id: 'vllm-batch-a1', body: completion(model, content) }, error: null }),
  raised: (customId: string, message: string) => ({ id: 'vllm-e1', custom_id: customId, response: { status_code: 400, request_id: 'vllm-batch-e1', body: null }, error: message }),
  errorResponseFlat: (customId: string, message: string) => ({
    id: 'vllm-e2',
    custom_id: customId,
    response: { status_code: 400, request_id: 'vllm-batch-e2', body: null },
    error: { object: 'error', message, type: 'BadRequestError', param: null, code: 400 },
  }),
  errorResponseNested: (customId: string, message: string) => ({
    id: 'vllm-e3',
    custom_id: customId,
    response: { status_code: 400, request_id: 'vllm-batch-e3', body: null },
    error: { error: { message, type: 'BadRequestError', param: null, code: 400 } },
  }),
};

describe('hisrag batch import: every error shape the producers write', () => {
  afterAll(() => closeResponseCaches());

  it("reads OpenAI's, DashScope's and vLLM's failed lines into one code and message", () => {
    const text = [
      vllm.raised('a', 'Request must not be sent in stream mode'),
      vllm.errorResponseFlat('b', "This model's maximum context length is 4096 tokens."),
      vllm.errorResponseNested('c', 'The model `x` does not exist.'),
      { id: 'batch_req_1', custom_id: 'd', response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } },
      { id: 'dashscope-1', custom_id: 'e', response: { status_code: 400, request_id: 'r', body: { error: { code: 'InvalidParameter', message: 'Range of input length should be [1, 30720]' } } }, error: { code: 'InvalidParameter', message: 'Range of input length should be [1, 30720]' } },
      { id: 'odd-1', custom_id: 'f', response: { status_code: 500, body: null }, error: [1, 2] },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const { lines, unreadable } = parseBatchOutput(text);
    expect(unreadable).toEqual([]);
    expect(lines.map((l) => [l.custom_id, l.lineNumber, l.error])).toEqual([
      ['a', 1, { message: 'Request must not be sent in stream mode' }],
      ['b', 2, { code: '400', message: "This model's maximum context length is 4096 tokens." }],
      ['c', 3, { code: '400', message: 'The model `x` does not exist.' }],
      ['d', 4, { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }],
      ['e', 5, { code: 'InvalidParameter', message: 'Range of input length should be [1, 30720]' }],
      ['f', 6, { message: '[1,2]' }],
    ]);
  });

  it('imports every good line of a file with failed and unreadable lines, names each of those by line, and exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-vllm-shapes-'));
    const file = join(dir, 'out.jsonl');
    const lines = [
      JSON.stringify(vllm.answer('good-1', 'qwen', '科举始于隋朝。')),
      JSON.stringify(vllm.raised('raised', 'Request must not be sent in stream mode')),
      JSON.stringify(vllm.errorResponseFlat('flat', "This model's maximum context length is 4096 tokens.")),
      JSON.stringify(vllm.answer('good-2', 'qwen', '唐太宗。')),
      JSON.stringify(vllm.errorResponseNested('nested', 'The model `x` does not exist.')),
      '{"id": "vllm-cut", "custom_id": "cut", "respo',
      JSON.stringify({ id: 'vllm-x', response: null, error: 'no custom_id' }),
      JSON.stringify(vllm.answer('good-3', 'qwen', '王安石。')),
    ];
    writeFileSync(file, lines.join('\n') + '\n');
    const cachePath = join(dir, 'cache.sqlite');
    const result = await runCli(['batch', 'import', file, '--cache', cachePath]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`${file}: 3 answers imported into ${cachePath}`);
    expect(result.stdout).toContain('3 lines failed and were not imported (the next export asks them again):');
    expect(result.stdout).toContain(`${file}:2: raised: Request must not be sent in stream mode`);
    expect(result.stdout).toContain(`${file}:3: flat: 400: This model's maximum context length is 4096 tokens.`);
    expect(result.stdout).toContain(`${file}:5: nested: 400: The model \`x\` does not exist.`);
    expect(result.stderr).toContain('2 lines could not be read and were not imported');
    expect(result.stderr).toMatch(new RegExp(`out\\.jsonl:6: not valid JSON`));
    expect(result.stderr).toMatch(new RegExp(`out\\.jsonl:7: .*custom_id`));
    const cache = openResponseCache(cachePath);
    expect(cache.get('good-1')?.text).toBe('科举始于隋朝。');
    expect(cache.get('good-3')?.text).toBe('王安石。');
    for (const key of ['raised', 'flat', 'nested', 'cut']) expect(cache.has(key), key).toBe(false);
  }, 60_000);

  it('a vllm run-batch output with failed lines in each of its shapes: the good answers imported (exit 0), the next export asks exactly the failed ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hisrag-vllm-export-'));
    const cachePath = join(dir, 'cache.sqlite');
    // No server answers here: the requests go out as files and come back as vllm run-batch output.
    const config = endpointExperimentConfig(dir, 'http://127.0.0.1:9/v1', { cache: cachePath, retries: 0 }, { strategies: ['closed-book'] });
    const exported = await runCli(['batch', 'export', config, '--out', join(dir, 'round-1'), '--no-progress']);
    expect(exported.code, exported.stderr).toBe(0);
    const [requestsFile] = readdirSync(join(dir, 'round-1')).filter((f) => f.endsWith('.jsonl'));
    const requests = readFileSync(join(dir, 'round-1', requestsFile!), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; body: ChatRequestBody });
    expect(requests.length).toBe(8);
    const shapes = [vllm.raised, vllm.errorResponseFlat, vllm.errorResponseNested];
    const failing = new Map(requests.slice(0, 3).map((r, i) => [r.custom_id, shapes[i]!]));
    const output = join(dir, 'round-1', 'out.jsonl');
    writeFileSync(
      output,
      requests
        .map((r) => JSON.stringify(failing.get(r.custom_id)?.(r.custom_id, 'CUDA out of memory') ?? vllm.answer(r.custom_id, r.body.model, deterministicResponder(r.body))))
        .join('\n') + '\n',
    );
    const imported = await runCli(['batch', 'import', output, '--cache', cachePath]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('5 answers imported');
    expect(imported.stdout).toContain('3 lines failed and were not imported');

    // The next export: the judge's calls for the five answers, and the three failed answers again.
    const again = await runCli(['batch', 'export', config, '--out', join(dir, 'round-2'), '--no-progress']);
    expect(again.code, again.stderr).toBe(0);
    const asked = readdirSync(join(dir, 'round-2'))
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(dir, 'round-2', f), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { custom_id: string; body: ChatRequestBody }).body.model + ' ' + (JSON.parse(l) as { custom_id: string }).custom_id));
    expect(asked.filter((a) => a.startsWith('stand-in-llm ')).map((a) => a.split(' ')[1]).sort()).toEqual([...failing.keys()].sort());
    expect(asked.filter((a) => a.startsWith('stand-in-judge '))).toHaveLength(5);
  }, 180_000);
});
