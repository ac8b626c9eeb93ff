import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workerScript } from '../../../src/corpus/wikipedia/workerScript.js';

const NATIVE = ['@huggingface/transformers', 'onnxruntime-node', 'better-sqlite3', 'hnswlib-node', 'usearch', '@lancedb/lancedb', '@node-rs/jieba'];

describe('the corpus chunk worker script', () => {
  it('loads no native addon on start: its bundle imports none of them statically (one per thread corrupts the heap)', async () => {
    const entry = new URL('../../../src/corpus/wikipedia/chunkWorker.ts', import.meta.url);
    const script = await workerScript(entry, new URL('../../../src/corpus/wikipedia/chunkWorker.boot.mjs', import.meta.url));
    expect(script.pathname.endsWith('.mjs')).toBe(true);
    const code = readFileSync(fileURLToPath(script), 'utf8');
    const staticImports = [...code.matchAll(/^import\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]!);
    expect(staticImports.length).toBeGreaterThan(0);
    for (const name of NATIVE) expect(staticImports, name).not.toContain(name);
  });
});
