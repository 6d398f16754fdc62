//! Demo equipment, loaded only with `PORTAL_SEED_DEMO=true` into an empty wiki
//! database.
//!
//! Services share no tables, so the demo refers to auth's demo departments and
//! staff by the ids auth's demo gives them on a fresh database: departments 1
//! (реанимация) and 2 (хирургия); the engineer `engineer` (EquipmentEditing) is
//! user 6. Both demos run on the same first start of `make run`. Dates are
//! relative to the day of loading: one unit is overdue for maintenance, one
//! due within the month. The ventilator requires education's demo course of
//! basic CPR (course 2 on a fresh database), so one demo person is cleared to
//! operate it and another is not.

use std::collections::HashMap;

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;

use crate::domain::instruction::Sanitizer;
use crate::domain::journal::{JournalEntryDraft, JournalName};
use crate::domain::maintenance::{EntryDraft, EntryInput, Kind};
use crate::domain::model::{ModelDraft, ModelInput};
use crate::domain::reference::DocumentDraft;
use crate::domain::unit::UnitDraft;
use crate::store::reference::NameTable;
use crate::store::{Author, Store, Writer};
use portal_kit::day::Day;

const ICU: i64 = 1;
const SURGERY: i64 = 2;
const ENGINEER_ID: i64 = 6;
const ENGINEER_NAME: &str = "Волков Дмитрий Олегович";
/// Education's demo course «Базовая сердечно-лёгочная реанимация» (its second):
/// the ventilator requires it; education's demo nurse has passed it, its
/// demo doctor has not.
const BASIC_CPR_COURSE: i64 = 2;

struct DemoEntry {
    /// Days before the day of loading.
    days_ago: i64,
    kind: Kind,
    performed_by: &'static str,
    description: &'static str,
    result: &'static str,
    /// Days after the day of loading (negative: overdue); none: not planned.
    next_due_in_days: Option<i64>,
}

struct DemoUnit {
    department_id: i64,
    serial_number: &'static str,
    inventory_number: &'static str,
    logbook: &'static [DemoEntry],
}

struct DemoJournal {
    name: &'static str,
    /// (days ago, text)
    entries: &'static [(i64, &'static str)],
}

struct DemoModel {
    name: &'static str,
    /// A manufacturer of [`MANUFACTURERS`]: the reference lists what the models name.
    brand_name: &'static str,
    /// One of [`ENVIRONMENT_TYPES`].
    environment_type: &'static str,
    description: &'static str,
    instruction: &'static str,
    units: &'static [DemoUnit],
    journals: &'static [DemoJournal],
    /// Education's demo courses the model requires for clearance.
    required_courses: &'static [i64],
}

