import * as OpenCC from 'opencc-js';

/**
 * opencc-js's traditional → simplified conversion (`t` → `cn`: its `t2s` configuration), with the
 * same dictionaries loaded into opencc-js's own Trie and the same longest-prefix matching, walked
 * faster: a table of the code points that start a dictionary key lets runs of text that need no
 * change be copied whole, and matching allocates nothing. opencc-js converts about 10 MB/s; after
 * wikitext parsing became fast it was the largest cost of a dump build. Output is identical
 * (test/text/fastConverter.test.ts compares the two).
 */
interface TrieNode extends Map<number, TrieNode> {
  trie_val?: string;
}

type Dict = string | readonly (readonly [string, string])[];
interface T2sConfig {
  normalizationChain: readonly (readonly Dict[])[];
  conversionChain: readonly (readonly Dict[])[];
  segmentation?: unknown;
}

class FastTrie {
  private readonly root: TrieNode;
  private readonly startsKey: Uint8Array;

  constructor(group: readonly Dict[]) {
    const trie = new OpenCC.Trie();
    trie.loadDictGroup(group as never);
    this.root = (trie as unknown as { map: TrieNode }).map;
    this.startsKey = new Uint8Array(0x110000);
    for (const codePoint of this.root.keys()) this.startsKey[codePoint] = 1;
  }

  convert(text: string): string {
    const n = text.length;
    let out = '';
    let copiedTo = 0;
    let i = 0;
    while (i < n) {
      const codePoint = text.codePointAt(i)!;
      const width = codePoint > 0xffff ? 2 : 1;
      if (codePoint >= 0x2ff0 && codePoint <= 0x2fff) {
        // An ideographic description sequence is kept as it is (opencc-js does the same).
        const end = idsEnd(text, i);
        i = end > i ? end : i + width;
        continue;
      }
      if (this.startsKey[codePoint] === 1) {
        // Longest dictionary key starting at i (opencc-js Trie.matchPrefix).
        let node: TrieNode | undefined = this.root;
        let j = i;
        let matchEnd = 0;
        let value = '';
        while (j < n) {
          const c = text.codePointAt(j)!;
          j += c > 0xffff ? 2 : 1;
          node = node.get(c);
          if (node === undefined) break;
          if (node.trie_val !== undefined) {
            matchEnd = j;
            value = node.trie_val;
          }
        }
        if (matchEnd > 0) {
          out += text.slice(copiedTo, i) + value;
          i = matchEnd;
          copiedTo = i;
          continue;
        }
      }
      i += width;
    }
    return copiedTo === 0 ? text : out + text.slice(copiedTo);
  }
}

/** opencc-js's rule for the end of an ideographic description sequence starting at `start` (0: none). */
function idsEnd(text: string, start: number): number {
  const codePoint = text.codePointAt(start)!;
  const arity = codePoint >= 0x2ff0 && codePoint <= 0x2ff1 ? 2 : codePoint >= 0x2ff2 && codePoint <= 0x2ff3 ? 3 : codePoint >= 0x2ff4 && codePoint <= 0x2fff ? 2 : 0;
  if (arity === 0) return 0;
  let i = start + (codePoint > 0xffff ? 2 : 1);
  for (let k = 0; k < arity; k++) {
    if (i >= text.length) return 0;
    i = idsEnd(text, i) || i + (text.codePointAt(i)! > 0xffff ? 2 : 1);
  }
  return i;
}

/** A converter equal to `OpenCC.Converter({ from: 't', to: 'cn' })`. */
export function createTraditionalToSimplified(): (text: string) => string {
  const config = (OpenCC.Locale.configs as unknown as Record<string, T2sConfig>).t2s;
  if (!config || config.segmentation) throw new Error('opencc-js: unexpected t2s configuration (its data layout changed)');
  const passes = [...config.normalizationChain, ...config.conversionChain].map((group) => new FastTrie(group));
  return (text: string) => {
    let out = text;
    for (const pass of passes) out = pass.convert(out);
    return out;
  };
}
