import type { TextChatMessage } from '../../prompting/types.js';

/** hisrag's Chinese claim prompts. A change of wording must bump PROMPT_VERSION (part of every diagnostics cache key). */
export const PROMPT_VERSION = 'claims-zh-1';

/** Extraction input: the question only resolves what the text refers to; it is not a source of claims. */
export function extractionMessages(input: { question: string; text: string; role: 'response' | 'reference' }): TextChatMessage[] {
  const what = input.role === 'response' ? '回答' : '参考答案';
  return [
    {
      role: 'system',
      content:
        '你负责把一段关于中国历史的文字拆解成可以逐条核对的事实陈述。你只转述这段文字本身断言的内容，不判断对错，不补充、不纠正，也不加入你自己的历史知识。',
    },
    {
      role: 'user',
      content: `请把【${what}】中的事实陈述逐条列出。

【问题】（只用来理解${what}在说谁、说什么，不要从问题中抽取陈述）
${input.question}

【${what}】
${input.text}

【要求】
1. 每条陈述只说一件事，离开上下文也能单独看懂：人名、朝代、年号纪年、官职、地名、书名都写全，不用“他”“其”“该书”“此时”“当地”之类的代词或指代，需要时借助问题把所指写明。
2. 年份、年号、干支、数字照原文写，不要换算成公元纪年，也不要改写。
3. 只列${what}自己断言的事实；推测语气（如“可能”“据说”）照原文保留；套话、客套、对问题的复述不算陈述。
4. 如果${what}没有任何事实陈述（例如只说无法回答、资料不足），只输出一个字：无

【输出格式】
每行一条，依次编号，形如“1. ……”，除编号的陈述外不要输出标题、解释或任何其他文字。

【示例】
问题：李靖有哪些战功？
文字：他于贞观四年率军击败颉利可汗，因功进封代国公。
输出：
1. 李靖于贞观四年率军击败颉利可汗。
2. 李靖因击败颉利可汗之功进封代国公。`,
    },
  ];
}

/**
 * Checking input: claims numbered 1..n against one text. The judge is told twice to ignore what
 * it knows of history: in history its memory agrees with most claims and would read as entailment.
 */
export function checkingMessages(input: { claims: string[]; text: string; question: string }): TextChatMessage[] {
  const n = input.claims.length;
  const claims = input.claims.map((claim, i) => `${i + 1}. ${claim}`).join('\n');
  const template = input.claims.map((_, i) => `${i + 1}: 蕴含、中立或矛盾`).join('\n');
  return [
    {
      role: 'system',
      content:
        '你是严格的文本蕴含判定员。你只根据给定的文字判断每条陈述是否被它支持，绝不使用你自己的历史知识，即使你知道某条陈述在史实上是对是错。',
    },
    {
      role: 'user',
      content: `请逐条判断【陈述】与【文字】的关系。

【问题】（只帮助理解语境，不作为判断依据）
${input.question}

【文字】
${input.text}

【陈述】
${claims}

【判断标准】
- 蕴含：【文字】明确写出了这条陈述的全部内容，或能从【文字】直接推出。
- 矛盾：【文字】中有与这条陈述冲突的内容，例如人名、朝代、年号纪年、官职、地点、数字不一致。
- 中立：既不能从【文字】推出，也不与【文字】冲突，包括【文字】根本没有提到的内容；只有一部分能推出、其余未提到的，也判中立。
- 只依据上面的【文字】判断，不要用你自己的历史知识补充或纠正：【文字】没写的，即使你知道它是史实，也判中立；【文字】写了的，即使你认为与史实不符，也照【文字】判断。

【输出格式】
恰好输出 ${n} 行，依次对应每条陈述，每行形如“1: 蕴含”，冒号后只写“蕴含”“中立”“矛盾”之一。不要输出理由、标题或任何其他文字。
${template}`,
    },
  ];
}
