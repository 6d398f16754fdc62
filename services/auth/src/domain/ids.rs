//! Links from one entity to others, given as ids in requests.

use std::collections::BTreeSet;

use portal_kit::ServiceError;

/// A set of ids, each once, in ascending order. Whether they exist is the
/// store's question, asked inside the transaction that writes the links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSet(BTreeSet<i64>);

impl IdSet {
    pub fn from_request(ids: &[i64]) -> IdSet {
        IdSet(ids.iter().copied().collect())
    }

    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        self.0.iter().copied()
    }

    pub fn contains(&self, id: i64) -> bool {
        self.0.contains(&id)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<i64> for IdSet {
    fn from_iter<I: IntoIterator<Item = i64>>(ids: I) -> Self {
        IdSet(ids.into_iter().collect())
    }
}

/// What a link points at, for the message refusing an id that does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkTo {
    Department,
    Position,
    Right,
    Status,
    User,
}

impl LinkTo {
    pub fn unknown(self, id: i64) -> ServiceError {
        ServiceError::invalid(match self {
            LinkTo::Department => format!("Отделение с идентификатором {id} не существует"),
            LinkTo::Position => format!("Должность с идентификатором {id} не существует"),
            LinkTo::Right => format!("Право с идентификатором {id} не существует"),
            LinkTo::Status => format!("Статус с идентификатором {id} не существует"),
            LinkTo::User => format!("Пользователь с идентификатором {id} не существует"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_ids_collapse_into_one_ordered_set() {
        let ids = IdSet::from_request(&[3, 1, 3, 2, 1]);
        assert_eq!(ids.iter().collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn an_unknown_link_is_invalid_input_naming_the_id() {
        let error = LinkTo::Department.unknown(42);
        assert!(
            matches!(&error, ServiceError::InvalidInput(m) if m == "Отделение с идентификатором 42 не существует")
        );
    }
}
