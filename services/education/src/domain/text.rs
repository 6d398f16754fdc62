//! The bounds of titles and descriptions (parsed by `portal_kit::text::Field`), and id lists.

pub const MAX_TITLE_CHARS: usize = 300;
pub const MAX_DESCRIPTION_CHARS: usize = 5_000;

/// Ids in the order given, each once (a course's article order).
pub fn ordered_ids(ids: &[i64]) -> Vec<i64> {
    let mut seen = std::collections::HashSet::new();
    ids.iter().copied().filter(|id| seen.insert(*id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_ids_keep_their_first_place() {
        assert_eq!(ordered_ids(&[3, 1, 3, 2, 1]), [3, 1, 2]);
    }
}
