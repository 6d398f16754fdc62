//! Staff as the HR system knows it (issue 21): its own keys for people
//! (employee numbers) and for departments and positions (codes), the
//! questions other services ask to turn those keys into ids and back, and the
//! batches it sends to keep staff in step (SyncStaff): parsed row by row, so
//! a bad row is reported and the rest goes on.

use std::collections::HashSet;

use portal_kit::ServiceError;
use portal_kit::text::{Field, Shape};
use portal_proto::auth::v1 as pb;

use super::department::Title;
use super::hr_key::{HrKey, KeyOf};
use super::ids::IdSet;
use super::login::Login;
use super::user::{Email, NamePart, PersonName};

/// What ResolveStaff is asked: keys that cannot name anything (blank, too
/// long) are dropped, as unknown keys are, and each key is asked once.
#[derive(Clone, Debug, Default)]
pub struct StaffQuery {
    pub employee_numbers: Vec<HrKey>,
    pub department_codes: Vec<HrKey>,
    pub user_ids: IdSet,
}

impl StaffQuery {
    pub fn parse(
        employee_numbers: &[String],
        department_codes: &[String],
        user_ids: &[i64],
    ) -> StaffQuery {
        StaffQuery {
            employee_numbers: keys(employee_numbers, KeyOf::Person),
            department_codes: keys(department_codes, KeyOf::Reference),
            user_ids: IdSet::from_request(user_ids),
        }
    }
}

fn keys(inputs: &[String], of: KeyOf) -> Vec<HrKey> {
    let mut keys: Vec<HrKey> = inputs
        .iter()
        .filter_map(|input| HrKey::parse(input, of).ok())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The most a batch may hold: a large hospital's whole staff, several times.
pub const MAX_SYNC_PEOPLE: usize = 50_000;
/// The most departments or positions a batch may hold.
pub const MAX_SYNC_REFERENCES: usize = 5_000;
pub const MAX_POSITION_TITLE_CHARS: usize = 200;

pub const MSG_BATCH_TOO_LARGE: &str =
    "Слишком большой пакет: не более 50 000 сотрудников, 5 000 отделений и 5 000 должностей за раз";
pub const MSG_STREAM_FLAGS_DIFFER: &str = "Признаки «пробный запуск», «полная выгрузка», «разрешить массовую блокировку» и «пригласить» задаются в первой части пакета и не меняются";
pub const MSG_POSITION_TITLE_REQUIRED: &str = "Введите название должности";
pub const MSG_POSITION_TITLE_TOO_LONG: &str = "Название должности не должно превышать 200 символов";
pub const MSG_POSITION_TITLE_HIDDEN: &str =
    "Название должности не должно содержать невидимых и управляющих символов";
pub const MSG_POSITION_TITLE_TAKEN: &str = "Должность с таким названием уже существует";

pub fn msg_code_repeated(code: &str) -> String {
    format!("Код «{code}» встречается в пакете дважды")
}

pub fn msg_employee_number_repeated(number: &str) -> String {
    format!("Табельный номер «{number}» встречается в пакете дважды")
}

pub fn msg_unknown_department(code: &str) -> String {
    format!("Отделение с кодом «{code}» не найдено")
}

pub fn msg_unknown_position(code: &str) -> String {
    format!("Должность с кодом «{code}» не найдена")
}

const POSITION_TITLE: Field = Field {
    required: MSG_POSITION_TITLE_REQUIRED,
    too_long: MSG_POSITION_TITLE_TOO_LONG,
    hidden: MSG_POSITION_TITLE_HIDDEN,
    max_chars: MAX_POSITION_TITLE_CHARS,
    shape: Shape::Line,
};

/// Which list of a batch a row is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Departments,
    Positions,
    People,
}

impl Section {
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Departments => "departments",
            Section::Positions => "positions",
            Section::People => "people",
        }
    }
}

