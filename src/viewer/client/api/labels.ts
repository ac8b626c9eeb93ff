import { get, responseJson } from './http.js';
import { LABEL_TOKEN_HEADER, LABEL_TOKEN_META, type JudgeReveal, type LabelPage, type LabelSaved, type LabelWrite } from '../../labelApi.js';

/** The label-write token the live server put in this page (none in a bundle: it cannot write). */
export const labelToken = (): string | null => document.querySelector<HTMLMetaElement>(`meta[name="${LABEL_TOKEN_META}"]`)?.content ?? null;

const base = (run: string) => `api/runs/${encodeURIComponent(run)}`;

export const labelsApi = {
  page: (run: string, annotator: string) => get<LabelPage>(`${base(run)}/labels?annotator=${encodeURIComponent(annotator)}`),
  judge: (run: string, index: number, annotator: string) => get<JudgeReveal>(`${base(run)}/judge?index=${index}&annotator=${encodeURIComponent(annotator)}`),
  save: (run: string, write: LabelWrite): Promise<LabelSaved> =>
    fetch(`${base(run)}/labels`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [LABEL_TOKEN_HEADER]: labelToken() ?? '' },
      body: JSON.stringify(write),
    }).then((r) => responseJson<LabelSaved>(r)),
};
