import { useLayoutEffect, useReducer, useRef } from 'preact/hooks';
import { Virtualizer, elementScroll, observeElementOffset, observeElementRect, type VirtualizerOptions } from '@tanstack/virtual-core';

/**
 * `@tanstack/virtual-core`'s virtualizer bound to a Preact component (what `@tanstack/react-virtual`
 * does for React): the component re-renders when the visible range changes.
 */
export function useVirtualizer(options: Pick<VirtualizerOptions<HTMLDivElement, Element>, 'count' | 'getScrollElement' | 'estimateSize' | 'overscan' | 'getItemKey'>): Virtualizer<HTMLDivElement, Element> {
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const resolved: VirtualizerOptions<HTMLDivElement, Element> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    ...options,
    onChange: () => rerender(0),
  };
  const ref = useRef<Virtualizer<HTMLDivElement, Element> | null>(null);
  ref.current ??= new Virtualizer(resolved);
  ref.current.setOptions(resolved);
  useLayoutEffect(() => ref.current!._didMount(), []);
  useLayoutEffect(() => ref.current!._willUpdate());
  return ref.current;
}

