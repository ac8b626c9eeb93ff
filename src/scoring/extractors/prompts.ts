import type { TextChatMessage } from '../../prompting/types.js';

/** What each LongHisDoc answer type's extraction must produce (hisrag's own wording). */
const TARGET_FORMAT: Record<string, string> = {
  Str: '用尽量短的词语或短句给出回答中的最终答案（例如人名、地名、书名、事件），不要解释，不要加引号。',
  Bool: '只输出一个字：回答认为论断成立输出“是”，认为不成立输出“否”。',
  Enum: '只输出回答所选选项的字母（如 A、B、C、D），不要输出选项内容。',
  Int: '只输出回答给出的数量，用阿拉伯数字书写的整数（例如“三万二千”写作 32000），不带单位。',
  List: '以 JSON 数组输出回答列举的全部条目，例如 ["伏羲", "神农"]；条目是页码或数目时写成数字，例如 [3, 15]。',
  None: '如果回答表示资料中没有相关信息、无法作答，输出“无法回答”；如果回答给出了具体答案，输出“hallucinated”；如果无法判断，输出“failed”。',
};

/** Messages asking an LLM to turn a free answer into its type's format. */
export function extractionMessages(input: { question: string; response: string; answerType: string }): TextChatMessage[] {
  const format = TARGET_FORMAT[input.answerType] ?? TARGET_FORMAT.Str!;
  return [
    {
      role: 'system',
      content: '你负责从模型对古籍问题的回答中抽取最终答案，只做抽取，不判断对错，不补充回答中没有的内容。',
    },
    {
      role: 'user',
      content: [
        `【问题】\n${input.question}`,
        `【模型回答】\n${input.response}`,
        `【抽取要求】\n${format}`,
        '如果回答中找不到对应内容，输出“failed”。只输出抽取结果本身。',
      ].join('\n\n'),
    },
  ];
}
