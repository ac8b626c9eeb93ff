import type { Command } from 'commander';

export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description("The experiment file's schema as JSON Schema (for editors), or its parameter reference as markdown")
    .option('--out <file>', 'write it to this file (default: standard output)')
    .option('--markdown', 'the parameter reference (every component, parameter, type, default and meaning) instead')
    .option('--update-doc <file>', "rewrite the generated parameter reference between the markers of this markdown file (docs/configuration.md)")
    .addHelpText(
      'after',
      `
Examples:
  hisrag schema --out hisrag.schema.json
      then, first line of an experiment file: # yaml-language-server: $schema=../hisrag.schema.json
  hisrag schema --update-doc docs/configuration.md

Exit codes: 0 done, 2 bad input, 1 internal error.`,
    )
    .action(async (opts: { out?: string; markdown?: boolean; updateDoc?: string }) => {
      const { readFile, writeFile } = await import('node:fs/promises');
      const { parameterReference, withParameterReference } = await import('../../config/reference.js');
      if (opts.updateDoc) {
        const doc = await readFile(opts.updateDoc, 'utf8');
        await writeFile(opts.updateDoc, withParameterReference(doc, opts.updateDoc));
        return;
      }
      const { experimentJsonSchema } = await import('../../config/jsonSchema.js');
      const text = opts.markdown ? parameterReference() : JSON.stringify(experimentJsonSchema(), null, 2) + '\n';
      if (opts.out) await writeFile(opts.out, text);
      else process.stdout.write(text);
    });
}
