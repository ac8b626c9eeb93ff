/** CJK Unified Ideographs in the range the ProHist reference counts (`[一-龥]`). */
export const CJK_CHAR = /[\u4e00-\u9fa5]/g;

export function countCjkChars(text: string): number {
  return text.match(CJK_CHAR)?.length ?? 0;
}
