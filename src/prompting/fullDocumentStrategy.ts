import type { BenchmarkItem } from '../benchmarks/types.js';
import { ocrFileFor } from '../benchmarks/longhisdoc/loader.js';
import { readOcrPages, type OcrPage } from '../corpus/longhisdoc/ocrFile.js';
import { InputError } from '../errors.js';
import { answerInstructions, type AnswerInstructions } from './answerInstructions.js';
import { formatContextBlock, type ContextEntry } from './contextBlock.js';
import { fitContextBudget } from './contextBudget.js';
import { fillTemplate } from './fillTemplate.js';
import { messagesOf } from './templateStrategy.js';
import type { PromptTemplate } from './templates/promptTemplate.js';
import type { TokenCounter } from './tokenCounter.js';
import type { BuiltPrompt, PromptInput, PromptStrategy } from './types.js';

export interface FullDocumentOptions {
  name: string;
  template: PromptTemplate;
  instructions?: AnswerInstructions;
  /** `OCR_res/`; without it each item's `meta.ocrFile` (set by the longhisdoc loader's `ocrDir`) is used. */
  ocrDir?: string;
  /** `input`: the item's `input_pages` (the benchmark's setting); `all`: every page of the book. */
  pages: 'input' | 'all';
  budget: number | null;
  counter: TokenCounter;
}

interface PageEntry extends ContextEntry {
  page: number;
}

/**
 * LongHisDoc's text-input setting: the document's OCR pages, in page order, as the context,
 * cut to the budget (later pages dropped first). OCR files are read by `prepare`, since
 * `build` is synchronous.
 */
export class FullDocumentStrategy implements PromptStrategy {
  readonly name: string;
  readonly usesRetrieval = false;
  private readonly pagesByFile = new Map<string, OcrPage[]>();

  constructor(private readonly options: FullDocumentOptions) {
    this.name = options.name;
  }

  private fileFor(item: BenchmarkItem): string {
    if (this.options.ocrDir && item.docId) return ocrFileFor(this.options.ocrDir, item.docId);
    if (typeof item.meta.ocrFile === 'string') return item.meta.ocrFile;
    throw new InputError(
      `strategy "${this.name}": item ${item.id} has no OCR file; give the strategy \`ocrDir\` or the longhisdoc benchmark \`ocrDir\``,
    );
  }

  async prepare(items: BenchmarkItem[]): Promise<void> {
    const files = new Set(items.filter((item) => item.kind === 'longhisdoc').map((item) => this.fileFor(item)));
    for (const file of files) if (!this.pagesByFile.has(file)) this.pagesByFile.set(file, await readOcrPages(file));
  }

  build({ item }: PromptInput): BuiltPrompt {
    const file = this.fileFor(item);
    const ocr = this.pagesByFile.get(file);
    if (!ocr) throw new Error(`strategy "${this.name}": OCR file ${file} was not loaded; await strategy.prepare(items) before build`);
    const wanted = this.options.pages === 'input' && item.inputPages?.length ? new Set(item.inputPages) : undefined;
    const title = typeof item.meta.book_name === 'string' ? item.meta.book_name : (item.docId ?? '');
    const entries: PageEntry[] = ocr
      .filter((p) => !p.missing && p.text.trim() && (!wanted || wanted.has(p.page)))
      .map((p) => ({ title, page: p.page, pages: [p.page], text: p.text }));
    const fitted = fitContextBudget(entries, (e) => e, (e, text) => ({ ...e, text }), this.options.budget, this.options.counter);
    const block = formatContextBlock(fitted.kept);
    const instructions = answerInstructions(item, this.options.instructions);
    const user = fillTemplate(this.options.template.user, { question: item.question, context: block, instructions });
    return {
      messages: messagesOf(this.options.template.system, user),
      contextIds: fitted.kept.map((e) => `${item.docId}-p${e.page}`),
      truncated: fitted.dropped,
      contextTokens: fitted.tokens,
      ...(fitted.clipped ? { clipped: true } : {}),
    };
  }
}
