//! Demo courses, loaded only with `PORTAL_SEED_DEMO=true` into an empty
//! education database.
//!
//! Services share no tables, so the demo refers to auth's demo staff by the ids
//! auth's demo seeding gives them on a fresh database: the bootstrap admin is
//! user 1, then `nurse` 2, `doctor` 3, `cardiologist` 4, `educator` 5; the
//! departments are 1 (реанимация), 2 (хирургия), 3 (кардиология). Both demos run
//! on the same first start of `make run`; a database whose users were made
//! otherwise gets courses assigned to whoever holds those ids, which is why
//! demo data is never loaded unless asked for.

use portal_kit::ServiceResult;
use portal_kit::audit::AuditContext;
use portal_kit::db::now_millis;

use crate::domain::article::{ArticleDraft, ContentCleaner};
use crate::domain::attempt::Submission;
use crate::domain::course::CourseDraft;
use crate::domain::date::Day;
use crate::domain::integration::Author;
use crate::domain::test::{QuestionInput, TestDraft};
use crate::store::{AttemptChoice, Store, Viewer, WriteContext};

pub const DEMO_NURSE_ID: i64 = 2;
pub const DEMO_DOCTOR_ID: i64 = 3;
pub const DEMO_CARDIOLOGIST_ID: i64 = 4;
/// Лебедева, the senior nurse (auth's demo educator).
const DEMO_SENIOR_NURSE_ID: i64 = 5;
const NURSE_DEPARTMENTS: [i64; 2] = [1, 2];
const SENIOR_NURSE_DEPARTMENTS: [i64; 2] = [1, 3];
/// How long before today the nurse passed basic CPR: its 12 months' validity
/// ends next week, so her clearance for the ventilator is lapsing.
const LAPSING_PASS_DAYS_AGO: i64 = 358;
const DOCTOR_DEPARTMENTS: [i64; 1] = [1];

struct DemoQuestion {
    title: &'static str,
    /// The first answer is the correct one; the demo shuffles nothing here,
    /// attempts shuffle answers when they are drawn.
    answers: &'static [&'static str],
}

struct DemoTest {
    title: &'static str,
    description: &'static str,
    settings: [i32; 3],
    questions: &'static [DemoQuestion],
}

struct DemoArticle {
    title: &'static str,
    description: &'static str,
    content: &'static str,
    test: Option<DemoTest>,
}

struct DemoCourse {
    title: &'static str,
    description: &'static str,
    /// Days from today to the deadline.
    deadline_in_days: i64,
    /// Months a pass stays valid; 0: never expires.
    validity_months: i32,
    assignees: &'static [i64],
    articles: &'static [DemoArticle],
}

const HAND_HYGIENE_QUESTIONS: &[DemoQuestion] = &[
    DemoQuestion {
        title: "Сколько моментов гигиены рук выделяет ВОЗ?",
        answers: &["Пять", "Три", "Семь", "Десять"],
    },
    DemoQuestion {
        title: "Сколько времени должна длиться обработка рук спиртовым антисептиком?",
        answers: &[
            "20–30 секунд",
            "5 секунд",
            "2 минуты",
            "Пока руки не станут сухими, но не меньше 5 минут",
        ],
    },
    DemoQuestion {
        title: "Когда руки моют водой с мылом, а не обрабатывают антисептиком?",
        answers: &[
            "При видимом загрязнении рук",
            "Перед каждым входом в палату",
            "Только в конце смены",
            "Никогда",
        ],
    },
    DemoQuestion {
        title: "Нужна ли гигиена рук после снятия перчаток?",
        answers: &[
            "Да, всегда",
            "Нет, перчатки защищают руки",
            "Только если перчатки порвались",
        ],
    },
    DemoQuestion {
        title: "Какой момент гигиены рук наступает перед асептической процедурой?",
        answers: &["Второй", "Первый", "Четвёртый", "Пятый"],
    },
    DemoQuestion {
        title: "Можно ли носить кольца при уходе за пациентами?",
        answers: &["Нет", "Да, если они золотые", "Да, под перчатками"],
    },
];

