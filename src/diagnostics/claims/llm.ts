import { assertLiveGenerator } from '../../generation/batchQueue.js';
import { ServiceUnavailableError } from '../../errors.js';
import { OpenAIGenerator } from '../../generation/openai.js';
import { generators } from '../../generation/registry.js';
import { stableStringify } from '../../generation/responseCache.js';
import type { GenerationResult, Generator } from '../../generation/types.js';
import { estimateTokens } from '../../text/tokenCounter.js';
import type { ChatMessage } from '../../prompting/types.js';
import type { ComponentSchema, RegistryEntry } from '../../registry.js';
import type { ClaimLabel } from '../../runFiles/diagnosis.js';
import { parseClaimList, parseLabels } from './parseClaims.js';
import { checkingMessages, extractionMessages, PROMPT_VERSION } from './prompts.js';
import type { CallUsage, ClaimCallOptions, ClaimChecker, ClaimExtractor } from './types.js';
import { createHash } from 'node:crypto';
import { DEFAULT_CLAIMS_PER_CALL, llmCheckerSchema, llmExtractorSchema, openaiCheckerSchema, openaiExtractorSchema, type LlmClaimParams, type OpenAIClaimParams } from './schemas.js';

// A failed call or an unreadable reply is retried with a fresh call (a cached unusable reply would come
// back unchanged), then reported as `ok: false`; an endpoint that is down throws ServiceUnavailableError.

export { DEFAULT_CLAIMS_PER_CALL };

// describe() keys that govern how requests are sent, not what the model answers: left out of the
// fingerprint so tuning concurrency or moving the response cache keeps the diagnostics cache valid.
const TRANSPORT_KEYS = new Set(['concurrency', 'timeoutMs', 'retries', 'retryBaseMs', 'retryMaxMs', 'unavailableAfterMs', 'retryAfterMaxMs', 'cache', 'headers', 'apiKeyEnv']);

