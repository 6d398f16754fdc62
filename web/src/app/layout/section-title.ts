import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

const isUnder = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

/** The page heading of spec §1: which numbered section of the portal a route belongs to. */
export function sectionTitle(pathname: string): string {
  // A learner's own tests and results belong to training as much as the courses do.
  if ([paths.courses, paths.myTests, paths.myStatistics].some((root) => isUnder(pathname, root))) {
    return strings.sections.education;
  }
  if (isUnder(pathname, paths.departments)) return strings.sections.equipment;
  if (isUnder(pathname, paths.search)) return strings.sections.search;
  return strings.sections.unknown;
}
