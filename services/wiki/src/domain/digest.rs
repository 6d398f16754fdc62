//! Whom the digest's items are for (issue 24): the people education's job
//! names, as auth describes them, with their passes of the required courses.

use std::collections::{HashMap, HashSet};

use portal_kit::{Right, ServiceError, ServiceResult};

use crate::domain::scope::Scope;

/// The most people one ListDigestItems names.
pub const MAX_PEOPLE: usize = 1000;
pub const MSG_TOO_MANY_PEOPLE: &str = "Слишком много сотрудников в одном запросе (не более 1000)";

/// Whose items: a person as their token describes them to the bell, or
/// auth to the digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub user_id: i64,
    pub departments: Vec<i64>,
    /// Holds `EquipmentEditing`: told of their departments' maintenance.
    pub equipment_editor: bool,
}

impl Person {
    /// A person with the rights named (unknown names count for nothing).
    pub fn named(user_id: i64, departments: Vec<i64>, rights: &[String]) -> Person {
        Person {
            user_id,
            departments,
            equipment_editor: rights
                .iter()
                .any(|name| Right::parse(name) == Some(Right::EquipmentEditing)),
        }
    }
}

impl Person {
    /// The equipment the person sees ([`Scope::of`]'s rule): an editor
    /// every model, anyone else their departments'.
    pub fn scope(&self) -> Scope {
        if self.equipment_editor {
            Scope::Everything
        } else {
            Scope::Departments(self.departments.clone())
        }
    }
}

/// A person's passes: course → until when it counts (Unix ms; `None`: never).
pub type Passes = HashMap<i64, Option<i64>>;

/// The people of one question, each once (the first naming counts), with
/// their passes; a pass of someone not named is dropped.
pub fn people(
    people: Vec<Person>,
    passes: impl IntoIterator<Item = (i64, i64, Option<i64>)>,
) -> ServiceResult<Vec<(Person, Passes)>> {
    if people.len() > MAX_PEOPLE {
        return Err(ServiceError::invalid(MSG_TOO_MANY_PEOPLE));
    }
    let mut by_person: HashMap<i64, Passes> = HashMap::new();
    for (user_id, course_id, until) in passes {
        by_person
            .entry(user_id)
            .or_default()
            .insert(course_id, until);
    }
    let mut seen = HashSet::new();
    let mut named = Vec::with_capacity(people.len());
    for person in people {
        if !seen.insert(person.user_id) {
            continue;
        }
        let theirs = by_person.remove(&person.user_id).unwrap_or_default();
        named.push((person, theirs));
    }
    Ok(named)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rights_are_read_by_name_and_passes_go_to_their_person() {
        let editor = Person::named(7, vec![1], &["EquipmentEditing".into(), "Nonsense".into()]);
        assert!(editor.equipment_editor);
        assert!(!Person::named(8, vec![1], &["EducationManagement".into()]).equipment_editor);
        let named = people(
            vec![editor.clone(), Person::named(8, vec![], &[]), editor],
            [(8, 2, Some(100)), (9, 2, None)],
        )
        .unwrap();
        assert_eq!(named.len(), 2);
        assert!(named[0].1.is_empty());
        assert_eq!(named[1].1.get(&2), Some(&Some(100)));
        let many = (0..=MAX_PEOPLE as i64).map(|id| Person::named(id, vec![], &[]));
        assert!(people(many.collect(), []).is_err());
    }
}