const CPR_QUESTIONS: &[DemoQuestion] = &[
    DemoQuestion {
        title: "Какова частота компрессий грудной клетки у взрослого?",
        answers: &["100–120 в минуту", "60–80 в минуту", "140–160 в минуту"],
    },
    DemoQuestion {
        title: "Какова глубина компрессий у взрослого?",
        answers: &["5–6 см", "2–3 см", "8–10 см"],
    },
    DemoQuestion {
        title: "Каково соотношение компрессий и вдохов при СЛР одним спасателем?",
        answers: &["30:2", "15:2", "5:1", "30:5"],
    },
    DemoQuestion {
        title: "Что делать сразу после того, как дефибриллятор нанёс разряд?",
        answers: &[
            "Немедленно продолжить компрессии",
            "Проверить пульс в течение минуты",
            "Дождаться повторного анализа ритма",
        ],
    },
    DemoQuestion {
        title: "Как часто меняют спасателя, выполняющего компрессии?",
        answers: &[
            "Каждые 2 минуты",
            "Каждые 10 минут",
            "Не меняют до прибытия бригады",
        ],
    },
];

const COURSES: [DemoCourse; 2] = [
    DemoCourse {
        title: "Профилактика инфекций, связанных с оказанием медицинской помощи",
        description: "Ежегодный обязательный курс для среднего медицинского персонала: гигиена рук, средства защиты, обращение с отходами.",
        deadline_in_days: 5,
        validity_months: 0,
        assignees: &[DEMO_NURSE_ID, DEMO_DOCTOR_ID, DEMO_CARDIOLOGIST_ID],
        articles: &[
            DemoArticle {
                title: "Гигиена рук: пять моментов ВОЗ",
                description: "Когда и как обрабатывать руки при уходе за пациентом.",
                content: "<h2>Пять моментов гигиены рук</h2><ol><li>Перед контактом с пациентом.</li><li>Перед асептической процедурой.</li><li>После контакта с биологическими жидкостями.</li><li>После контакта с пациентом.</li><li>После контакта с окружением пациента.</li></ol><p><strong>Антисептик</strong> наносят на сухие руки и втирают 20–30 секунд. При видимом загрязнении руки моют водой с мылом.</p><p>Подробнее: <a href=\"https://www.who.int/\">материалы ВОЗ</a>.</p>",
                test: Some(DemoTest {
                    title: "Гигиена рук",
                    description: "Проверка знаний о пяти моментах гигиены рук и технике обработки.",
                    settings: [4, 5, 3],
                    questions: HAND_HYGIENE_QUESTIONS,
                }),
            },
            DemoArticle {
                title: "Обращение с медицинскими отходами",
                description: "Классы отходов и правила их сбора в отделении.",
                content: "<h2>Классы медицинских отходов</h2><p>Отходы класса <strong>А</strong> — эпидемиологически безопасные; класса <strong>Б</strong> — эпидемиологически опасные; класса <strong>В</strong> — чрезвычайно опасные.</p><p class=\"ql-align-center\">Острые предметы собирают в непрокалываемые контейнеры.</p>",
                test: None,
            },
        ],
    },
    DemoCourse {
        title: "Базовая сердечно-лёгочная реанимация",
        description: "Алгоритм базовой СЛР у взрослых и работа с автоматическим наружным дефибриллятором.",
        deadline_in_days: 30,
        validity_months: 12,
        assignees: &[DEMO_NURSE_ID, DEMO_DOCTOR_ID, DEMO_SENIOR_NURSE_ID],
        articles: &[DemoArticle {
            title: "Алгоритм базовой СЛР у взрослых",
            description: "Оценка состояния, компрессии грудной клетки, искусственное дыхание, дефибрилляция.",
            content: "<h2>Алгоритм</h2><p>Убедитесь в безопасности, проверьте сознание и дыхание, позовите помощь и принесите дефибриллятор.</p><p>Компрессии: <strong>100–120 в минуту</strong>, глубина <strong>5–6 см</strong>, соотношение <strong>30:2</strong>.</p><p>После разряда сразу продолжайте компрессии; спасатели меняются каждые 2 минуты.</p>",
            test: Some(DemoTest {
                title: "Базовая СЛР",
                description: "Ключевые цифры и порядок действий при базовой сердечно-лёгочной реанимации.",
                settings: [4, 5, 2],
                questions: CPR_QUESTIONS,
            }),
        }],
    },
];

