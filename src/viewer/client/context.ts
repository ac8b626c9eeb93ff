import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ViewerApi } from '../api.js';

/** The data backend every component reads through: the live server or a bundle's files. */
export const ApiContext = createContext<ViewerApi | null>(null);

export function useApi(): ViewerApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('no viewer API');
  return api;
}
