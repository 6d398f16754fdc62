import type { ComponentType } from 'react';
import type { Params } from 'react-router';

import { strings } from './strings';

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

/**
 * The title of an entity's crumb: its name once loaded, 'Не найдено' when it cannot be (so the
 * trail never shows a raw id, nor a name the page then says it cannot find), else 'Загрузка...'.
 */
export function entityCrumb(name: string | undefined, failed: boolean): string {
  if (name !== undefined) return name;
  return failed ? strings.errors.notFoundCrumb : strings.common.loading;
}

/** `handle: crumb('Пользователи')` or `handle: crumb(UserCrumb)`. */
export const crumb = (title: CrumbTitle): CrumbHandle => ({ crumb: title });
