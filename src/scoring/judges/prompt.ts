import type { TextChatMessage } from '../../prompting/types.js';
import { verdictKey } from '../rubric/parseRubric.js';
import type { JudgeRequest } from '../types.js';

/** hisrag's judge prompt: a 0/1 verdict line per rubric item, keys listed so the output can be checked whole. */
export function judgeMessages(request: JudgeRequest): TextChatMessage[] {
  const keys = request.rubricItems.map(verdictKey);
  const reference = request.referenceAnswer ? `\n\n【参考答案（仅供理解细则，不作为评判对象）】\n${request.referenceAnswer}` : '';
  return [
    {
      role: 'system',
      content:
        '你是一位中国史教授，长期从事历代政治制度与科举史研究，熟悉史料与学界通说。你的工作是依照评分细则，逐条、独立、严格地评判学生的答案。',
    },
    {
      role: 'user',
      content: `请对照【评分细则】逐条评判【待评答案】。

评判规则：
1. 加分项：答案明确写出了该条要求的内容，且表述准确，判 1；没有写到、写错或只是含糊带过，判 0。
2. 减分项：答案中出现了该条描述的问题，判 1（表示扣分）；没有出现，判 0。
3. 每一条只判 0 或 1，各条互不影响；不要因为细则以外的优点或缺点改变判定。

【问题】
${request.question}${reference}

【待评答案】
${request.answer}

【评分细则】
${request.rubricText}

【输出格式】
按下列顺序输出 ${keys.length} 行，每行形如“加分项_1: 1”，冒号后只写 0 或 1。不要输出理由、标题或任何其他文字。
${keys.map((key) => `${key}: 0或1`).join('\n')}`,
    },
  ];
}