/// Why the sync refused a row, for programs (`StaffSyncError.reason`).
pub mod reason {
    /// A field of the row is not valid (the message says which).
    pub const INVALID_ROW: &str = "invalid-row";
    /// The row's code or employee number is in the batch twice.
    pub const DUPLICATE_KEY: &str = "duplicate-key";
    /// A department or position code the row names is not known.
    pub const UNKNOWN_CODE: &str = "unknown-code";
    /// Another department or position has the title.
    pub const TITLE_TAKEN: &str = "title-taken";
    /// Another person has the login.
    pub const LOGIN_TAKEN: &str = "login-taken";
    /// Blocking them would leave nobody who can manage users.
    pub const LAST_USER_MANAGER: &str = "last-user-manager";
    /// The person was made in the portal, not by the sync, and no
    /// administrator linked them to the employee number.
    pub const NOT_LINKED: &str = "staff-not-linked";
    /// The person holds an admin right and no administrator linked them to
    /// the employee number.
    pub const ADMIN_NOT_LINKED: &str = "staff-admin-not-linked";
}

/// `users.hr_link` of a person the sync created.
pub const HR_LINK_SYNC: &str = "sync";
/// `users.hr_link` of a person an administrator linked to their number.
pub const HR_LINK_ADMIN: &str = "admin";

pub fn msg_not_linked(login: &str) -> String {
    format!(
        "Учётная запись «{login}» создана в портале, и администратор не связал её с этим табельным номером: синхронизация её не меняет. Укажите табельный номер в карточке пользователя"
    )
}

pub fn msg_admin_not_linked(login: &str) -> String {
    format!(
        "У пользователя «{login}» есть права администратора: синхронизация меняет его, только если администратор указал этот табельный номер в карточке пользователя"
    )
}

/// A row the sync refused, with the Russian reason and the one for programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowError {
    pub section: Section,
    /// The row's index in its list; `None` for a person not in the batch.
    pub index: Option<usize>,
    /// The row's key as sent.
    pub key: String,
    pub message: String,
    /// One of [`reason`].
    pub reason: &'static str,
}

/// A department or a position of a batch: its code and title.
#[derive(Clone, Debug)]
pub struct ReferenceRow {
    pub index: usize,
    pub code: HrKey,
    /// Trimmed, single spaces, bounded.
    pub title: String,
}

/// A person of a batch, every field parsed.
#[derive(Clone, Debug)]
pub struct PersonRow {
    pub index: usize,
    pub employee_number: HrKey,
    pub surname: PersonName,
    pub name: PersonName,
    pub last_name: PersonName,
    /// `None`: keep a known person's login, make one for a new person.
    pub login: Option<Login>,
    pub email: Email,
    /// Each once, in order.
    pub department_codes: Vec<HrKey>,
    pub position_codes: Vec<HrKey>,
    pub dismissed: bool,
}

/// A whole batch: the rows that parsed, and the reasons of those that did not.
#[derive(Clone, Debug, Default)]
pub struct StaffBatch {
    pub dry_run: bool,
    pub full: bool,
    /// A full sync may block more than the share of people the settings allow.
    pub allow_mass_block: bool,
    /// Invite the batch's people without a password once it is written.
    pub invite: bool,
    pub departments: Vec<ReferenceRow>,
    pub positions: Vec<ReferenceRow>,
    pub people: Vec<PersonRow>,
    /// Every employee number the batch holds, rows refused included: a full
    /// sync blocks nobody whose row was only mistyped.
    pub employee_numbers: HashSet<HrKey>,
    pub errors: Vec<RowError>,
}

