import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../helpers/runCli.js';
import { multiIndexDemoConfigIn } from '../helpers/demoConfig.js';

export const QA_FILE = join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/qa.json');
export const OCR_DIR = join(REPO_ROOT, 'corpora/sources/demo-longhisdoc/OCR_res');

interface QaRecord {
  item_id: string;
  doc_id: string;
  answer: string | string[];
  evidence_pages: string;
}

/** The sample's questions by item id. */
export function sampleRecords(): Map<string, QaRecord> {
  const qa = JSON.parse(readFileSync(QA_FILE, 'utf8')) as Record<string, QaRecord[]>;
  return new Map(Object.values(qa).flat().map((r) => [r.item_id, r]));
}

const unit = (...parts: (string | number)[]) => createHash('sha256').update(parts.join('\u0000')).digest().readUInt32BE(0) / 2 ** 32;

export type ServiceFault = '429' | '500' | 'timeout' | 'malformed' | 'no-answer';

export interface RagServiceStub {
  url: string;
  /** Requests to /ask in arrival order, with the fault each got. */
  requests: { body: Record<string, unknown>; fault?: ServiceFault; headers: IncomingMessage['headers'] }[];
  /** Most requests in flight at once. */
  maxInFlight: number;
  close(): Promise<void>;
}

/**
 * A RAG service stand-in on 127.0.0.1 (FastAPI-style `{ data: { answer, sources } }` replies):
 * its reply depends only on the question's id — the gold answer and evidence pages for about half
 * of them, a wrong answer and page 1 for the rest — so two runs must score alike. Faults are drawn
 * per (seed, body, how often it was seen), never by timing: 429 with Retry-After, 500, no reply
 * at all, a truncated body, a reply without its answer field.
 */
export async function startRagServiceStub(options: { faults?: { rate: number; kinds: ServiceFault[]; seed: number }; port?: number; delayMs?: number } = {}): Promise<RagServiceStub> {
  const records = sampleRecords();
  const requests: RagServiceStub['requests'] = [];
  const seen = new Map<string, number>();
  let inFlight = 0;
  const stub = { maxInFlight: 0 };

  const send = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    const body = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      const occurrence = (seen.get(raw) ?? 0) + 1;
      seen.set(raw, occurrence);
      const faults = options.faults;
      const fault = faults && unit(faults.seed, raw, occurrence, 'rate') < faults.rate ? faults.kinds[Math.floor(unit(faults.seed, raw, occurrence, 'kind') * faults.kinds.length)] : undefined;
      requests.push({ body, headers: req.headers, ...(fault ? { fault } : {}) });
      inFlight++;
      stub.maxInFlight = Math.max(stub.maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (fault === '429') return send(res, 429, { detail: 'Too Many Requests' }, { 'retry-after': '0.05' });
      if (fault === '500') return send(res, 500, { detail: 'Internal Server Error' });
      if (fault === 'timeout') return; // never answers: the client's timeout must fire
      if (fault === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"data": {"answer": "殘');
      }
      const record = records.get(String(body.id));
      if (!record) return send(res, 404, { detail: `unknown question ${String(body.id)}` });
      const knows = unit('knows', record.item_id) < 0.5;
      const gold = Array.isArray(record.answer) ? record.answer[0]! : record.answer;
      const pages = knows ? (JSON.parse(record.evidence_pages) as number[]) : [];
      const sources = (pages.length ? pages : [1]).map((page) => ({ doc_id: record.doc_id, page, content: `第${page}页的文字` }));
      const data = { answer: knows ? gold : '不知道', sources };
      if (fault === 'no-answer') return send(res, 200, { data: { sources } });
      send(res, 200, { data });
    })().catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { detail: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return stub.maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A free port on 127.0.0.1 (left closed). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The `http` strategy entry for the stub at `url`. */
export function httpStrategy(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'http',
    label: 'my-rag',
    url: `${url}/ask`,
    body: { query: '{question}', id: '{itemId}', doc_id: '{docId}' },
    response: { answer: 'data.answer', contexts: 'data.sources', contextText: 'content', contextPage: 'page', contextDocId: 'doc_id' },
    ...extra,
  };
}

/** An experiment over the LongHisDoc-format sample (no retrieval of hisrag's own) with the given strategies. */
export function externalConfig(dir: string, strategies: unknown[], extra: Record<string, unknown> = {}): string {
  const config = {
    name: 'external',
    seed: 7,
    output: join(dir, 'runs'),
    benchmark: { name: 'longhisdoc', file: QA_FILE, ocrDir: OCR_DIR },
    strategies: ['closed-book', ...strategies],
    models: [{ name: 'extractive', label: 'extractive-baseline', minOverlap: 1 }],
    extractor: { name: 'rules' },
    scoring: { bootstrapResamples: 200 },
    execution: { concurrency: 4 },
    ...extra,
  };
  const file = join(dir, 'external.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

/** experiments/demo-external.yaml with its artefacts, runs and the service's port inside `dir`. */
export function demoExternalIn(dir: string, port: number, edit: (config: any) => void = () => {}): string {
  const { config, indexes } = multiIndexDemoConfigIn(dir, 'demo-external.yaml');
  for (const strategy of config.strategies) {
    if (strategy.name === 'http') {
      strategy.url = strategy.url.replace(/:\d+\//, `:${port}/`);
      strategy.serve.options.index = indexes[strategy.serve.options.index];
    }
    if (strategy.name === 'langchain-runnable') strategy.options.index = indexes[strategy.options.index];
  }
  edit(config);
  const file = join(dir, 'demo-external.yaml');
  writeFileSync(file, stringify(config));
  return file;
}