function fingerprintOf(kind: string, generator: Generator): string {
  const described = Object.fromEntries(Object.entries(generator.describe()).filter(([key]) => !TRANSPORT_KEYS.has(key)));
  const material = stableStringify({ kind, name: generator.name, model: generator.model, promptVersion: PROMPT_VERSION, generator: described });
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

function noUsage(): CallUsage {
  return { calls: 0, promptTokens: 0, completionTokens: 0, estimated: false };
}

/** Adds one answered call; the estimate stands in for whichever count the endpoint did not report. */
function addUsage(usage: CallUsage, messages: ChatMessage[], result: GenerationResult): void {
  const prompt = result.usage?.promptTokens;
  const completion = result.usage?.completionTokens;
  usage.calls++;
  usage.promptTokens += prompt ?? estimateTokens(messages.map((m) => m.content).join('\n'));
  usage.completionTokens += completion ?? estimateTokens(result.raw);
  if (prompt === undefined || completion === undefined) usage.estimated = true;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The retry loop both share: `calls` counts answered requests (failed ones cost no tokens). */
async function askWithRetries<T>(
  generator: Generator,
  messages: ChatMessage[],
  parse: (text: string) => Parsed<T>,
  retries: number,
  options: ClaimCallOptions,
): Promise<({ ok: true; value: T } | { ok: false; error: string }) & { usage: CallUsage }> {
  const usage = noUsage();
  let error = 'no attempt made';
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    let result: GenerationResult;
    try {
      result = await generator.generate(messages, { ...(options.signal ? { signal: options.signal } : {}), ...(attempt > 1 ? { cache: 'refresh' as const } : {}) });
    } catch (caught) {
      // An endpoint that is down stops the run (resumable); an interrupted run stops at once.
      if (caught instanceof ServiceUnavailableError || options.signal?.aborted) throw caught;
      error = `call failed: ${(caught as Error)?.message ?? String(caught)}`;
      continue;
    }
    addUsage(usage, messages, result);
    if (result.emptyAfterAttempts) {
      error = `empty completion on all ${result.emptyAfterAttempts} attempts`;
      continue;
    }
    // The raw output: parsers drop reasoning themselves, and an unclosed `<think>` must read as a failure.
    const parsed = parse(result.raw);
    if (parsed.ok) return { ok: true, value: parsed.value, usage };
    error = parsed.error;
  }
  return { ok: false, error: `${error} (after ${retries + 1} attempts)`, usage };
}

export function createLlmClaimExtractor(generator: Generator, options: { retries?: number } = {}): ClaimExtractor {
  const retries = options.retries ?? 2;
  return {
    name: 'llm',
    standIn: false,
    fingerprint: fingerprintOf('claim-extractor', generator),
    describe: () => ({ name: 'llm', promptVersion: PROMPT_VERSION, retries, generator: generator.describe() }),
    estimate: (input) =>
      input.text.trim() ? { promptTokens: estimateTokens(extractionMessages(input).map((m) => m.content).join('\n')), completionTokens: estimateTokens(input.text) } : { promptTokens: 0, completionTokens: 0 },
    async extract(input, callOptions = {}) {
      // Nothing to extract from: no claims, and no call to pay for.
      if (!input.text.trim()) return { ok: true, claims: [], usage: noUsage() };
      const parse = (text: string): Parsed<string[]> => {
        const parsed = parseClaimList(text);
        return parsed.ok ? { ok: true, value: parsed.claims } : parsed;
      };
      const outcome = await askWithRetries(generator, extractionMessages(input), parse, retries, callOptions);
      return outcome.ok ? { ok: true, claims: outcome.value, usage: outcome.usage } : outcome;
    },
  };
}

export function createLlmClaimChecker(generator: Generator, options: { retries?: number; claimsPerCall?: number } = {}): ClaimChecker {
  const retries = options.retries ?? 2;
  const claimsPerCall = options.claimsPerCall ?? DEFAULT_CLAIMS_PER_CALL;
  if (!Number.isInteger(claimsPerCall) || claimsPerCall < 1) throw new Error(`claimsPerCall must be a positive integer, got ${claimsPerCall}`);
  return {
    name: 'llm',
    standIn: false,
    // claimsPerCall is left out: the caller batches, and a batch's labels depend on its claims alone.
    fingerprint: fingerprintOf('claim-checker', generator),
    claimsPerCall,
    describe: () => ({ name: 'llm', promptVersion: PROMPT_VERSION, retries, claimsPerCall, generator: generator.describe() }),
    // A label line (`1: 蕴含`) is about four tokens.
    estimate: (input) =>
      input.claims.length ? { promptTokens: estimateTokens(checkingMessages(input).map((m) => m.content).join('\n')), completionTokens: 4 * input.claims.length } : { promptTokens: 0, completionTokens: 0 },
    async check(input, callOptions = {}) {
      const n = input.claims.length;
      // The caller splits claims into batches; more here is a bug there, not a model failure.
      if (n > claimsPerCall) throw new Error(`check() got ${n} claims, more than claimsPerCall (${claimsPerCall})`);
      if (n === 0) return { ok: true, labels: [], usage: noUsage() };
      const parse = (text: string): Parsed<ClaimLabel[]> => {
        const parsed = parseLabels(text, n);
        return parsed.ok ? { ok: true, value: parsed.labels } : parsed;
      };
      const outcome = await askWithRetries(generator, checkingMessages(input), parse, retries, callOptions);
      return outcome.ok ? { ok: true, labels: outcome.value, usage: outcome.usage } : outcome;
    },
  };
}

function openaiGeneratorFrom(params: OpenAIClaimParams): OpenAIGenerator {
  const { httpRetries, retries: _replyRetries, claimsPerCall: _claimsPerCall, ...generatorParams } = params;
  return new OpenAIGenerator({ ...generatorParams, retries: httpRetries });
}

/** A claim role's two registry entries: 'llm' on a registered generator, 'openai' on an endpoint given inline. */
function claimEntries<Llm extends LlmClaimParams, OpenAI extends OpenAIClaimParams, Product>(
  role: 'extractor' | 'checker',
  schemas: { llm: ComponentSchema<Llm>; openai: ComponentSchema<OpenAI> },
  build: (generator: Generator, params: Llm | OpenAI) => Product,
): { llm: RegistryEntry<Llm, Product, void>; openai: RegistryEntry<OpenAI, Product, void> } {
  const at = `diagnostics.${role}.generator`;
  return {
    llm: {
      ...schemas.llm,
      async create(spec) {
        assertLiveGenerator(spec.generator, at, `the diagnostics claim ${role}`);
        return build(await generators.create(spec.generator, undefined, at), spec);
      },
    },
    openai: { ...schemas.openai, create: (spec) => build(openaiGeneratorFrom(spec), spec) },
  };
}

export const { llm: llmClaimExtractor, openai: openaiClaimExtractor } = claimEntries(
  'extractor',
  { llm: llmExtractorSchema, openai: openaiExtractorSchema },
  (generator, params): ClaimExtractor => createLlmClaimExtractor(generator, { retries: params.retries }),
);

export const { llm: llmClaimChecker, openai: openaiClaimChecker } = claimEntries(
  'checker',
  { llm: llmCheckerSchema, openai: openaiCheckerSchema },
  (generator, params): ClaimChecker => createLlmClaimChecker(generator, { retries: params.retries, claimsPerCall: params.claimsPerCall }),
);
