import { adminStrings } from './admin-strings';
import { shownValue, type AuditChange, type AuditRecord } from './audit';
import { namedKindOf, type NameOf } from './audit-names';
import { strings } from './strings';

// How an audit record reads to a person: who, what was done to what, each field old → new.

const text = adminStrings.audit;

/** Who did it, as a person reads it. */
export function actorLabel(record: AuditRecord): string {
  const { actor } = record;
  switch (actor.kind) {
    case 'person':
      return actor.name ?? text.unknownPerson(actor.userId ?? 0);
    case 'service-account':
      return text.serviceAccount(actor.clientId);
    case 'anonymous':
      return text.anonymous(actor.login);
    default:
      return text.system;
  }
}

/** What was done to what: «Выдача прав · Сотрудник «Иванова Анна»». */
export function deedLabel(record: AuditRecord): string {
  const action = text.actions[record.action] ?? record.action;
  const entity = text.entities[record.entity] ?? record.entity;
  const which = record.entityName
    ? `«${record.entityName}»`
    : record.entityId != null
      ? `№${record.entityId}`
      : '';
  const reason = record.reason ? ` (${text.reasons[record.reason] ?? record.reason})` : '';
  return `${action}${reason} · ${entity}${which ? ` ${which}` : ''}`;
}

const rightName = (value: unknown) =>
  typeof value === 'string' && value in strings.rights
    ? strings.rights[value as keyof typeof strings.rights]
    : value;

/** A rich text's fingerprint as the services record it: `{chars, sha256}`. */
const isRichText = (value: unknown): value is { chars: number } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { chars?: unknown }).chars === 'number' &&
  typeof (value as { sha256?: unknown }).sha256 === 'string';

/** An id of `field` by the name of what it links to, «№4» while that is not known. */
function linkName(field: string, value: unknown, nameOf: NameOf): unknown {
  const kind = namedKindOf(field);
  if (kind === undefined || typeof value !== 'number' || !Number.isInteger(value)) return value;
  return nameOf(kind, BigInt(value)) ?? text.unnamed(value);
}

/**
 * A value of `field` as a person reads it: rights by their Russian names, a rich text by its
 * length, an id (a status, departments, people…) by the name of what it links to.
 */
function valueOf(field: string, value: unknown, nameOf: NameOf | undefined): string {
  if (field === 'rights' && Array.isArray(value)) return shownValue(value.map(rightName));
  if (field === 'staffLink' && typeof value === 'string') return text.staffLinks[value] ?? value;
  if (isRichText(value)) return text.richText(value.chars);
  if (nameOf) {
    return shownValue(
      Array.isArray(value) ? value.map((id) => linkName(field, id, nameOf)) : linkName(field, value, nameOf),
    );
  }
  return shownValue(value);
}

/** A field of an `entity` kind's record as a person reads it: a model's `name` is «Название». */
export function fieldLabel(entity: string, field: string): string {
  return text.fieldsOf[entity]?.[field] ?? text.fields[field] ?? field;
}

/**
 * «Поле: старое → новое» of a record of the `entity` kind; a secret only as changed; ids by
 * the names `nameOf` knows (`useAuditNames`).
 */
export function changeLabel(entity: string, change: AuditChange, nameOf?: NameOf): string {
  const field = fieldLabel(entity, change.field);
  if (change.old === '***' || change.new === '***') return `${field}: ${text.hidden}`;
  const [from, to] = [change.old, change.new].map((value) => valueOf(change.field, value, nameOf));
  return `${field}: ${from} → ${to}`;
}
