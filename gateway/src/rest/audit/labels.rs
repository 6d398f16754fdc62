//! The audit log's words in Russian: kinds of records, fields, actions,
//! reasons, rights. One table for the CSV export here and the web's journal
//! (`web/src/lib/audit-labels.json`, which `adminStrings.audit` reads), so the
//! two cannot name one record differently.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Labels {
    entities: HashMap<String, String>,
    actions: HashMap<String, String>,
    reasons: HashMap<String, String>,
    staff_links: HashMap<String, String>,
    fields: HashMap<String, String>,
    fields_of: HashMap<String, HashMap<String, String>>,
    rights: HashMap<String, String>,
}

static LABELS: LazyLock<Labels> = LazyLock::new(|| {
    serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../web/src/lib/audit-labels.json"
    )))
    // Built in, so only a broken build gets here, and this module's tests
    // fail on it: the export still answers, with the codes as they are.
    .unwrap_or_else(|error| {
        tracing::error!(%error, "web/src/lib/audit-labels.json is not the audit labels' JSON");
        Labels::default()
    })
});

fn label<'a>(table: &'a HashMap<String, String>, key: &'a str) -> &'a str {
    table.get(key).map_or(key, String::as_str)
}

pub(super) fn entity_label(entity: &str) -> &str {
    label(&LABELS.entities, entity)
}

/// A recorded field as a person reads it, by what it means in its entity's
/// kind: a person's `name` is the given name, a model's, a reference item's
/// or a service account's is its title. The fields are those the services
/// record (`Changes` in each service's store).
pub(super) fn field_label<'a>(entity: &str, field: &'a str) -> &'a str {
    match LABELS.fields_of.get(entity).and_then(|own| own.get(field)) {
        Some(own) => own,
        None => label(&LABELS.fields, field),
    }
}

/// Who vouches that a person is the HR system's employee of their number.
pub(super) fn staff_link_label(link: &str) -> &str {
    label(&LABELS.staff_links, link)
}

/// A right as the admin pages name it.
pub(super) fn right_label(right: &str) -> &str {
    label(&LABELS.rights, right)
}

pub(super) fn action_label(action: &str) -> &str {
    label(&LABELS.actions, action)
}

/// Why a sign-in was refused or how it was checked, as a column of its own
/// reads it: from a capital letter (the web writes it in parentheses after
/// the action, from a small one).
pub(super) fn reason_label(reason: &str) -> String {
    let Some(label) = LABELS.reasons.get(reason) else {
        return reason.to_owned();
    };
    let mut chars = label.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
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

    #[test]
    fn a_reason_in_a_column_of_its_own_starts_with_a_capital() {
        assert_eq!(reason_label("wrong-password"), "Неверный пароль");
        assert_eq!(reason_label("sso"), "Через единую учётную запись");
        assert_eq!(reason_label("something-new"), "something-new");
        assert_eq!(reason_label(""), "");
        assert_eq!(entity_label("session"), "Сеанс");
        assert_eq!(
            right_label("EquipmentEditing"),
            "Редактирование оборудования"
        );
    }
}
