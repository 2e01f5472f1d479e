import { useEffect, useState } from 'preact/hooks';

/** Client-side navigation over the History API; the api answers index.html on each console path (console-page.controller.ts). */

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  listeners.forEach((listener) => listener());
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, update] = useState(location.pathname);
  useEffect(() => {
    const listener = () => update(location.pathname);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return path;
}

/** A same-origin link clicked without a modifier key navigates in the app; anything else is left to the browser. */
export function followLink(event: MouseEvent): void {
  const link = (event.target as Element).closest('a');
  if (!link || link.getAttribute('href')?.startsWith('#') || link.target || link.hasAttribute('download') || link.origin !== location.origin) return;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(link.pathname + link.search);
}
