//! The audit log's words in Russian: kinds of records, fields, actions and
//! reasons. The one table of the gateway (the web has its own,
//! `adminStrings.audit`).

pub(super) fn entity_label(entity: &str) -> &str {
    match entity {
        "user" => "Сотрудник",
        "department" => "Отделение",
        "position" => "Должность",
        "service-account" => "Внешняя система",
        "session" => "Сеанс",
        "course" => "Курс",
        "article" => "Статья",
        "test" => "Тест",
        "environment-model" => "Модель оборудования",
        "environment" => "Единица оборудования",
        "document" => "Документ",
        "video" => "Видео",
        "attempt" => "Попытка теста",
        "notification" => "Уведомления",
        "digest-settings" => "Настройка рассылки",
        "digest" => "Рассылка",
        "maintenance-entry" => "Запись журнала ТО",
        "journal" => "Журнал",
        "journal-entry" => "Запись журнала",
        "country" => "Страна",
        "environment-type" => "Тип оборудования",
        "manufacturer" => "Производитель",
        "common-document" => "Общий документ",
        other => other,
    }
}

/// A recorded field as a person reads it, by what it means in its entity's
/// kind: a person's `name` is the given name, a model's, a reference item's
/// or a service account's is its title. The one table of the gateway (the
/// web has its own, `adminStrings.audit.fields`); the fields are those the
/// services record (`Changes` in each service's store).
pub(super) fn field_label<'a>(entity: &str, field: &'a str) -> &'a str {
    match (entity, field) {
        ("user", "name") => "Имя",
        ("maintenance-entry", "kind") => "Вид работ",
        ("maintenance-entry", "description") => "Описание работ",
        ("attempt", "questions") => "Выпавшие вопросы",
        ("digest", "day") => "День рассылки",
        ("video", "idRelated") => "Связанный объект",
        (_, field) => match field {
            "employeeNumber" => "Табельный номер",
            "staffLink" => "Связь с кадровой системой",
            "surname" => "Фамилия",
            "name" | "title" => "Название",
            "lastName" => "Отчество",
            "login" => "Логин",
            "email" => "Эл. почта",
            "password" => "Пароль",
            "method" => "Способ входа",
            "statusId" => "Статус",
            "departmentIds" => "Отделения",
            "positionIds" => "Должности",
            "rights" => "Права",
            "code" => "Код в кадровой системе",
            "userIds" => "Сотрудники",
            "clientId" => "Идентификатор клиента",
            "description" => "Описание",
            "ownerId" => "Ответственный",
            "scopes" => "Разрешения",
            "active" => "Включена",
            "publicKey" => "Открытый ключ",
            "secretIds" => "Секреты",
            "secret" => "Секрет",
            "content" => "Содержание",
            "dateDeadline" => "Срок",
            "testId" => "Тест",
            "validityMonths" => "Срок действия, мес.",
            "assignees" => "Назначено",
            "articles" => "Статьи",
            "totalPointsRequired" => "Проходной балл",
            "numberOfQuestions" => "Число вопросов",
            "numberOfTries" => "Число попыток",
            "articleId" => "Статья",
            "questions" => "Вопросы",
            "ownDeadlines" => "Личные сроки",
            "userId" => "Сотрудник",
            "tryNumber" => "Попытка",
            "totalPoint" => "Баллы",
            "pointsPossible" => "Из",
            "isPassed" => "Сдан",
            "read" => "Прочитано",
            "digestEnabled" => "Ежедневная рассылка",
            "day" => "День",
            "brandName" => "Марка",
            "shortInstruction" => "Краткая инструкция",
            "manufacturerId" => "Производитель",
            "environmentTypeId" => "Тип оборудования",
            "requiredCourses" => "Обязательные курсы",
            "environmentModelId" | "idRelated" => "Модель оборудования",
            "departmentId" => "Отделение",
            "serialNumber" => "Серийный номер",
            "inventoryNumber" => "Инвентарный номер",
            "retiredAt" => "Списана",
            "environmentId" => "Единица оборудования",
            "performedOn" | "entryDate" => "Дата",
            "kind" => "Вид",
            "performedBy" => "Исполнитель",
            "result" => "Результат",
            "nextDue" => "Следующее ТО",
            "authorName" => "Автор",
            "journalId" => "Журнал",
            "text" => "Текст",
            "countryId" => "Страна",
            "url" => "Ссылка",
            "fileName" => "Имя файла",
            "contentType" => "Тип",
            "sizeBytes" => "Размер, байт",
            "sha256" => "SHA-256",
            "link" => "Ссылка для скачивания",
            "range" => "Часть файла",
            other => other,
        },
    }
}

