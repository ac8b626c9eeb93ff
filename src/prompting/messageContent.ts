import type { RecordedMessage } from '../runFiles/pageImage.js';
import type { ChatMessage, ContentPart, PageImageRef } from './types.js';

/**
 * A message's content as text and images. Everything that reads prompts as text (token counters,
 * the offline stand-ins, records, the viewer's search) goes through here, so an image part is
 * never silently dropped: in text it stands as a placeholder naming its page.
 */

/** `［图像：90001 第12页］`: where a page image stands in a message's text. */
export function imagePlaceholder(image: Pick<PageImageRef, 'docId' | 'page'>): string {
  return `［图像：${image.docId} 第${image.page}页］`;
}

/** An image placeholder in a message's text: document and page in groups 1 and 2. */
export const IMAGE_PLACEHOLDER = /［图像：(\S+) 第(\d+)页］/g;

/** The pages whose placeholders a text holds, in order (what a stand-in "sees"). */
export function placeholderPages(text: string): { docId: string; page: number }[] {
  return [...text.matchAll(IMAGE_PLACEHOLDER)].map((m) => ({ docId: m[1]!, page: Number(m[2]) }));
}

export function partsOf(content: string | ContentPart[]): ContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** The text of a message, each image as its placeholder. */
export function contentAsText(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : imagePlaceholder(part.image))).join('');
}

export function messageText(message: ChatMessage): string {
  return contentAsText(message.content);
}

/** The images of a message, in order. */
export function messageImages(message: Pick<ChatMessage, 'content'>): PageImageRef[] {
  return typeof message.content === 'string' ? [] : message.content.flatMap((part) => (part.type === 'image' ? [part.image] : []));
}

/** The images of a conversation, in order. */
export function promptImages(messages: ChatMessage[]): PageImageRef[] {
  return messages.flatMap(messageImages);
}

/** A message as a run record keeps it: text with placeholders, and the images by reference (never their bytes). */
export function recordedMessageOf(message: { role: string; content: string | ContentPart[] }): RecordedMessage {
  const images = messageImages(message);
  return { role: message.role, content: contentAsText(message.content), ...(images.length ? { images } : {}) };
}

/** Tokens of a message: its text by `countText`, each image by `countImage` (the model's formula). */
export function messageTokens(message: ChatMessage, countText: (text: string) => number, countImage: (image: PageImageRef) => number): number {
  let total = 0;
  for (const part of partsOf(message.content)) total += part.type === 'text' ? countText(part.text) : countImage(part.image);
  return total;
}
