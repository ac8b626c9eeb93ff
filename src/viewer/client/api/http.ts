import {
  answerQueryToParams,
  compareQueryToParams,
  type AnswerDetail,
  type AnswerPage,
  type AnswerQuery,
  type CompareQuery,
  type CompareResult,
  type ImageView,
  type RunDetail,
  type RunListEntry,
  type ViewerApi,
} from '../../api.js';

/** A response's JSON; a failed one throws the `{ error }` it carries, else "not found" (404) or its status. */
export async function responseJson<T>(response: Response): Promise<T> {
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? (response.status === 404 ? 'not found' : `${response.status} ${response.statusText}`));
  }
  return (await response.json()) as T;
}

/** A GET of the live server's JSON. */
export const get = <T>(path: string): Promise<T> => fetch(path, { headers: { Accept: 'application/json' } }).then((r) => responseJson<T>(r));

/** The live server's API (`src/viewer/server.ts`), relative to the page. */
export class HttpApi implements ViewerApi {
  readonly live = true;
  runs(): Promise<RunListEntry[]> {
    return get('api/runs');
  }
  run(id: string): Promise<RunDetail> {
    return get(`api/runs/${encodeURIComponent(id)}`);
  }
  answers(query: AnswerQuery): Promise<AnswerPage> {
    const { run, ...rest } = query;
    return get(`api/runs/${encodeURIComponent(run)}/answers?${answerQueryToParams(rest)}`);
  }
  answer(run: string, key: string): Promise<AnswerDetail> {
    return get(`api/runs/${encodeURIComponent(run)}/answer?key=${encodeURIComponent(key)}`);
  }
  compare(query: CompareQuery): Promise<CompareResult> {
    return get(`api/compare?${compareQueryToParams(query)}`);
  }
  reportUrl(run: string): string | null {
    return `runs/${encodeURIComponent(run)}/report.html`;
  }
  imageUrl(run: string, image: ImageView, size: 'thumb' | 'full'): string | null {
    if (image.dir === null) return null;
    return `api/runs/${encodeURIComponent(run)}/${size === 'thumb' ? 'thumbs' : 'images'}/${image.dir}/${image.path.split('/').map(encodeURIComponent).join('/')}`;
  }
}
