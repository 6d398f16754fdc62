import type { SearchHit, SearchKind } from '../api/search';
import { searchKinds } from '../api/search';

/** A run of a snippet's text, marked when it is a word the query matched. */
export type SnippetPart = { text: string; marked: boolean };

const entities: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

const unescape = (html: string) =>
  html.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => entities[entity] ?? entity);

/**
 * A snippet as the server makes it (HTML-escaped text, matching words in `<mark>`), as runs
 * of plain text to render as text: nothing in it ever becomes markup, whatever it holds.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  snippet.split(/(<mark>.*?<\/mark>)/s).forEach((piece) => {
    if (piece === '') return;
    const marked = piece.startsWith('<mark>') && piece.endsWith('</mark>');
    const text = unescape(marked ? piece.slice('<mark>'.length, -'</mark>'.length) : piece);
    parts.push({ text, marked });
  });
  return parts;
}

/** Hits grouped by kind, the groups in the order of `searchKinds`, each kept in rank order. */
export function groupByKind(hits: SearchHit[]): { kind: SearchKind; hits: SearchHit[] }[] {
  return searchKinds
    .map((kind) => ({ kind, hits: hits.filter((hit) => hit.kind === kind) }))
    .filter((group) => group.hits.length > 0);
}