/// Loads the demo courses unless a course or test exists already.
pub async fn load(store: &Store, cleaner: &ContentCleaner) -> ServiceResult<()> {
    if !store.is_empty().await? {
        return Ok(());
    }
    let now = now_millis();
    let today = Day::today();
    let mut test_ids = Vec::new();
    for demo in &COURSES {
        let mut article_ids = Vec::new();
        for demo_article in demo.articles {
            let deadline = today.plus_days(demo.deadline_in_days).to_string();
            let draft = ArticleDraft::parse(
                cleaner,
                demo_article.title,
                demo_article.description,
                demo_article.content,
                &deadline,
                0,
            )?;
            let article = store
                .create_article(&draft, WriteContext::portal(now), &AuditContext::system())
                .await?;
            article_ids.push(article.id);
            if let Some(test) = &demo_article.test {
                let questions = test
                    .questions
                    .iter()
                    .map(|q| QuestionInput {
                        id: 0,
                        title: q.title,
                        answers: q
                            .answers
                            .iter()
                            .enumerate()
                            .map(|(i, answer)| (0, *answer, i == 0))
                            .collect(),
                    })
                    .collect();
                let draft = TestDraft::parse(
                    test.title,
                    test.description,
                    test.settings,
                    article.id,
                    questions,
                )?;
                test_ids.push(
                    store
                        .create_test(&draft, WriteContext::portal(now), &AuditContext::system())
                        .await?
                        .id,
                );
            }
        }
        let draft = CourseDraft::parse(
            demo.title,
            demo.description,
            &today.plus_days(demo.deadline_in_days).to_string(),
            Some(demo.validity_months),
            demo.assignees,
            &article_ids,
        )?;
        store
            .create_course(&draft, Author::Demo, now, &AuditContext::system())
            .await?;
    }
    if let [hygiene, cpr, ..] = test_ids[..] {
        // The nurse passed hand hygiene on the second try; the doctor failed once.
        complete(store, hygiene, DEMO_NURSE_ID, &NURSE_DEPARTMENTS, 2, now).await?;
        complete(store, hygiene, DEMO_NURSE_ID, &NURSE_DEPARTMENTS, 5, now).await?;
        complete(store, hygiene, DEMO_DOCTOR_ID, &DOCTOR_DEPARTMENTS, 3, now).await?;
        // The wiki's demo ventilator requires basic CPR, valid 12 months: the
        // senior nurse passed it today (cleared), the nurse 358 days ago
        // (cleared, lapsing next week), the doctor has not (not cleared).
        complete(
            store,
            cpr,
            DEMO_SENIOR_NURSE_ID,
            &SENIOR_NURSE_DEPARTMENTS,
            5,
            now,
        )
        .await?;
        let lapsing = now - LAPSING_PASS_DAYS_AGO * 86_400_000;
        complete(store, cpr, DEMO_NURSE_ID, &NURSE_DEPARTMENTS, 5, lapsing).await?;
    }
    tracing::info!(courses = COURSES.len(), "demo courses loaded");
    Ok(())
}

/// A completed attempt on the test's first questions, the first `right` of them
/// answered correctly and the rest wrongly.
async fn complete(
    store: &Store,
    test_id: i64,
    user_id: i64,
    departments: &[i64],
    right: usize,
    at: i64,
) -> ServiceResult<()> {
    let test = store.test(Viewer::Everything, test_id).await?;
    let questions = store.full_questions(test_id).await?;
    let limit = usize::try_from(test.number_of_questions).unwrap_or(0);
    let first: Vec<i64> = questions
        .iter()
        .take(limit)
        .map(|q| q.question.id)
        .collect();
    let (attempt, _) = store
        .start_attempt(
            &test,
            user_id,
            at,
            move |_| first.clone(),
            &AuditContext::system(),
        )
        .await?;
    let answers = questions
        .iter()
        .take(limit)
        .enumerate()
        .filter_map(|(i, q)| {
            let wanted = i < right;
            q.answers
                .iter()
                .find(|a| (a.is_correct == 1) == wanted)
                .map(|a| (q.question.id, a.id))
        });
    let submission = Submission::parse(answers)?;
    store
        .complete_attempt(
            &test,
            user_id,
            AttemptChoice::Started(attempt.id),
            &submission,
            departments,
            (at, &AuditContext::system()),
        )
        .await?;
    Ok(())
}
