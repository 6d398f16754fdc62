import type { ComponentType } from 'react';
import type { Params } from 'react-router';

/**
 * What a route shows in the breadcrumbs (spec §2): a fixed title, or a component that
 * renders the title of the entity its path names (a user's name, a department's title),
 * loading it as it likes.
 */
export type CrumbTitle = string | ComponentType<{ params: Params }>;

/** A route's `handle` that puts it into the breadcrumbs. */
export type CrumbHandle = { crumb: CrumbTitle };

export function isCrumbHandle(handle: unknown): handle is CrumbHandle {
  if (typeof handle !== 'object' || handle === null || !('crumb' in handle)) return false;
  return typeof handle.crumb === 'string' || typeof handle.crumb === 'function';
}

/** `handle: crumb('Пользователи')` or `handle: crumb(UserCrumb)`. */
export const crumb = (title: CrumbTitle): CrumbHandle => ({ crumb: title });