const MODELS: [DemoModel; 4] = [
    DemoModel {
        name: "Монитор пациента BeneView T5",
        brand_name: "Mindray",
        environment_type: "Мониторы пациента",
        description: "Прикроватный монитор: ЭКГ, SpO₂, неинвазивное АД, температура, частота дыхания.",
        instruction: "<h2>Включение</h2><ol><li>Подключите монитор к сети; индикатор питания загорится зелёным.</li><li>Нажмите кнопку питания на передней панели и дождитесь самотестирования (около 30 секунд).</li><li>Выберите <strong>«Новый пациент»</strong> и укажите категорию: взрослый, ребёнок или новорождённый.</li></ol><h2>Подключение датчиков</h2><p>Наложите электроды ЭКГ, надените датчик SpO₂ на палец и манжету АД на плечо (на уровне сердца).</p><h3>Тревоги</h3><p>Красная тревога — немедленно к пациенту. Жёлтая — проверьте датчики. Звук тревоги можно приглушить на <strong>2 минуты</strong>, но не отключать.</p><p>Неисправность: звоните инженеру по медицинской технике, <a href=\"tel:+74950000000\">+7 495 000-00-00</a>.</p>",
        units: &[
            DemoUnit {
                department_id: ICU,
                serial_number: "T5-21A0457",
                inventory_number: "ИН-000101",
                logbook: &[DemoEntry {
                    days_ago: 120,
                    kind: Kind::Preventive,
                    performed_by: "ООО «Медтехсервис»",
                    description: "Плановое ТО: проверка тревог, калибровка модуля НИАД, чистка вентилятора.",
                    result: "Исправен",
                    next_due_in_days: Some(245),
                }],
            },
            DemoUnit {
                department_id: ICU,
                serial_number: "T5-21A0458",
                inventory_number: "ИН-000102",
                logbook: &[],
            },
            DemoUnit {
                department_id: SURGERY,
                serial_number: "T5-22B0113",
                inventory_number: "ИН-000103",
                logbook: &[],
            },
        ],
        journals: &[DemoJournal {
            name: "Журнал дезинфекции",
            entries: &[
                (
                    2,
                    "Обработка корпуса и кабелей дезинфицирующими салфетками после выписки пациента.",
                ),
                (1, "Ежедневная обработка поверхностей."),
            ],
        }],
        required_courses: &[],
    },
    DemoModel {
        name: "Аппарат ИВЛ HAMILTON-C3",
        brand_name: "Hamilton Medical",
        environment_type: "Аппараты ИВЛ",
        description: "Аппарат искусственной вентиляции лёгких для взрослых, детей и новорождённых; инвазивная и неинвазивная вентиляция.",
        instruction: "<h2>Перед подключением пациента</h2><ol><li>Соберите дыхательный контур и установите датчик потока.</li><li>Включите аппарат и выполните <strong>«Предоперационную проверку»</strong>: тест герметичности, калибровку датчика потока и датчика O₂.</li><li>Выберите пол и рост пациента — аппарат рассчитает идеальную массу тела.</li></ol><h2>Во время вентиляции</h2><p>Проверяйте пределы тревог давления и минутного объёма в начале каждой смены. При тревоге <strong>«Разъединение»</strong> проверьте контур от пациента к аппарату.</p><p class=\"ql-align-center\"><strong>Никогда не отключайте тревоги при подключённом пациенте.</strong></p>",
        units: &[DemoUnit {
            department_id: ICU,
            serial_number: "C3-7749",
            inventory_number: "ИН-000201",
            logbook: &[
                DemoEntry {
                    days_ago: 380,
                    kind: Kind::Calibration,
                    performed_by: "ФБУ «Ростест-Москва»",
                    description: "Поверка датчика кислорода и датчика потока.",
                    result: "Соответствует",
                    next_due_in_days: None,
                },
                DemoEntry {
                    days_ago: 190,
                    kind: Kind::Preventive,
                    performed_by: "Волков Д. О.",
                    description: "Плановое ТО: замена фильтров вентилятора и HEPA-фильтра, проверка батареи.",
                    result: "Исправен; батарея держит 45 минут",
                    next_due_in_days: Some(-10),
                },
            ],
        }],
        journals: &[DemoJournal {
            name: "Журнал учёта работы",
            entries: &[(
                3,
                "Пациент переведён на самостоятельное дыхание; аппарат обработан и отправлен в резерв.",
            )],
        }],
        required_courses: &[BASIC_CPR_COURSE],
    },
    DemoModel {
        name: "Дефибриллятор HeartStart XL+",
        brand_name: "Philips",
        environment_type: "Дефибрилляторы",
        description: "Дефибриллятор-монитор с ручным и автоматическим режимами, кардиостимуляцией и мониторингом SpO₂.",
        instruction: "<h2>Ручная дефибрилляция</h2><ol><li>Поверните переключатель на нужную энергию (взрослым — <strong>150 Дж</strong> бифазный).</li><li>Наложите электроды: под правую ключицу и на левую боковую поверхность грудной клетки.</li><li>Нажмите <strong>«Заряд»</strong>, громко скажите «Всем отойти!» и нажмите <strong>«Разряд»</strong>.</li><li>Сразу продолжайте компрессии 2 минуты.</li></ol><h2>Ежедневная проверка</h2><p>Убедитесь, что на экране нет значка неисправности, заряд батареи полный, электроды в упаковке не просрочены.</p>",
        units: &[
            DemoUnit {
                department_id: ICU,
                serial_number: "US21409876",
                inventory_number: "ИН-000301",
                logbook: &[DemoEntry {
                    days_ago: 160,
                    kind: Kind::Inspection,
                    performed_by: "Волков Д. О.",
                    description: "Тест разряда на нагрузку, проверка батареи и кабелей.",
                    result: "Исправен",
                    next_due_in_days: Some(20),
                }],
            },
            DemoUnit {
                department_id: SURGERY,
                serial_number: "US21409912",
                inventory_number: "ИН-000302",
                logbook: &[],
            },
        ],
        journals: &[],
        required_courses: &[],
    },
    DemoModel {
        name: "Электрохирургический аппарат Force FX",
        brand_name: "Covidien",
        environment_type: "Электрохирургические аппараты",
        description: "Высокочастотный электрохирургический генератор для монополярной и биполярной коагуляции и резания.",
        instruction: "<h2>Подготовка</h2><ol><li>Наложите нейтральный электрод на хорошо васкуляризированную мышечную область, ближе к операционному полю.</li><li>Включите аппарат, дождитесь завершения самотестирования.</li><li>Установите мощность по рекомендации хирурга, начиная с минимальной.</li></ol><p><strong>Внимание:</strong> при тревоге нейтрального электрода работа блокируется — проверьте контакт электрода с кожей.</p>",
        units: &[DemoUnit {
            department_id: SURGERY,
            serial_number: "F2K31877A",
            inventory_number: "ИН-000401",
            logbook: &[DemoEntry {
                days_ago: 30,
                kind: Kind::Corrective,
                performed_by: "ООО «Медтехсервис»",
                description: "Замена разъёма педали; проверка выходной мощности.",
                result: "Исправен",
                next_due_in_days: Some(150),
            }],
        }],
        journals: &[],
        required_courses: &[],
    },
];

