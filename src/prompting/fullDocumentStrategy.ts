import type { BenchmarkItem } from '../benchmarks/types.js';
import { ocrFileFor } from '../benchmarks/longhisdoc/loader.js';
import { readOcrPages, type OcrPage } from '../corpus/longhisdoc/ocrFile.js';
import { InputError } from '../errors.js';
import { answerInstructions, type AnswerInstructions } from './answerInstructions.js';
import { formatContextBlock, type ContextEntry } from './contextBlock.js';
import { builtPrompt, fitContextBudget } from './contextBudget.js';
import { fillTemplate } from './fillTemplate.js';
import { messagesOf } from './templateStrategy.js';
import type { PromptTemplate } from './templates/promptTemplate.js';
import type { TokenCounter } from '../text/tokenCounter.js';
import { fillTemplateWithParts, fitImageEntries, imageContextParts, type PageInput } from './imageContext.js';
import { PageImageLookup } from './pageImageLookup.js';
import type { BuiltPrompt, PageImageRef, PromptInput, PromptStrategy } from './types.js';

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
  /** What each page shows: its OCR text (default), its image, or the image followed by its text. */
  input?: PageInput;
  /** Image folder (`LongHisDoc_IMG/`); without it each item's `meta.imageDir` (the longhisdoc loader's `imageDir`). */
  imageDir?: string;
  /** Most images one prompt may hold (the model's limit); later pages are cut first. Null: no limit. */
  maxImages?: number | null;
}

interface PageEntry extends ContextEntry {
  page: number;
  images: PageImageRef[];
}

/**
 * LongHisDoc's settings: the document's pages, in page order, as the context, cut to the budget (later
 * pages first). OCR files are read by `prepare`, since `build` is synchronous.
 */
export class FullDocumentStrategy implements PromptStrategy {
  readonly name: string;
  readonly usesRetrieval = false;
  private readonly pagesByFile = new Map<string, OcrPage[]>();
  private readonly images?: PageImageLookup;

  constructor(private readonly options: FullDocumentOptions) {
    this.name = options.name;
    if ((options.input ?? 'text') !== 'text') this.images = new PageImageLookup(options.name, options.imageDir);
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
    await this.images?.prepare(items);
  }

  build({ item }: PromptInput): BuiltPrompt {
    const file = this.fileFor(item);
    const ocr = this.pagesByFile.get(file);
    if (!ocr) throw new Error(`strategy "${this.name}": OCR file ${file} was not loaded; await strategy.prepare(items) before build`);
    const wanted = this.options.pages === 'input' && item.inputPages?.length ? new Set(item.inputPages) : undefined;
    const title = typeof item.meta.book_name === 'string' ? item.meta.book_name : (item.docId ?? '');
    const input = this.options.input ?? 'text';
    const instructions = answerInstructions(item, this.options.instructions);
    if (input === 'text') {
      const entries: PageEntry[] = ocr
        .filter((p) => !p.missing && p.text.trim() && (!wanted || wanted.has(p.page)))
        .map((p) => ({ title, page: p.page, pages: [p.page], text: p.text, images: [] }));
      const fitted = fitContextBudget(entries, (e) => e, (e, text) => ({ ...e, text }), this.options.budget, this.options.counter);
      const user = fillTemplate(this.options.template.user, { question: item.question, context: formatContextBlock(fitted.kept), instructions });
      return builtPrompt(messagesOf(this.options.template.system, user), fitted.kept.map((e) => `${item.docId}-p${e.page}`), fitted);
    }
    // Image input: every wanted page that has a scan, blank OCR or not (the image may hold what the OCR lost).
    const shown: PageEntry[] = ocr
      .filter((p) => !wanted || wanted.has(p.page))
      .flatMap((p) => {
        const image = this.images!.image(item, item.docId!, p.page);
        return image ? [{ title, page: p.page, pages: [p.page], text: p.text, images: [image] }] : [];
      });
    const showText = input === 'image+text';
    const { maxImages = null, budget, counter } = this.options;
    const fitted = fitImageEntries(shown, (e) => e, (e, text) => ({ ...e, text }), { maxImages, budget, counter, showText });
    const user = fillTemplateWithParts(this.options.template.user, { question: item.question, instructions }, imageContextParts(fitted.kept, showText));
    return builtPrompt(messagesOf(this.options.template.system, user), fitted.kept.map((e) => `${item.docId}-p${e.page}`), fitted, showText);
  }
}
