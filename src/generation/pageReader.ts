import { join, resolve } from 'node:path';
import { readOcrPages, type OcrPage } from '../corpus/longhisdoc/ocrFile.js';
import { DataFileError } from '../errors.js';
import { IMAGE_PLACEHOLDER, messageText, placeholderPages } from '../prompting/messageContent.js';
import type { ChatMessage, PageImageRef } from '../prompting/types.js';
import { ExtractiveGenerator } from './extractive.js';
import { ExtractiveParamsSchema } from './extractiveSchema.js';
import { imageTokensOf } from './imageTokens.js';
import type { GenerationResult, Generator, GeneratorDescription } from './types.js';
import { PAGE_READER_NOTE, type PageReaderParams } from './pageReaderSchema.js';

export { PAGE_READER_NOTE, PageReaderParamsSchema, type PageReaderParams } from './pageReaderSchema.js';


// A line that starts a marker of the prompt layout (`【资料2】…`, `【资料结束】`, `【问题】`): where an entry's text ends.
const MARKER_LINE = /^【[^】]+】/m;

/**
 * The offline stand-in for a vision-language model. It "sees" only which pages it was shown: each
 * image placeholder of the prompt (`［图像：<doc> 第<p>页］`) is replaced by that page's OCR text —
 * except where the context entry already carries text after the image (image + OCR prompts, where
 * the page would otherwise be read twice) — and the prompt is answered exactly as the `extractive`
 * generator answers text. It counts image tokens with the configured formula, so offline runs
 * account for images as a VLM run would.
 */
export class PageReaderGenerator implements Generator {
  readonly name = 'page-reader';
  readonly model = 'page-reader';
  readonly #reader: ExtractiveGenerator;
  readonly #ocrDir: string;
  readonly #volumes = new Map<string, Promise<OcrPage[]>>();

  constructor(private readonly params: PageReaderParams) {
    const { ocrDir, images, ...extractive } = params;
    this.#reader = new ExtractiveGenerator(ExtractiveParamsSchema.parse(extractive));
    this.#ocrDir = resolve(ocrDir);
  }

  imageTokens(image: PageImageRef): number {
    return imageTokensOf(image, this.params.images);
  }

  #volume(docId: string): Promise<OcrPage[]> {
    let pages = this.#volumes.get(docId);
    if (!pages) this.#volumes.set(docId, (pages = readOcrPages(join(this.#ocrDir, `${docId}.json`))));
    return pages;
  }

  async #pageText(docId: string, page: number): Promise<string> {
    const pages = await this.#volume(docId);
    const found = pages[page - 1];
    if (!found) throw new DataFileError(`${join(this.#ocrDir, `${docId}.json`)}: document ${docId} has no OCR for page ${page} (it has ${pages.length} pages), but the prompt showed its image`);
    return found.text;
  }

  /** The message's text with each image read as its page's OCR text (or dropped where the entry already has the text). */
  async read(text: string): Promise<string> {
    const shown = placeholderPages(text);
    if (shown.length === 0) return text;
    const texts = new Map<string, string>();
    for (const { docId, page } of shown) texts.set(`${docId}\u0000${page}`, await this.#pageText(docId, page));
    return text.replace(IMAGE_PLACEHOLDER, (placeholder: string, docId: string, page: string, offset: number) => {
      const after = text.slice(offset + placeholder.length);
      const marker = MARKER_LINE.exec(after);
      const rest = (marker ? after.slice(0, marker.index) : after).replace(IMAGE_PLACEHOLDER, '');
      return rest.trim() ? '' : texts.get(`${docId}\u0000${Number(page)}`)!;
    });
  }

  async generate(messages: ChatMessage[]): Promise<GenerationResult> {
    const read = await Promise.all(messages.map(async (m) => ({ role: m.role, content: await this.read(messageText(m)) })));
    return this.#reader.generate(read);
  }

  describe(): GeneratorDescription {
    return { ...this.#reader.describe(), name: this.name, model: this.model, ocrDir: this.#ocrDir, images: this.params.images, note: PAGE_READER_NOTE };
  }
}

export const createPageReader = (params: PageReaderParams): Generator => new PageReaderGenerator(params);
