// The visible strings of a first sign-in without an administrator typing a password (issue
// 39.3): the invitation's page, the first sign-in by code, and the administrator's buttons and
// printed sheet. Apart from strings.ts so that the first load (/login) does not carry them:
// only these pages' lazy routes and the admin pages import this file.

export const firstSignInStrings = {
  welcome: {
    heading: 'Добро пожаловать в портал',
    intro:
      'Придумайте пароль для входа: не короче 8 символов. Подойдёт фраза из нескольких слов; ' +
      'слишком распространённые пароли не принимаются.',
    login: (login: string) => `Ваш логин: ${login}`,
    passwordLabel: 'Пароль:',
    repeatLabel: 'Повторите пароль:',
    submit: 'Сохранить пароль и войти',
    noToken: 'Ссылка приглашения недействительна. Попросите администратора отправить приглашение ещё раз.',
    invalid:
      'Ссылка приглашения недействительна, уже использована или устарела (она действует 72 часа). ' +
      'Попросите администратора отправить приглашение ещё раз.',
  },
  code: {
    heading: 'Первый вход по коду',
    intro:
      'Введите логин и код с листка, который выдал администратор, и придумайте пароль: не короче ' +
      '8 символов, слишком распространённые пароли не принимаются.',
    loginLabel: 'Логин:',
    codeLabel: 'Код для первого входа:',
    codePlaceholder: 'XXXX-XXXX-XXXX',
    passwordLabel: 'Новый пароль:',
    repeatLabel: 'Повторите пароль:',
    submit: 'Сохранить пароль и войти',
  },
  mismatch: 'Пароли не совпадают',
  backToLogin: 'Вернуться ко входу',
  admin: {
    hint:
      'Первый вход без пароля от администратора: приглашение на почту (ссылка на 72 часа) ' +
      'или код для первого входа на бумаге (72 часа).',
    sendInvitation: 'Отправить приглашение',
    invitationSent: (email: string) => `Приглашение отправлено на ${email}`,
    makeCode: 'Код для первого входа',
    inviteDepartment: 'Пригласить всех без пароля',
    inviteDepartmentHint:
      'Приглашение на почту каждому сотруднику отделения, у кого указана почта и ещё нет пароля.',
    invitedTitle: 'Приглашения отправлены',
    sent: (count: number) => `Отправлено приглашений: ${count}`,
    skippedTitle: 'Пропущены:',
    close: 'Закрыть',
  },
  sheet: {
    title: 'Код для первого входа в портал',
    person: 'Сотрудник',
    login: 'Логин',
    code: 'Код',
    where: 'Где ввести',
    whereHint: (url: string) => `Откройте ${url} (ссылка «Первый вход по коду» на странице входа).`,
    validUntil: 'Действует до',
    once: 'Код действует один раз. После входа придумайте свой пароль; никому его не сообщайте.',
    print: 'Печать',
    back: 'Закрыть',
  },
};
