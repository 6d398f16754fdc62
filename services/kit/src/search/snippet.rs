//! A hit's rank and its `<mark>`ed snippet, computed in Rust so that every
//! service's hits compare and read alike, whichever database found them.

use super::*;
use std::ops::Range;

/// Query words found in the title count 2, only in the text 1, out of 2
/// each. Every word of the query is in a candidate's title or text (the index
/// matched them all), so only the title is read: the text can be long.
pub(super) fn rank(query: &Query, title: &str) -> f64 {
    let title: Vec<String> = words(title).map(|(_, word)| stem(&word)).collect();
    let in_title = (0..query.stems.len())
        .filter(|&i| title.iter().any(|s| query.word_matches(i, s)))
        .count();
    (query.stems.len() + in_title) as f64 / (2 * query.stems.len()) as f64
}

/// The text around the first matching word of the body (the title's when the
/// body has none), HTML-escaped, every matching word marked.
pub(super) fn snippet(query: &Query, title: &str, body: &str) -> String {
    let starts = query.starts();
    let window = |text: &str| marked_window(query, &starts, text);
    let Some((text, (start, end, marks))) = window(body)
        .map(|found| (body, found))
        .or_else(|| window(title).map(|found| (title, found)))
    else {
        return escape(&body.chars().take(SNIPPET_CHARS).collect::<String>());
    };
    let mut snippet = String::new();
    if start > 0 {
        snippet.push('…');
    }
    let mut at = start;
    for mark in marks {
        snippet.push_str(&escape(&text[at..mark.start]));
        snippet.push_str("<mark>");
        snippet.push_str(&escape(&text[mark.clone()]));
        snippet.push_str("</mark>");
        at = mark.end;
    }
    snippet.push_str(&escape(&text[at..end]));
    if end < text.len() {
        snippet.push('…');
    }
    snippet
}

/// The snippet's window of `text` around its first word matching `query`
/// (`starts` its [`Query::starts`]) and the matching words inside it; the
/// words past the window are not read (a PDF's text can be 1 MB).
fn marked_window(
    query: &Query,
    starts: &[&str],
    text: &str,
) -> Option<(usize, usize, Vec<Range<usize>>)> {
    let mut window: Option<(usize, usize)> = None;
    let mut marks = Vec::new();
    for (range, word) in words(text) {
        if window.is_some_and(|(_, end)| range.start >= end) {
            break;
        }
        let matching =
            starts.iter().any(|start| word.starts_with(start)) && query.matches(&stem(&word));
        if !matching {
            continue;
        }
        let (_, end) = *window.get_or_insert_with(|| {
            let start = char_boundary_before(text, range.start, SNIPPET_CHARS / 3);
            (start, char_boundary_after(text, start, SNIPPET_CHARS))
        });
        if range.end <= end {
            marks.push(range);
        }
    }
    window.map(|(start, end)| (start, end, marks))
}

fn char_boundary_before(text: &str, at: usize, chars: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

fn char_boundary_after(text: &str, from: usize, chars: usize) -> usize {
    text[from..]
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| from + i)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
