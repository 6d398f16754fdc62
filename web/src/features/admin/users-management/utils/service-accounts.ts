import { adminStrings } from '@/lib/admin-strings';
import { formatMoment } from '@/lib/dates';

import type { ServiceAccount } from '../api/service-account-queries';

const text = adminStrings.serviceAccounts;

/**
 * A scope for people, with its string for the integration engineer: «Сотрудники: чтение
 * (staff.read)». A scope this client does not know yet shows as it is.
 */
export function scopeTitle(scope: string): string {
  const label = Object.hasOwn(text.scopeLabels, scope) ? text.scopeLabels[scope] : undefined;
  return label === undefined ? scope : text.scopeWithName(label, scope);
}

/** When the account last got a token and from which address, or that it never has. */
export function lastUse({ lastUsedAt, lastUsedFrom }: Pick<ServiceAccount, 'lastUsedAt' | 'lastUsedFrom'>) {
  const when = formatMoment(lastUsedAt);
  return when === '' ? text.neverUsed : text.usedAt(when, lastUsedFrom ?? '');
}

/** The person answerable for the account; their number when the server knew no name. */
export const ownerName = ({ ownerName: name, ownerId }: Pick<ServiceAccount, 'ownerName' | 'ownerId'>) =>
  name.trim() === '' ? text.unknownOwner(ownerId) : name;

/**
 * A number that changes when what the account's form edits changes (name, description,
 * scopes, owner), and not when its secrets, key or state do: the page's form starts again
 * from saved data only then, keeping what is being typed across a rotation.
 */
export function formVersion(account: ServiceAccount | undefined): number {
  if (account === undefined) return 0;
  const edited = JSON.stringify([account.name, account.description, account.scopes, account.ownerId]);
  let hash = 5381;
  for (let index = 0; index < edited.length; index++) hash = (hash * 33) ^ edited.charCodeAt(index);
  return hash >>> 0;
}
