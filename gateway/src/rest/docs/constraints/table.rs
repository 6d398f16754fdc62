//! Per route, what the services refuse a request for, field by field: read
//! from the domain types that parse each one (named beside each group).

use super::Constraint;
use super::Rule::{self, *};

const fn rule(route: &'static str, field: &'static str, rule: Rule) -> Constraint {
    Constraint { route, field, rule }
}

/// `kit::search::KINDS`, comma-separated.
const SEARCH_KINDS: &str = "^(course|article|test|environment-model|environment|document|user|department)(,(course|article|test|environment-model|environment|document|user|department))*$";
/// `auth::domain::login`: letters of one alphabet, digits and `. _ - @`, at
/// most 64 (trimmed).
const LOGIN: &str =
    r#"{"type": "string", "pattern": "^(?:[A-Za-z0-9._@-]{1,64}|[А-Яа-яЁё0-9._@-]{1,64})$"}"#;
/// `auth::domain::password`: 8 to 256 characters, not blank.
const PASSWORD: &str = r#"{"type": "string", "minLength": 8, "maxLength": 256, "pattern": "\\S"}"#;
/// On an update a blank password keeps the one the person has.
const NEW_PASSWORD: &str = r#"{"anyOf": [
    {"type": "string", "pattern": "^\\s*$"},
    {"type": "string", "minLength": 8, "maxLength": 256}
]}"#;
/// `auth::domain::user::Email`: none (blank) or an address of at most 254.
const EMAIL: &str = r#"{"anyOf": [
    {"type": "string", "pattern": "^\\s*$"},
    {"type": "string", "format": "email", "maxLength": 254}
]}"#;

/// `kit::access::Scope::ALL`, what a service account may be granted.
pub const SCOPES: &[&str] = &[
    "staff.read",
    "staff.write",
    "training.read",
    "training.assign",
    "equipment.read",
    "equipment.write",
];

/// `UtcOffset::from_whole_seconds` of minutes: within ±25:59.
const UTC_OFFSET: Rule = Range(-1559, 1559);

