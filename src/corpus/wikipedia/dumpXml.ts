import { SaxesParser } from 'saxes';

/** One `<page>` of a MediaWiki XML export (schema 0.10/0.11), as the dump has it. */
export interface DumpPage {
  ns: number;
  /** Page id (not the revision id). */
  id: string;
  title: string;
  /** The page has a `<redirect>` element. */
  redirect: boolean;
  /** Wikitext of the (latest) revision. */
  text: string;
}

/**
 * The `<page>` elements of MediaWiki export XML, from text written to it piece by piece. One
 * reader serves both the streaming reader (whole dump) and the chunk workers (a run of whole
 * pages cut from the dump), so that both see the same pages.
 */
export class DumpXmlReader {
  private readonly parser: SaxesParser;
  private readonly completed: DumpPage[] = [];
  private readonly stack: string[] = [];
  private page: DumpPage | undefined;
  private field: 'ns' | 'id' | 'title' | 'text' | 'base' | undefined;
  private buffer = '';
  private sawPageId = false;
  private parseError: Error | undefined;

  constructor(fileName: string, onSiteBase?: (url: string) => void) {
    const parser = (this.parser = new SaxesParser({ fileName }));
    parser.on('error', (error) => {
      this.parseError ??= error;
    });
    parser.on('opentag', (tag) => {
      const parent = this.stack[this.stack.length - 1];
      this.stack.push(tag.name);
      if (tag.name === 'page') {
        this.page = { ns: 0, id: '', title: '', redirect: false, text: '' };
        this.sawPageId = false;
        return;
      }
      if (this.page) {
        if (tag.name === 'redirect' && parent === 'page') this.page.redirect = true;
        else if (tag.name === 'ns' && parent === 'page') this.field = 'ns';
        else if (tag.name === 'id' && parent === 'page' && !this.sawPageId) this.field = 'id';
        else if (tag.name === 'title' && parent === 'page') this.field = 'title';
        else if (tag.name === 'text' && parent === 'revision') this.field = 'text';
      } else if (tag.name === 'base' && parent === 'siteinfo') {
        this.field = 'base';
      }
      this.buffer = '';
    });
    const onText = (text: string) => {
      if (this.field) this.buffer += text;
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
    parser.on('closetag', (tag) => {
      this.stack.pop();
      const page = this.page;
      if (this.field) {
        const value = this.buffer;
        if (this.field === 'base') onSiteBase?.(value.trim());
        else if (page && this.field === 'ns') page.ns = Number(value.trim());
        else if (page && this.field === 'id') {
          page.id = value.trim();
          this.sawPageId = true;
        } else if (page && this.field === 'title') page.title = value;
        else if (page && this.field === 'text') page.text = value; // a later revision replaces an earlier one
        this.field = undefined;
        this.buffer = '';
      }
      if (tag.name === 'page' && page) {
        this.completed.push(page);
        this.page = undefined;
      }
    });
  }

  /** Feeds XML text; returns the pages it completed. */
  write(text: string): DumpPage[] {
    this.parser.write(text);
    return this.completed.splice(0);
  }

  /** Ends the input (checks that every element was closed); returns the last pages. */
  close(): DumpPage[] {
    this.parser.close();
    return this.completed.splice(0);
  }

  /** Feeds the last text and ends the input; returns the last pages. Malformed or truncated XML goes to `fail`. */
  finish(text: string, fail: (message: string) => never): DumpPage[] {
    const pages = this.write(text);
    this.check(fail);
    if (this.stack.length > 0) fail(`the XML ends inside <${this.stack.join('><')}> — the file is truncated`);
    pages.push(...this.close());
    this.check(fail);
    return pages;
  }

  /** Passes the first XML error seen, if any, to `fail`. */
  check(fail: (message: string) => never): void {
    if (this.parseError) fail(`malformed XML: ${this.parseError.message}`);
  }

  /** The first XML error seen, if any. */
  get error(): Error | undefined {
    return this.parseError;
  }

  get line(): number {
    return this.parser.line;
  }
}