impl StaffBatch {
    /// Refuses only a batch over its limits; each bad row becomes a [`RowError`].
    pub fn parse(request: &pb::SyncStaffRequest) -> Result<StaffBatch, ServiceError> {
        check_size(request)?;
        let mut batch = StaffBatch {
            dry_run: request.dry_run,
            full: request.full,
            allow_mass_block: request.allow_mass_block,
            invite: request.invite,
            ..StaffBatch::default()
        };
        batch.departments = references(
            Section::Departments,
            request.departments.iter().map(|d| (&d.code, &d.title)),
            |title| Title::parse(title).map(|t| t.as_str().to_owned()),
            &mut batch.errors,
        );
        batch.positions = references(
            Section::Positions,
            request.positions.iter().map(|p| (&p.code, &p.title)),
            |title| POSITION_TITLE.required(title),
            &mut batch.errors,
        );
        for (index, person) in request.people.iter().enumerate() {
            let refused = |key: &str, message: String, reason| RowError {
                section: Section::People,
                index: Some(index),
                key: key.to_owned(),
                message,
                reason,
            };
            let number = match HrKey::parse(&person.employee_number, KeyOf::Person) {
                Ok(number) => number,
                Err(error) => {
                    batch.errors.push(refused(
                        &person.employee_number,
                        error.to_string(),
                        reason::INVALID_ROW,
                    ));
                    continue;
                }
            };
            if !batch.employee_numbers.insert(number.clone()) {
                let message = msg_employee_number_repeated(number.as_str());
                batch.errors.push(refused(
                    &person.employee_number,
                    message,
                    reason::DUPLICATE_KEY,
                ));
                continue;
            }
            match PersonRow::parse(index, number, person) {
                Ok(row) => batch.people.push(row),
                Err(error) => batch.errors.push(refused(
                    &person.employee_number,
                    error.to_string(),
                    reason::INVALID_ROW,
                )),
            }
        }
        Ok(batch)
    }
}

impl PersonRow {
    fn parse(
        index: usize,
        employee_number: HrKey,
        person: &pb::StaffPerson,
    ) -> Result<PersonRow, ServiceError> {
        let codes = |inputs: &[String]| -> Result<Vec<HrKey>, ServiceError> {
            let mut codes: Vec<HrKey> = Vec::with_capacity(inputs.len());
            for input in inputs {
                let code = HrKey::parse(input, KeyOf::Reference)?;
                if !codes.contains(&code) {
                    codes.push(code);
                }
            }
            Ok(codes)
        };
        Ok(PersonRow {
            index,
            employee_number,
            surname: PersonName::parse(&person.surname, NamePart::Surname, true)?,
            name: PersonName::parse(&person.name, NamePart::Name, true)?,
            last_name: PersonName::parse(&person.last_name, NamePart::Patronymic, false)?,
            login: match person.login.trim() {
                "" => None,
                login => Some(Login::parse(login)?),
            },
            email: Email::parse(&person.email)?,
            department_codes: codes(&person.department_codes)?,
            position_codes: codes(&person.position_codes)?,
            dismissed: person.dismissed,
        })
    }
}

/// Refuses a batch (or the chunks of a stream so far) over its limits.
pub fn check_size(request: &pb::SyncStaffRequest) -> Result<(), ServiceError> {
    if request.people.len() > MAX_SYNC_PEOPLE
        || request.departments.len() > MAX_SYNC_REFERENCES
        || request.positions.len() > MAX_SYNC_REFERENCES
    {
        return Err(ServiceError::invalid(MSG_BATCH_TOO_LARGE));
    }
    Ok(())
}

/// Adds a chunk of a stream to the batch of the chunks before it; the first
/// chunk's flags hold for the whole batch.
pub fn add_chunk(
    batch: &mut Option<pb::SyncStaffRequest>,
    chunk: pb::SyncStaffRequest,
) -> Result<(), ServiceError> {
    let Some(whole) = batch else {
        check_size(&chunk)?;
        *batch = Some(chunk);
        return Ok(());
    };
    let flags = |r: &pb::SyncStaffRequest| (r.dry_run, r.full, r.allow_mass_block, r.invite);
    if flags(whole) != flags(&chunk) {
        return Err(ServiceError::invalid(MSG_STREAM_FLAGS_DIFFER));
    }
    whole.departments.extend(chunk.departments);
    whole.positions.extend(chunk.positions);
    whole.people.extend(chunk.people);
    check_size(whole)
}