pub const RULES: &[Constraint] = &[
    // auth: department titles, service-account names (`MAX_TITLE_CHARS`,
    // `MAX_NAME_CHARS`); sign-in needs both fields (`MSG_CREDENTIALS_REQUIRED`).
    rule("/api/department/create", "title", Line(200)),
    rule("/api/department/update", "title", Line(200)),
    rule("/api/service-account/create", "name", Line(200)),
    rule("/api/service-account/create", "scopes", EachOneOf(SCOPES)),
    rule("/api/service-account/update", "id", Id),
    rule("/api/service-account/update", "scopes", EachOneOf(SCOPES)),
    rule("/api/service-account/update", "name", Line(200)),
    rule("/api/service-account/enable", "id", Id),
    rule("/api/service-account/disable", "id", Id),
    rule("/api/auth/login", "login", Filled),
    rule("/api/auth/login", "password", Filled),
    // A first sign-in by a printed code and the person's own second factor
    // (issue 39): each field must show something; whether a code is right
    // only the portal knows.
    rule("/api/auth/first-sign-in", "login", Filled),
    rule("/api/auth/first-sign-in", "code", Filled),
    rule("/api/auth/first-sign-in", "password", Filled),
    rule("/api/user/mfa/confirm", "code", Filled),
    rule("/api/user/mfa/disable", "code", Filled),
    rule("/api/user/mfa/recovery-codes", "code", Filled),
    // People (`user.rs`): a login; on create a password, names may wait; on
    // update the name and surname, a password only to change it.
    rule("/api/user/create-user", "login", Schema(LOGIN, true)),
    rule("/api/user/create-user", "password", Schema(PASSWORD, true)),
    rule("/api/user/create-user", "name", OptionalLine(100)),
    rule("/api/user/create-user", "surname", OptionalLine(100)),
    rule("/api/user/create-user", "lastName", OptionalLine(100)),
    rule("/api/user/create-user", "email", Schema(EMAIL, false)),
    rule("/api/user/update-user", "id", Id),
    rule("/api/user/update-user", "login", Schema(LOGIN, true)),
    rule(
        "/api/user/update-user",
        "password",
        Schema(NEW_PASSWORD, false),
    ),
    rule("/api/user/update-user", "name", Line(100)),
    rule("/api/user/update-user", "surname", Line(100)),
    rule("/api/user/update-user", "lastName", OptionalLine(100)),
    rule("/api/user/update-user", "email", Schema(EMAIL, false)),
    // OAuth (`rest/oauth.rs`): the one grant the portal gives.
    rule(
        "/api/oauth/token",
        "grant_type",
        OneOf(&["client_credentials"]),
    ),
    // RFC 6749 §3.2: others are ignored, none may be repeated.
    rule("/api/oauth/token", "", OthersText),
    // wiki: reference names, documents (`reference.rs`), models (`model.rs`),
    // units (`unit.rs`: a department, both numbers).
    rule("/api/country/create", "name", Line(300)),
    rule("/api/manufacturer/create", "name", Line(300)),
    rule("/api/environment-type/create", "name", Line(300)),
    rule("/api/common-document/create", "title", Line(300)),
    rule(
        "/api/common-document/create",
        "description",
        OptionalLines(5000),
    ),
    rule("/api/common-document/create", "url", Url(2000)),
    rule("/api/environment-model/create", "name", Line(300)),
    rule("/api/environment-model/create", "brandName", Line(300)),
    rule("/api/environment-model/create", "description", Lines(5000)),
    rule("/api/environment-model/update", "id", Id),
    rule("/api/environment-model/update", "name", Line(300)),
    rule("/api/environment-model/update", "brandName", Line(300)),
    rule("/api/environment-model/update", "description", Lines(5000)),
    rule("/api/environment/create", "departmentDeployment", Id),
    rule("/api/environment/create", "environmentModelId", Id),
    rule("/api/environment/create", "serialNumber", Line(300)),
    rule("/api/environment/create", "inventoryNumber", Line(300)),
    rule("/api/environment/update", "id", Id),
    rule("/api/environment/update", "departmentDeployment", Id),
    rule("/api/environment/update", "serialNumber", Line(300)),
    rule("/api/environment/update", "inventoryNumber", Line(300)),
    rule(
        "/api/environment-model/restore-instruction-revision",
        "environmentModelId",
        Id,
    ),
    rule(
        "/api/environment-model/restore-instruction-revision",
        "revisionId",
        Id,
    ),
    // education: courses (`course.rs`), articles (`article.rs`), tests
    // (`test.rs`): titles, descriptions, deadlines; passes valid 0..=120 months.
    rule(
        "/api/course/create-course-with-user-and-articles",
        "title",
        Line(300),
    ),
    rule(
        "/api/course/create-course-with-user-and-articles",
        "description",
        Lines(5000),
    ),
    rule(
        "/api/course/create-course-with-user-and-articles",
        "dateDeadline",
        Day,
    ),
    rule(
        "/api/course/create-course-with-user-and-articles",
        "validityMonths",
        Range(0, 120),
    ),
    rule("/api/course/update-course", "title", Line(300)),
    rule("/api/course/update-course", "description", Lines(5000)),
    rule("/api/course/update-course", "dateDeadline", Day),
    rule("/api/course/update-course", "validityMonths", Range(0, 120)),
    rule("/api/course/create-article", "title", Line(300)),
    rule("/api/course/create-article", "description", Lines(5000)),
    rule("/api/course/create-article", "dateDeadline", Day),
    rule("/api/course/update-article", "title", Line(300)),
    rule("/api/course/update-article", "description", Lines(5000)),
    rule("/api/course/update-article", "dateDeadline", Day),
    rule("/api/course/restore-article-revision", "idArticle", Id),
    rule("/api/course/restore-article-revision", "revisionId", Id),
    rule(
        "/api/test/create-test-with-question-and-answers",
        "title",
        Line(300),
    ),
    rule(
        "/api/test/create-test-with-question-and-answers",
        "description",
        Lines(5000),
    ),
    rule("/api/test/update-test", "title", Line(300)),
    rule("/api/test/update-test", "description", Lines(5000)),
    // Queries: search (`kit::search`), the integration pages
    // (`education::domain::integration::Page`), the readers' time zones and days.
    rule("/api/search", "q", Filled),
    rule("/api/search", "kinds", Pattern(SEARCH_KINDS)),
    rule("/api/search", "limit", Range(1, 50)),
    rule(
        "/api/integration/training-records",
        "after",
        Range(0, i64::MAX),
    ),
    rule("/api/integration/training-records", "limit", Range(0, 5000)),
    rule(
        "/api/integration/training-compliance",
        "afterCourseId",
        Range(0, i64::MAX),
    ),
    rule(
        "/api/integration/training-compliance",
        "limit",
        Range(0, 5000),
    ),
    rule("/api/audit/get-records", "utcOffset", UTC_OFFSET),
    rule("/api/audit/get-records", "from", Instant),
    rule("/api/audit/get-records", "to", Instant),
    rule("/api/audit/get-records", "page", Range(0, 1000)),
    rule(
        "/api/audit/get-records",
        "pageSize",
        Range(0, u32::MAX as i64),
    ),
    rule("/api/audit/export", "utcOffset", UTC_OFFSET),
    rule("/api/audit/export", "from", Instant),
    rule("/api/audit/export", "to", Instant),
    rule("/api/audit/export", "page", Range(0, u32::MAX as i64)),
    rule("/api/audit/export", "pageSize", Range(0, u32::MAX as i64)),
    rule(
        "/api/test/export-user-test-results",
        "utcOffset",
        UTC_OFFSET,
    ),
    rule(
        "/api/test/export-user-test-results",
        "dateFrom",
        OptionalDay,
    ),
    rule("/api/test/export-user-test-results", "dateTo", OptionalDay),
    rule(
        "/api/test/get-all-user-test-result",
        "dateFrom",
        OptionalDay,
    ),
    rule("/api/test/get-all-user-test-result", "dateTo", OptionalDay),
    rule(
        "/api/integration/assign-course",
        "dateDeadline",
        OptionalDay,
    ),
];
