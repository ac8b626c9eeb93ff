import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYaml, validateExperimentConfig } from '../../src/config/load.js';
import { parameterReference, REFERENCE_BEGIN, REFERENCE_END, withParameterReference } from '../../src/config/reference.js';
import { formatPath } from '../../src/errors.js';
import { REPO_ROOT, runCli } from '../helpers/runCli.js';

const dir = join(REPO_ROOT, 'experiments');
const bundled = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const raw = (file: string) => parseYaml(readFileSync(join(dir, file), 'utf8'), file) as any;

/**
 * The JSON Schema checked by a validator that only reads JSON Schema: zod's `fromJSONSchema` builds
 * its validator from the JSON text alone (no ajv in this repository), so whatever the file says is
 * what is checked.
 */
function jsonSchemaValidator(schema: unknown) {
  const validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  return (value: unknown): string[] => {
    const result = validator.safeParse(value);
    return result.success ? [] : result.error.issues.flatMap((issue) => pathsOf(issue, []));
  };
}

/** `path: problem` of each issue; in a `oneOf` of components, the branch whose `name` matched. */
function pathsOf(issue: z.core.$ZodIssue, prefix: PropertyKey[]): string[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length) {
    const named = issue.errors.filter((branch) => !branch.some((i) => i.path.length === 1 && i.path[0] === 'name'));
    if (named.length === 1) return named[0]!.flatMap((inner) => pathsOf(inner, path));
  }
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${formatPath([...path, key])}: unknown key`);
  return [`${formatPath(path)}: ${issue.code}`];
}

describe('hisrag schema', () => {
  let schema: unknown;

  it('writes the JSON Schema of the experiment file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'hisrag-schema-')), 'schema.json');
    const result = await runCli(['schema', '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    schema = JSON.parse(readFileSync(out, 'utf8'));
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false });
  }, 60_000);

  it('accepts every bundled config', () => {
    const check = jsonSchemaValidator(schema);
    for (const file of bundled) expect(check(raw(file)), file).toEqual([]);
  });

  it('rejects a misspelled key with the path the CLI prints', () => {
    const check = jsonSchemaValidator(schema);
    const cases: [(c: any) => void, string][] = [
      [(c) => (c.retrieval.retriever.efSerch = 64), 'retrieval.retriever.efSerch: unknown key'],
      [(c) => (c.models[0].temprature = 0), 'models[0].temprature: unknown key'],
      [(c) => (c.scoring = { ...c.scoring, bootstrapResample: 10 }), 'scoring.bootstrapResample: unknown key'],
      [(c) => (c.retreival = c.retrieval), 'retreival: unknown key'],
      [(c) => { c.strategy = c.strategies; delete c.strategies; }, 'strategy: unknown key'],
    ];
    for (const [edit, line] of cases) {
      const config = raw('demo.yaml');
      edit(config);
      expect(check(config)).toContain(line);
      expect(() => validateExperimentConfig(config, 'demo.yaml')).toThrow(line);
    }
  });

  it('says `strategy:` for `strategies:` at the path the schema names, with a "did you mean" (hisrag run, exit 2)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'hisrag-strategy-'));
    const config = raw('demo.yaml');
    config.strategy = config.strategies;
    delete config.strategies;
    const file = join(out, 'strategy.yaml');
    writeFileSync(file, JSON.stringify(config));
    const result = await runCli(['run', file, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('strategy: unknown key; did you mean "strategies"?');
    expect(jsonSchemaValidator(schema)(config)).toContain('strategy: unknown key');
  }, 60_000);

  it('accepts the list form of the singular shorthands as well (the one form every reader sees)', () => {
    const check = jsonSchemaValidator(schema);
    const config = raw('demo.yaml');
    config.benchmarks = [config.benchmark];
    delete config.benchmark;
    config.retrieval.retrievers = [config.retrieval.retriever];
    delete config.retrieval.retriever;
    expect(check(config)).toEqual([]);
    expect(validateExperimentConfig(config, 'demo.yaml')).toEqual(validateExperimentConfig(raw('demo.yaml'), 'demo.yaml'));
  });

  it('lists each component with its own parameters (a discriminated union per stage)', () => {
    const check = jsonSchemaValidator(schema);
    const config = raw('demo.yaml');
    config.retrieval.retriever = { name: 'bm25', index: 'indexes/demo-bm25', efSearch: 64 }; // an hnsw parameter on bm25
    expect(check(config)).toContain('retrieval.retriever.efSearch: unknown key');
  });
});

describe('docs/configuration.md', () => {
  it('carries the parameter reference generated from the schema (run `hisrag schema --update-doc docs/configuration.md`)', () => {
    const file = join(REPO_ROOT, 'docs', 'configuration.md');
    const doc = readFileSync(file, 'utf8');
    expect(doc).toContain(REFERENCE_BEGIN);
    expect(doc).toContain(REFERENCE_END);
    expect(withParameterReference(doc, file)).toBe(doc);
  });

  it('names every registered component and each of its parameters', () => {
    const reference = parameterReference();
    for (const name of ['hnsw', 'bm25', 'openai', 'rag', 'ircot', 'cross-encoder', 'wikipedia-dump', 'transformers']) expect(reference).toContain(`#### \`${name}\``);
    expect(reference).toMatch(/\| `efSearch` \| `integer` \|/);
  });

  it('gives every parameter a one-line meaning (a `.describe()` on its schema)', () => {
    let section = '';
    const bare: string[] = [];
    for (const line of parameterReference().split('\n')) {
      if (line.startsWith('###')) section = line.replace(/^#+ /, '');
      else if (/^\| `[^`]+` \|.*\| {2}\|$/.test(line)) bare.push(`${section}: ${line.split('|')[1]!.trim()}`);
    }
    expect(bare).toEqual([]);
  });
});