/// Who vouches that a person is the HR system's employee of their number.
pub(super) fn staff_link_label(link: &str) -> &str {
    match link {
        "sync" => "создан синхронизацией",
        "admin" => "связан администратором",
        other => other,
    }
}

/// A right as the admin pages name it.
pub(super) fn right_label(right: &str) -> &str {
    match right {
        "UserManagement" => "Управление пользователями",
        "EducationManagement" => "Управление обучением",
        "EquipmentEditing" => "Редактирование оборудования",
        other => other,
    }
}

pub(super) fn action_label(action: &str) -> &str {
    match action {
        "create" => "Создание",
        "update" => "Изменение",
        "delete" => "Удаление",
        "block" => "Блокировка",
        "sign-in" => "Вход",
        "sign-out" => "Выход",
        "sign-in-refused" => "Отказ во входе",
        "password-reset-requested" => "Запрос восстановления пароля",
        "password-reset" => "Восстановление пароля",
        "mfa-enrol" => "Подключение двухэтапного входа",
        "mfa-confirm" => "Включение двухэтапного входа",
        "mfa-disable" => "Отключение двухэтапного входа",
        "mfa-recovery-codes" => "Новые коды восстановления",
        "mfa-reset" => "Сброс второго фактора",
        "invitation-sent" => "Отправлено приглашение",
        "invitation-accepted" => "Принято приглашение",
        "first-sign-in-code-made" => "Выдан код для первого входа",
        "first-sign-in-code-used" => "Первый вход по коду",
        "first-sign-in-code-refused" => "Неверный код для первого входа",
        "grant" => "Выдача прав",
        "revoke" => "Снятие прав",
        "download" => "Скачивание",
        "complete" => "Завершение",
        "mark-read" => "Прочтение",
        "send" => "Отправка",
        "retire" => "Списание",
        other => other,
    }
}

pub(super) fn reason_label(reason: &str) -> &str {
    match reason {
        "wrong-password" => "Неверный пароль",
        "unknown-login" => "Неизвестный логин",
        "blocked" => "Учётная запись заблокирована",
        "no-email" => "Не указана почта",
        "wrong-code" => "Неверный или устаревший код",
        "session-ended" => "Сеанс завершён из списка устройств или администратором",
        // How a sign-in's password was checked (issue 39.1).
        "password" => "По паролю портала",
        "directory" => "Через домен",
        "not-in-portal" => "Нет на портале",
        "directory-disabled" => "Учётная запись отключена в домене",
        "directory-unavailable" => "Домен недоступен",
        "directory-password" => "Пароль проверяется в домене",
        "code-reused" => "Код второго шага уже использован",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_named_by_what_it_means_in_its_kind() {
        assert_eq!(field_label("user", "name"), "Имя");
        for thing in [
            "environment-model",
            "country",
            "manufacturer",
            "service-account",
        ] {
            assert_eq!(field_label(thing, "name"), "Название", "{thing}");
        }
        assert_eq!(field_label("course", "title"), "Название");
        assert_eq!(field_label("maintenance-entry", "kind"), "Вид работ");
        assert_eq!(field_label("course", "somethingNew"), "somethingNew");
    }
}
