// Route paths of spec §2, shared by the router and every link.
export const paths = {
  root: '/',
  home: '/home',
  login: '/login',
  // Beyond spec §2: «Забыли пароль?» (issue 39.3); the mailed link opens `/reset-password?token=`.
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  // Beyond spec §2: a sign-in's second step (issue 39.4), the token in the page's state.
  loginCode: '/login/code',
  // Beyond spec §2: a first sign-in (issue 39.3): a printed code is entered here, and an
  // invitation's link opens it as `/first-sign-in?token=&login=`.
  firstSignIn: '/first-sign-in',
  notAllowed: '/not-allowed',
  departments: '/departments',
  // Beyond spec §2: units whose maintenance is due or overdue, for equipment editors.
  maintenanceDue: '/departments/maintenance-due',
  courses: '/courses',
  cabinet: '/cabinet',
  myTests: '/my-tests',
  myStatistics: '/my-statistics',
  admin: '/admin',
  adminEducation: '/admin/education',
  adminCourses: '/admin/education/courses',
  adminArticles: '/admin/education/articles',
  adminTests: '/admin/education/tests',
  adminEquipment: '/admin/equipments',
  adminEquipmentModels: '/admin/equipments/equipment-models',
  // Beyond spec §2: countries, manufacturers, equipment types and common documents.
  adminEquipmentReference: '/admin/equipments/reference-data',
  adminUsersManagement: '/admin/users-management',
  adminDepartments: '/admin/users-management/admin-departments',
  adminUsers: '/admin/users-management/admin-users',
  adminRoles: '/admin/users-management/admin-roles',
  // Beyond spec §2: accounts of other hospital systems that call the portal's API (issue 21).
  adminServiceAccounts: '/admin/users-management/service-accounts',
  adminStatistics: '/admin/statistics',
  // Beyond spec §2: the audit log of every service (issue 25), for UserManagement.
  adminAudit: '/admin/audit',
  // Beyond spec §2: search across the portal (issue 25), `?q=` the words.
  search: '/search',
  // The QR code of an equipment model points here (DESIGN §8): keep in step with the wiki service.
  publicShortInstruction: '/short-instruction/:environmentId',
} as const;
