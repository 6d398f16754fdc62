// Route paths of spec §2, shared by the router and every link.
export const paths = {
  root: '/',
  home: '/home',
  login: '/login',
  notAllowed: '/not-allowed',
  departments: '/departments',
  courses: '/courses',
  cabinet: '/cabinet',
  myTests: '/my-tests',
  myStatistics: '/my-statistics',
  admin: '/admin',
  // The QR code of an equipment model points here (DESIGN §8): keep in step with the wiki service.
  publicShortInstruction: '/short-instruction/:environmentId',
} as const;