const COUNTRIES: [&str; 6] = [
    "Россия",
    "Китай",
    "Германия",
    "Нидерланды",
    "Швейцария",
    "США",
];
/// The brands of the demo models, each with its country.
const MANUFACTURERS: [(&str, &str); 4] = [
    ("Mindray", "Китай"),
    ("Hamilton Medical", "Швейцария"),
    ("Philips", "Нидерланды"),
    ("Covidien", "США"),
];
const ENVIRONMENT_TYPES: [&str; 4] = [
    "Мониторы пациента",
    "Аппараты ИВЛ",
    "Дефибрилляторы",
    "Электрохирургические аппараты",
];

/// Loads the demo equipment unless a model exists already.
pub async fn load(store: &Store, sanitizer: &Sanitizer) -> ServiceResult<()> {
    if store.has_models().await? {
        return Ok(());
    }
    let now = now_millis();
    let today = Day::today();
    let engineer = Author {
        id: ENGINEER_ID,
        name: ENGINEER_NAME.into(),
    };
    // The portal's own writes, as the audit log names them.
    let portal = AuditContext::system();
    let mut countries = HashMap::new();
    for name in COUNTRIES {
        let country = store
            .create_name(&portal, NameTable::Countries, name)
            .await?;
        countries.insert(name, country.id);
    }
    let mut types = HashMap::new();
    for name in ENVIRONMENT_TYPES {
        let kind = store
            .create_name(&portal, NameTable::EnvironmentTypes, name)
            .await?;
        types.insert(name, kind.id);
    }
    let mut manufacturers = HashMap::new();
    for (name, country) in MANUFACTURERS {
        let manufacturer = store
            .create_manufacturer(&portal, name, countries.get(country).copied())
            .await?;
        manufacturers.insert(name, manufacturer.id);
    }
    store
        .create_document(
            &portal,
            &DocumentDraft::parse(
                "Порядок технического обслуживания медицинских изделий",
                "Положение больницы о плановом ТО, поверке и списании медицинской техники.",
                "https://hospital.example/docs/to-medizdeliy.pdf",
            )?,
        )
        .await?;
    for demo in &MODELS {
        let draft = ModelDraft::parse(
            ModelInput {
                name: demo.name,
                brand_name: demo.brand_name,
                description: demo.description,
                short_instruction: demo.instruction,
                manufacturer_id: manufacturers.get(demo.brand_name).copied().unwrap_or(0),
                environment_type_id: types.get(demo.environment_type).copied().unwrap_or(0),
            },
            sanitizer,
        )?;
        let model = store.create_model(&portal, &draft, None, now).await?;
        for demo_unit in demo.units {
            let draft = UnitDraft::parse(
                demo_unit.department_id,
                demo_unit.serial_number,
                demo_unit.inventory_number,
            )?;
            let unit = store
                .create_unit(&portal, model.id, &draft, Writer::PORTAL, now)
                .await?;
            for demo_entry in demo_unit.logbook {
                let next_due = demo_entry
                    .next_due_in_days
                    .map(|days| today.plus_days(days).to_string())
                    .unwrap_or_default();
                let draft = EntryDraft::parse(
                    EntryInput {
                        date: &today.plus_days(-demo_entry.days_ago).to_string(),
                        kind: Some(demo_entry.kind),
                        performed_by: demo_entry.performed_by,
                        description: demo_entry.description,
                        result: demo_entry.result,
                        next_due: &next_due,
                    },
                    today,
                )?;
                store
                    .create_entry(&portal, unit.id, &draft, &engineer, now)
                    .await?;
            }
        }
        if !demo.required_courses.is_empty() {
            store
                .set_required_courses(&portal, model.id, demo.required_courses)
                .await?;
        }
        for demo_journal in demo.journals {
            let journal = store
                .create_journal(
                    &portal,
                    model.id,
                    &JournalName::parse(demo_journal.name)?,
                    now,
                )
                .await?;
            for (days_ago, text) in demo_journal.entries {
                let draft =
                    JournalEntryDraft::parse(&today.plus_days(-days_ago).to_string(), text)?;
                store
                    .create_journal_entry(&portal, journal.id, &draft, &engineer, now)
                    .await?;
            }
        }
    }
    tracing::info!(models = MODELS.len(), "demo equipment loaded");
    Ok(())
}
