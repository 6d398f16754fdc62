//! Demo departments and staff, loaded only with `PORTAL_SEED_DEMO=true`.

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;

use crate::domain::department::{DepartmentDraft, Title};
use crate::domain::ids::IdSet;
use crate::domain::login::Login;
use crate::domain::password::{Password, Passwords};
use crate::domain::user::{Email, EmployeeNumberEdit, NamePart, PersonName, Profile};
use crate::store::Store;

struct DemoUser {
    login: &'static str,
    name: &'static str,
    surname: &'static str,
    last_name: &'static str,
    position: &'static str,
    status: &'static str,
    /// Indexes into [`DEMO_DEPARTMENTS`].
    departments: &'static [usize],
    rights: &'static [i64],
}

/// Created in this order, so on a fresh database their ids are 1 to 4 (other
/// services' demo data refers to them).
const DEMO_DEPARTMENTS: [&str; 4] = [
    "Отделение реанимации и интенсивной терапии",
    "Хирургическое отделение",
    "Кардиологическое отделение",
    "Приёмное отделение",
];

/// The demo staff. Each password is the login followed by `-demo-password`:
///
/// - `nurse` / `nurse-demo-password`: Смирнова Ольга Викторовна, палатная
///   медсестра; реанимация и хирургия; no rights (a learner).
/// - `doctor` / `doctor-demo-password`: Кузнецов Андрей Игоревич,
///   анестезиолог-реаниматолог; реанимация; no rights.
/// - `cardiologist` / `cardiologist-demo-password`: Морозова Елена Андреевна,
///   кардиолог, status 'В отпуске' (may sign in); кардиология; no rights.
/// - `educator` / `educator-demo-password`: Лебедева Марина Сергеевна, старшая
///   медсестра; реанимация и кардиология; EducationManagement.
/// - `engineer` / `engineer-demo-password`: Волков Дмитрий Олегович, инженер по
///   медицинской технике; all four departments; EquipmentEditing.
/// - `dismissed` / `dismissed-demo-password`: Орлов Сергей Петрович, хирург,
///   status 'Уволен': cannot sign in.
/// - `icu-nurse` / `icu-nurse-demo-password`: Соколова Ирина Павловна,
///   медсестра-анестезист; реанимация; no rights, no course passed: the
///   nurse not cleared for the ventilator (issue 24; last, so the ids above
///   stay those other services' demo data names).
///
/// The bootstrap admin joins every demo department too.
const DEMO_USERS: [DemoUser; 7] = [
    DemoUser {
        login: "nurse",
        name: "Ольга",
        surname: "Смирнова",
        last_name: "Викторовна",
        position: "Медицинская сестра палатная",
        status: "Работает",
        departments: &[0, 1],
        rights: &[],
    },
    DemoUser {
        login: "doctor",
        name: "Андрей",
        surname: "Кузнецов",
        last_name: "Игоревич",
        position: "Врач-анестезиолог-реаниматолог",
        status: "Работает",
        departments: &[0],
        rights: &[],
    },
    DemoUser {
        login: "cardiologist",
        name: "Елена",
        surname: "Морозова",
        last_name: "Андреевна",
        position: "Врач-кардиолог",
        status: "В отпуске",
        departments: &[2],
        rights: &[],
    },
    DemoUser {
        login: "educator",
        name: "Марина",
        surname: "Лебедева",
        last_name: "Сергеевна",
        position: "Старшая медицинская сестра",
        status: "Работает",
        departments: &[0, 2],
        rights: &[2],
    },
    DemoUser {
        login: "engineer",
        name: "Дмитрий",
        surname: "Волков",
        last_name: "Олегович",
        position: "Инженер по медицинской технике",
        status: "Работает",
        departments: &[0, 1, 2, 3],
        rights: &[3],
    },
    DemoUser {
        login: "dismissed",
        name: "Сергей",
        surname: "Орлов",
        last_name: "Петрович",
        position: "Врач-хирург",
        status: "Уволен",
        departments: &[1],
        rights: &[],
    },
    DemoUser {
        login: "icu-nurse",
        name: "Ирина",
        surname: "Соколова",
        last_name: "Павловна",
        position: "Медицинская сестра-анестезист",
        status: "Работает",
        departments: &[0],
        rights: &[],
    },
];

pub const DEMO_PASSWORD_SUFFIX: &str = "-demo-password";

/// Loads the demo departments and staff unless a department exists already.
pub async fn load(store: &Store, passwords: &Passwords, admin_login: &Login) -> ServiceResult<()> {
    if store.count_departments().await? > 0 {
        return Ok(());
    }
    let now = now_millis();
    let mut department_ids = Vec::with_capacity(DEMO_DEPARTMENTS.len());
    for title in DEMO_DEPARTMENTS {
        let draft = DepartmentDraft {
            title: Title::parse(title)?,
            members: IdSet::default(),
        };
        department_ids.push(
            store
                .create_department(&AuditContext::system(), &draft, now)
                .await?
                .id,
        );
    }
    for demo in &DEMO_USERS {
        let login = Login::parse(demo.login)?;
        if store.user_id_by_login(login.key()).await?.is_some() {
            tracing::info!(login = demo.login, "demo user skipped: the login is taken");
            continue;
        }
        let positions = store
            .position_titled(demo.position)
            .await?
            .into_iter()
            .collect();
        let profile = Profile {
            name: PersonName::parse(demo.name, NamePart::Name, true)?,
            surname: PersonName::parse(demo.surname, NamePart::Surname, true)?,
            last_name: PersonName::parse(demo.last_name, NamePart::Patronymic, false)?,
            login,
            email: Email::parse(&format!("{}@hospital.example", demo.login))?,
            status_id: store.status_named(demo.status).await?,
            departments: demo
                .departments
                .iter()
                .filter_map(|&i| department_ids.get(i).copied())
                .collect(),
            positions,
            rights: demo.rights.iter().copied().collect(),
            employee_number: EmployeeNumberEdit::Keep,
        };
        let password = Password::parse(&format!("{}{DEMO_PASSWORD_SUFFIX}", demo.login))?;
        let hash = passwords.hash(&password).await?;
        store
            .create_user(&AuditContext::system(), &profile, &hash, now)
            .await?;
    }
    if let Some(admin_id) = store.user_id_by_login(admin_login.key()).await? {
        for &department_id in &department_ids {
            store.add_member(department_id, admin_id).await?;
        }
    }
    tracing::info!(
        departments = department_ids.len(),
        users = DEMO_USERS.len(),
        "demo data loaded (demo passwords are the login followed by '{DEMO_PASSWORD_SUFFIX}')"
    );
    Ok(())
}
