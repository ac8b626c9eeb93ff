import Nzh from 'nzh';

// Variants nzh's simplified decoder does not know, mapped onto the ones it does.
const VARIANTS: Record<string, string> = {
  两: '二', 〇: '零', 壹: '一', 贰: '二', 貳: '二', 叁: '三', 參: '三', 肆: '四', 伍: '五', 陆: '六', 陸: '六',
  柒: '七', 捌: '八', 玖: '九', 拾: '十', 佰: '百', 仟: '千', 萬: '万', 億: '亿', 廿: '二十', 卅: '三十', 卌: '四十',
};
const SIMPLE_NUMERAL = /^[零一二三四五六七八九十百千万亿]+$/;
const ARABIC = /^\d+$/;
const ARABIC_WITH_UNIT = /^(\d+(?:\.\d+)?)([万亿])$/;

/**
 * Parses a Chinese numeral (三万二千四百五十 → 32450, 七十六千 → 76000, 一九四九 → 1949,
 * 两千, 廿, financial 壹贰叁) or an Arabic integer, optionally with a 万/亿 unit (3万).
 * Returns null for anything that is not a whole non-negative integer numeral.
 */
export function parseInteger(text: string): number | null {
  const trimmed = text.trim().replace(/[,，\s]/g, '').replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));
  if (!trimmed) return null;
  if (ARABIC.test(trimmed)) return Number(trimmed);
  const withUnit = ARABIC_WITH_UNIT.exec(trimmed);
  if (withUnit) {
    const value = Number(withUnit[1]) * (withUnit[2] === '万' ? 1e4 : 1e8);
    return Number.isInteger(value) ? value : null;
  }
  return parseChineseNumeral(trimmed);
}

/** Chinese numerals only (no Arabic digits); null when the text is not one. */
export function parseChineseNumeral(text: string): number | null {
  const normalised = [...text.trim()].map((ch) => VARIANTS[ch] ?? ch).join('');
  if (!SIMPLE_NUMERAL.test(normalised)) return null;
  const value = Number(Nzh.cn.decodeS(normalised));
  if (!Number.isFinite(value) || value < 0) return null;
  // nzh yields 0 for input it cannot read; only 零 itself means zero.
  if (value === 0 && !/^零+$/.test(normalised)) return null;
  return value;
}
