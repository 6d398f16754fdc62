// The visible strings of the personal cabinet (DESIGN §9: every visible string in lib). Apart
// from strings.ts so that the first load (/login, the QR code's public page) does not carry
// them: only the cabinet's lazy route imports this file.

export const cabinetStrings = {
  name: 'Имя',
  surname: 'Фамилия',
  lastName: 'Отчество',
  login: 'Логин',
  email: 'Электронная почта',
  status: 'Статус',
  positions: 'Должности',
  departments: 'Отделения',
  rights: 'Права',
  noRights: 'Нет прав администрирования',
  digestTitle: 'Напоминания по электронной почте',
  digestLabel: 'Присылать ежедневное письмо о курсах, срок которых подходит или прошёл',
  digestOn: 'Ежедневные напоминания включены',
  digestOff: 'Ежедневные напоминания отключены',
  sessionsTitle: 'Устройства, на которых выполнен вход',
  sessionsHint: 'Если вы не узнаёте устройство или забыли выйти на общем компьютере, завершите его сеанс.',
  thisDevice: 'Это устройство',
  unknownDevice: 'Неизвестное устройство',
  signedInAt: (moment: string) => `вход ${moment}`,
  lastSeenAt: (moment: string) => `активность ${moment}`,
  endSession: 'Выйти',
  endSessionOf: (device: string) => `Выйти на устройстве «${device}»`,
  endOthers: 'Выйти на всех других устройствах',
  sessionEnded: 'Сеанс на устройстве завершён',
  othersEnded: (count: number) => `Завершено сеансов на других устройствах: ${count}`,
  sessionsLoadFailed: 'Не удалось загрузить список устройств.',
};
