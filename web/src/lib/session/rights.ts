import { strings } from '@/lib/strings';

import { getSession, useSession, type Session } from './session';

/** The rights an access token can carry (DESIGN §6): the strings of its `rights` claim. */
export const Right = {
  UserManagement: 'UserManagement',
  EducationManagement: 'EducationManagement',
  EquipmentEditing: 'EquipmentEditing',
} as const;
export type Right = (typeof Right)[keyof typeof Right];

/** Any one of these opens /admin and shows the admin panel link and tile (DESIGN §6). */
export const adminRights: readonly Right[] = Object.values(Right);

/**
 * Spec §6: true when the signed-in user holds `right`, false when they do not, and null
 * when nobody is signed in (no token, so no rights to look at).
 */
export function hasRight(right: Right, session: Session | null = getSession()): boolean | null {
  if (session === null) return null;
  return session.user.rights.includes(right);
}

/** Whether the signed-in user holds any of `rights`; false when signed out. */
export function hasAnyRight(rights: readonly Right[], session: Session | null = getSession()): boolean {
  return rights.some((right) => hasRight(right, session) === true);
}

/** The admin-type check: any right of `adminRights`. */
export function isAdmin(session: Session | null = getSession()): boolean {
  return hasAnyRight(adminRights, session);
}

export function useHasRight(right: Right): boolean | null {
  return hasRight(right, useSession());
}

export function useIsAdmin(): boolean {
  return isAdmin(useSession());
}

/** A right's name for people; a name this client does not know is shown as it is. */
export function rightLabel(name: string): string {
  return Object.hasOwn(strings.rights, name) ? strings.rights[name as Right] : name;
}
