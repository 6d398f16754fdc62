//! One typo forgiven (issue 37): a query that finds nothing is asked again
//! with each of its longer words read as itself or any word one edit away
//! (a letter left out, one too many, one wrong, two swapped), so
//! «дефибрилятор» finds «дефибриллятор». Only a query with no hit pays for
//! it, and only words of [`MIN_CHARS`] letters or more are read so: a short
//! word has too many neighbours to mean one of them.
//!
//! The neighbours are of the stem the index stores, in the word's own
//! alphabet; a 12-letter Russian stem has about 800, which both full-text
//! indexes look up as one OR of terms.

use std::collections::BTreeSet;

/// Letters a word must have to be read with a typo.
pub const MIN_CHARS: usize = 5;

const RUSSIAN: &str = "абвгдежзийклмнопрстуфхцчшщъыьэюя";
const LATIN: &str = "abcdefghijklmnopqrstuvwxyz";

/// The stems one edit away from `stem`, itself left out; none for a short
/// stem or one with digits (an inventory number is typed as it is).
pub fn neighbours(stem: &str) -> Vec<String> {
    let letters: Vec<char> = stem.chars().collect();
    if letters.len() < MIN_CHARS || letters.iter().any(char::is_ascii_digit) {
        return Vec::new();
    }
    let alphabet: Vec<char> = if letters.iter().any(|c| RUSSIAN.contains(*c)) {
        RUSSIAN.chars().collect()
    } else {
        LATIN.chars().collect()
    };
    let word = |chars: &[char]| chars.iter().collect::<String>();
    let mut near = BTreeSet::new();
    for at in 0..=letters.len() {
        for &letter in &alphabet {
            let mut inserted = letters.clone();
            inserted.insert(at, letter);
            near.insert(word(&inserted));
        }
        if at < letters.len() {
            let mut deleted = letters.clone();
            deleted.remove(at);
            near.insert(word(&deleted));
            for &letter in &alphabet {
                let mut replaced = letters.clone();
                replaced[at] = letter;
                near.insert(word(&replaced));
            }
        }
        if at + 1 < letters.len() {
            let mut swapped = letters.clone();
            swapped.swap(at, at + 1);
            near.insert(word(&swapped));
        }
    }
    near.remove(stem);
    near.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_letter_left_out_too_many_wrong_or_swapped_is_one_edit_away() {
        let near = neighbours("дефибрилятор");
        for meant in [
            "дефибриллятор",
            "дефибрилятр",
            "дефибрилятар",
            "дефибрилятро",
        ] {
            assert!(near.iter().any(|n| n == meant), "{meant}");
        }
        assert!(!near.iter().any(|n| n == "дефибрилятор"), "itself left out");
        assert!(!near.iter().any(|n| n == "дефибриллятр"), "two edits away");
        assert!(neighbours("monitr").iter().any(|n| n == "monitor"));
    }

    #[test]
    fn short_words_and_numbers_are_read_as_typed() {
        assert!(neighbours("игла").is_empty());
        assert!(neighbours("ин-000101").is_empty());
    }
}