fn references<'a>(
    section: Section,
    rows: impl Iterator<Item = (&'a String, &'a String)>,
    title: impl Fn(&str) -> Result<String, ServiceError>,
    errors: &mut Vec<RowError>,
) -> Vec<ReferenceRow> {
    let mut parsed: Vec<ReferenceRow> = Vec::new();
    let mut seen = HashSet::new();
    for (index, (code, title_sent)) in rows.enumerate() {
        let invalid = |error| (error, reason::INVALID_ROW);
        let row = HrKey::parse(code, KeyOf::Reference)
            .map_err(invalid)
            .and_then(|key| {
                if seen.insert(key.clone()) {
                    Ok(ReferenceRow {
                        index,
                        title: title(title_sent).map_err(invalid)?,
                        code: key,
                    })
                } else {
                    Err((
                        ServiceError::invalid(msg_code_repeated(key.as_str())),
                        reason::DUPLICATE_KEY,
                    ))
                }
            });
        match row {
            Ok(row) => parsed.push(row),
            Err((error, reason)) => errors.push(RowError {
                section,
                index: Some(index),
                key: code.clone(),
                message: error.to_string(),
                reason,
            }),
        }
    }
    parsed
}

/// The longest login made from a name, leaving room for a number (a login
/// has at most 64 characters).
const MADE_LOGIN_CHARS: usize = 60;

/// The login a new person without one gets, before a number makes it free:
/// the surname transliterated, a dot and the initials (`ivanova.ap` for
/// Иванова Анна Петровна); `staff` for a name with no letter to keep.
pub fn login_from_name(surname: &str, name: &str, last_name: &str) -> String {
    let initial = |part: &str| part.chars().next().map(transliterate).unwrap_or_default();
    let surname = transliterate_all(surname);
    if surname.is_empty() {
        return "staff".to_owned();
    }
    let initials = initial(name) + &initial(last_name);
    let room = MADE_LOGIN_CHARS - initials.len() - 1;
    let mut login: String = surname.chars().take(room).collect();
    if !initials.is_empty() {
        login.push('.');
        login.push_str(&initials);
    }
    login
}

/// `base`, then `base2`, `base3`, … : the `n`-th login to try.
pub fn numbered_login(base: &str, n: usize) -> String {
    if n <= 1 {
        base.to_owned()
    } else {
        format!("{base}{n}")
    }
}

fn transliterate_all(text: &str) -> String {
    text.chars().map(transliterate).collect()
}

