import { paths } from '@/config/paths';

// A page opened signed out (a bookmark, a link in a message) leads through the no-access and
// sign-in pages with its address in `?next=`, and opens again after the sign-in. The address
// comes from the URL, which anyone can write: only a path of this portal is followed (never
// `//evil.example`, `https://…` or `/\evil`), so a crafted link cannot send a person elsewhere.

const returnParameter = 'next';

/** The address the pages of sign-in take along: where `location` asked to go. */
export function withReturnPath(to: string, location: { pathname: string; search: string; hash: string }) {
  const back = `${location.pathname}${location.search}${location.hash}`;
  return `${to}?${new URLSearchParams({ [returnParameter]: back }).toString()}`;
}

/** The page to open after a sign-in: `?next=` if it is a path of this portal's own, else none. */
export function returnPathOf(search: URLSearchParams, origin = window.location.origin): string | undefined {
  const next = search.get(returnParameter);
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return undefined;
  }
  // The URL parser drops tabs and line ends, so `/\t/evil.example` is read as `//evil.example`.
  if (url.origin !== origin) return undefined;
  // The sign-in pages themselves lead nowhere new.
  if (url.pathname === paths.login || url.pathname === paths.notAllowed) return undefined;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The no-access page's way to sign-in keeps `?next=`; nothing else of its address. */
export function keepReturnPath(to: string, search: URLSearchParams) {
  const next = returnPathOf(search);
  return next === undefined ? to : withReturnPath(to, new URL(next, window.location.origin));
}
