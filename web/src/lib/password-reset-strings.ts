// The visible strings of «Забыли пароль?» (issue 39.3). Apart from strings.ts so that the
// first load (/login) does not carry them: only the two pages' lazy routes import this file.

export const passwordResetStrings = {
  forgot: {
    heading: 'Восстановление пароля',
    intro: 'Введите логин — мы отправим ссылку для нового пароля на почту, указанную в портале.',
    loginLabel: 'Введите логин:',
    loginPlaceholder: 'Логин',
    submit: 'Отправить ссылку',
    sent:
      'Если такой пользователь есть и у него указана почта, мы отправили ссылку. ' +
      'Она действует 30 минут. Если письма нет, обратитесь к администратору.',
    // Directory sign-in (issue 39.1): said to every asker alike when it is on.
    directory: 'Если вы входите с паролем домена (тем же, что для входа в компьютер), ссылка не придёт: ',
    directoryLink: 'смените пароль домена здесь',
    directoryNoLink: 'пароль меняется в домене — обратитесь в ИТ-отдел.',
  },
  reset: {
    heading: 'Новый пароль',
    intro:
      'Не короче 8 символов. Подойдёт фраза из нескольких слов; слишком распространённые пароли не принимаются.',
    passwordLabel: 'Новый пароль:',
    repeatLabel: 'Повторите пароль:',
    submit: 'Сохранить пароль',
    mismatch: 'Пароли не совпадают',
    noToken: 'Ссылка для восстановления пароля недействительна или устарела. Запросите новую.',
  },
  requestAgain: 'Запросить новую ссылку',
  backToLogin: 'Вернуться ко входу',
};
