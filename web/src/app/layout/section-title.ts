import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

const isUnder = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

/** The page heading of spec §1: which numbered section of the portal a route belongs to. */
export function sectionTitle(pathname: string): string {
  if (isUnder(pathname, paths.courses)) return strings.sections.education;
  if (isUnder(pathname, paths.departments)) return strings.sections.equipment;
  return strings.sections.unknown;
}
