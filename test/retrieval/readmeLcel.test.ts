import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ChatRequestBody, type OpenAIServer } from '../helpers/openaiServer.js';
import { REPO_ROOT } from '../helpers/runCli.js';
import { buildTestIndexes, type BuiltIndexes } from './builtIndexes.js';

/** The ```ts blocks of the LangChain page (docs/langchain.md, linked from the README), in order. */
function readmeTsBlocks(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'docs', 'langchain.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

function replaceOnce(text: string, pattern: string | RegExp, replacement: string): string {
  const count = typeof pattern === 'string' ? text.split(pattern).length - 1 : (text.match(new RegExp(pattern.source, pattern.flags + 'g')) ?? []).length;
  expect(count, `README example: expected exactly one ${String(pattern)}`).toBe(1);
  return text.replace(pattern, () => replacement);
}

/** Runs a TypeScript module that imports 'hisrag' (a self-reference: the file lies inside the package). */
function runModule(source: string, dir: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = join(dir, `example-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(file, source);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the documented LCEL example (retriever → prompt → chat model → parser)", () => {
  let root: string;
  let scratch: string;
  let built: BuiltIndexes;
  let server: OpenAIServer;
  let chain: string;
  let storeSwap: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'hisrag-lcel-'));
    built = await buildTestIndexes(root);
    // Inside the repository (git-ignored .cache/) so that `import … from 'hisrag'` resolves to this package.
    mkdirSync(join(REPO_ROOT, '.cache'), { recursive: true });
    scratch = mkdtempSync(join(REPO_ROOT, '.cache', 'readme-lcel-'));
    // The model echoes how many numbered passages reached it and the first one's title.
    server = await startOpenAIServer({
      respond: (request: ChatRequestBody) => {
        const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
        const passages = system.split('\n').filter((line) => /^\[\d+\] /.test(line));
        return `收到${passages.length}条资料，首条：${passages[0]?.split('：')[0] ?? '无'}`;
      },
    });
    const blocks = readmeTsBlocks();
    chain = blocks.find((block) => block.includes('RunnableSequence.from'))!;
    storeSwap = blocks.find((block) => block.includes('HisragHnswVectorStore.open'))!;
    expect(chain).toBeDefined();
    expect(storeSwap).toBeDefined();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await built.embedder.dispose();
    rmSync(root, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The README code pointed at the test index and the local server (nothing else changed). */
  function localised(source: string): string {
    let out = replaceOnce(source, 'https://api.deepseek.com/v1', server.url);
    out = out.replaceAll("'indexes/demo-zhwiki-hnsw'", JSON.stringify(built.hnsw));
    return out;
  }

  async function expectAnswered(source: string): Promise<void> {
    const before = server.chatRequests().length;
    const result = await runModule(localised(source), scratch, { DEEPSEEK_API_KEY: 'sk-test' });
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^收到5条资料，首条：\[1\] \S+$/);
    const requests = server.chatRequests().slice(before);
    expect(requests).toHaveLength(1);
    const body = requests[0]!.body as ChatRequestBody;
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: '殿试由谁主持？' });
    expect(requests[0]!.headers.authorization).toBe('Bearer sk-test');
  }

  it('runs with a hisrag retriever', async () => {
    await expectAnswered(chain);
  }, 60_000);

  it('runs with the hisrag HNSW vector store in its place', async () => {
    const [importLine, storeLine, retrieverLine, closeLine] = storeSwap.trim().split('\n');
    let source = replaceOnce(chain, "import { createRetriever } from 'hisrag';", importLine!);
    source = replaceOnce(source, /^const retriever = .*$/m, `${storeLine}\n${retrieverLine}`);
    source = replaceOnce(source, 'await retriever.close();', closeLine!);
    await expectAnswered(source);
  }, 60_000);
});