/// A letter in Latin, lower case (Russian after the passport rules); digits
/// stay; anything else is dropped.
fn transliterate(c: char) -> String {
    let lower = c.to_lowercase().next().unwrap_or(c);
    let latin = match lower {
        'а' => "a",
        'б' => "b",
        'в' => "v",
        'г' => "g",
        'д' => "d",
        'е' | 'ё' | 'э' => "e",
        'ж' => "zh",
        'з' => "z",
        'и' => "i",
        'й' | 'ы' => "y",
        'к' => "k",
        'л' => "l",
        'м' => "m",
        'н' => "n",
        'о' => "o",
        'п' => "p",
        'р' => "r",
        'с' => "s",
        'т' => "t",
        'у' => "u",
        'ф' => "f",
        'х' => "kh",
        'ц' => "ts",
        'ч' => "ch",
        'ш' => "sh",
        'щ' => "shch",
        'ю' => "yu",
        'я' => "ya",
        'a'..='z' | '0'..='9' => return lower.to_string(),
        _ => "",
    };
    latin.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::hr_key::{MSG_CODE_REQUIRED, MSG_EMPLOYEE_NUMBER_REQUIRED};

    fn person(number: &str) -> pb::StaffPerson {
        pb::StaffPerson {
            employee_number: number.into(),
            surname: "Иванова".into(),
            name: "Анна".into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_login_is_made_from_the_name_in_latin() {
        assert_eq!(login_from_name("Иванова", "Анна", "Петровна"), "ivanova.ap");
        assert_eq!(
            login_from_name("Щукин-Жуков", "Юрий", ""),
            "shchukinzhukov.yu"
        );
        assert_eq!(login_from_name("Smith", "John", ""), "smith.j");
        assert_eq!(login_from_name("Ёлкин", "Ъ", ""), "elkin");
        assert_eq!(login_from_name("—", "Анна", ""), "staff");
        assert_eq!(
            login_from_name(&"Я".repeat(100), "Щ", "Щ").len(),
            MADE_LOGIN_CHARS
        );
        assert_eq!(numbered_login("ivanova.ap", 1), "ivanova.ap");
        assert_eq!(numbered_login("ivanova.ap", 3), "ivanova.ap3");
        for made in ["ivanova.ap", "shchukinzhukov.yu3", "staff"] {
            assert!(Login::parse(made).is_ok(), "{made}");
        }
    }

    #[test]
    fn a_bad_row_is_reported_and_the_rest_parsed() {
        let request = pb::SyncStaffRequest {
            departments: vec![
                pb::StaffDepartment {
                    code: "CARD".into(),
                    title: " Кардиология ".into(),
                },
                pb::StaffDepartment {
                    code: "CARD".into(),
                    title: "Другое".into(),
                },
                pb::StaffDepartment {
                    code: "SURG".into(),
                    title: "".into(),
                },
            ],
            positions: vec![pb::StaffPosition {
                code: "".into(),
                title: "Врач".into(),
            }],
            people: vec![
                person("1"),
                person("1"),
                pb::StaffPerson {
                    email: "broken".into(),
                    ..person("2")
                },
                pb::StaffPerson {
                    surname: "".into(),
                    ..person("3")
                },
                pb::StaffPerson {
                    login: "bad login".into(),
                    ..person("4")
                },
                person(" "),
            ],
            ..Default::default()
        };
        let batch = StaffBatch::parse(&request).unwrap();
        assert_eq!(batch.departments.len(), 1);
        assert_eq!(batch.departments[0].title, "Кардиология");
        assert!(batch.positions.is_empty());
        assert_eq!(batch.people.len(), 1);
        let errors: Vec<(Section, Option<usize>, &str)> = batch
            .errors
            .iter()
            .map(|e| (e.section, e.index, e.message.as_str()))
            .collect();
        assert_eq!(
            errors,
            [
                (
                    Section::Departments,
                    Some(1),
                    "Код «CARD» встречается в пакете дважды"
                ),
                (Section::Departments, Some(2), "Введите название отделения"),
                (Section::Positions, Some(0), MSG_CODE_REQUIRED),
                (
                    Section::People,
                    Some(1),
                    "Табельный номер «1» встречается в пакете дважды"
                ),
                (
                    Section::People,
                    Some(2),
                    "Некорректный адрес электронной почты"
                ),
                (Section::People, Some(3), "Введите фамилию"),
                (
                    Section::People,
                    Some(4),
                    "Логин не должен содержать пробелов и служебных символов"
                ),
                (Section::People, Some(5), MSG_EMPLOYEE_NUMBER_REQUIRED),
            ]
        );
        // Mistyped rows still name their people: a full sync keeps them.
        assert_eq!(batch.employee_numbers.len(), 4);
    }

    #[test]
    fn chunks_make_one_batch_with_the_first_chunks_flags() {
        let chunk = |dry_run, number: &str| pb::SyncStaffRequest {
            dry_run,
            people: vec![person(number)],
            ..Default::default()
        };
        let mut batch = None;
        add_chunk(&mut batch, chunk(true, "1")).unwrap();
        add_chunk(&mut batch, chunk(true, "2")).unwrap();
        assert_eq!(batch.as_ref().unwrap().people.len(), 2);
        let refused = add_chunk(&mut batch, chunk(false, "3")).unwrap_err();
        assert_eq!(refused.to_string(), MSG_STREAM_FLAGS_DIFFER);
        let huge = pb::SyncStaffRequest {
            dry_run: true,
            people: vec![person("x"); MAX_SYNC_PEOPLE - 1],
            ..Default::default()
        };
        let refused = add_chunk(&mut batch, huge).unwrap_err();
        assert_eq!(refused.to_string(), MSG_BATCH_TOO_LARGE);
    }

    #[test]
    fn a_query_asks_each_possible_key_once() {
        let query = StaffQuery::parse(
            &[
                "2".into(),
                " 1".into(),
                "2".into(),
                "".into(),
                "x".repeat(65),
            ],
            &["ОРИТ".into()],
            &[5, 5, 3],
        );
        let numbers: Vec<&str> = query.employee_numbers.iter().map(HrKey::as_str).collect();
        assert_eq!(numbers, ["1", "2"]);
        assert_eq!(query.department_codes.len(), 1);
        assert_eq!(query.user_ids.iter().collect::<Vec<_>>(), [3, 5]);
    }
}
