import { LABEL_TOKEN_HEADER, LABEL_TOKEN_META, type JudgeReveal, type LabelPage, type LabelSaved, type LabelWrite } from '../../labelApi.js';

/** The label-write token the live server put in this page (none in a bundle: it cannot write). */
export const labelToken = (): string | null => document.querySelector<HTMLMetaElement>(`meta[name="${LABEL_TOKEN_META}"]`)?.content ?? null;

async function answer<T>(response: Response): Promise<T> {
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new Error(body?.error ?? `${response.status} ${response.statusText}`);
  }
  return (await response.json()) as T;
}

const base = (run: string) => `api/runs/${encodeURIComponent(run)}`;

export const labelsApi = {
  page: (run: string, annotator: string): Promise<LabelPage> => fetch(`${base(run)}/labels?annotator=${encodeURIComponent(annotator)}`).then((r) => answer<LabelPage>(r)),
  judge: (run: string, index: number, annotator: string): Promise<JudgeReveal> =>
    fetch(`${base(run)}/judge?index=${index}&annotator=${encodeURIComponent(annotator)}`).then((r) => answer<JudgeReveal>(r)),
  save: (run: string, write: LabelWrite): Promise<LabelSaved> =>
    fetch(`${base(run)}/labels`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [LABEL_TOKEN_HEADER]: labelToken() ?? '' },
      body: JSON.stringify(write),
    }).then((r) => answer<LabelSaved>(r)),
};
