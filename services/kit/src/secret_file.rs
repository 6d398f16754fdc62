//! Secrets as files. Every secret setting `X` may instead be given as `X_FILE`,
//! the path of a file that holds it (a mounted Kubernetes Secret, a systemd or
//! container credential), so the secret never sits in the process environment,
//! where `/proc/<pid>/environ`, `kubectl describe` and crash reports show it.
//!
//! The rule is the same for every secret: the file's content without its trailing
//! line end is the value; an unreadable or empty file is refused naming the
//! variable and the path; `X` and `X_FILE` together are refused naming both.
//! The binary's own settings declare `X_FILE` as a clap argument beside `X`
//! (value parser [`parse`] or [`parse_with`], `conflicts_with` the plain form);
//! variables a library reads itself (the S3 client's `AWS_*`) go through
//! [`resolve`].

use std::ffi::OsString;
use std::path::Path;

use secrecy::{ExposeSecret, SecretString};

/// The secret held in the file at `path`: its content without trailing line
/// ends (`echo secret > file` adds one). The message of an error says why, not
/// which setting: the caller names it.
pub fn read(path: &Path) -> Result<SecretString, String> {
    let content = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let value = content.trim_end_matches(['\n', '\r']);
    if value.is_empty() {
        return Err("the file is empty".into());
    }
    Ok(value.into())
}

/// clap's value parser of an `X_FILE` argument whose secret needs no other check:
/// clap's refusal names the argument (`--x-file <X_FILE>`) and the path.
pub fn parse(path: &str) -> Result<SecretString, String> {
    read(Path::new(path))
}

/// clap's value parser of an `X_FILE` argument whose secret `check` parses, as
/// `X`'s own value parser would. `check` must not echo the value in its error.
pub fn parse_with(
    check: fn(&str) -> Result<SecretString, String>,
) -> impl Fn(&str) -> Result<SecretString, String> + Clone + Send + Sync + 'static {
    move |path| check(read(Path::new(path))?.expose_secret())
}

/// The secret `variable` from the environment `lookup` reads (`std::env::var_os`
/// in the binary): its own value, or the content of the file `variable_FILE`
/// names; `None` when neither is set.
pub fn resolve(
    variable: &str,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> Result<Option<SecretString>, String> {
    let file_variable = format!("{variable}_FILE");
    match (lookup(variable), lookup(&file_variable)) {
        (Some(_), Some(_)) => Err(format!(
            "{variable} and {file_variable} are both set: give the secret one way"
        )),
        (Some(value), None) => value
            .into_string()
            .map(|value| Some(value.into()))
            .map_err(|_| format!("{variable} is not UTF-8")),
        (None, Some(path)) => read(Path::new(&path))
            .map(Some)
            .map_err(|why| format!("{file_variable}={}: {why}", Path::new(&path).display())),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn environment(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let variables: HashMap<String, OsString> = pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), OsString::from(value)))
            .collect();
        move |name| variables.get(name).cloned()
    }

    fn secret_in(dir: &tempfile::TempDir, content: &str) -> String {
        let path = dir.path().join("secret");
        std::fs::write(&path, content).unwrap();
        path.display().to_string()
    }

    #[test]
    fn the_content_is_the_secret_without_its_trailing_line_end() {
        let dir = tempfile::tempdir().unwrap();
        for (content, secret) in [
            ("s3cret\n", "s3cret"),
            ("s3cret\r\n", "s3cret"),
            ("s3cret", "s3cret"),
            (" two words \n\n", " two words "),
            ("line one\nline two\n", "line one\nline two"),
        ] {
            let path = secret_in(&dir, content);
            assert_eq!(parse(&path).unwrap().expose_secret(), secret, "{content:?}");
        }
    }

    #[test]
    fn an_unreadable_or_empty_file_is_refused_saying_why() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing").display().to_string();
        let err = parse(&missing).unwrap_err();
        assert!(err.starts_with("cannot read it: "), "{err}");
        let empty = secret_in(&dir, "\n");
        assert_eq!(parse(&empty).unwrap_err(), "the file is empty");
    }

    #[test]
    fn a_checked_secret_is_checked_after_reading() {
        let dir = tempfile::tempdir().unwrap();
        let check = parse_with(|value| {
            if value.starts_with("postgres://") {
                Ok(value.into())
            } else {
                Err("expected postgres://".into())
            }
        });
        let good = secret_in(&dir, "postgres://db/auth\n");
        assert_eq!(check(&good).unwrap().expose_secret(), "postgres://db/auth");
        let bad = secret_in(&dir, "mysql://db/auth-password\n");
        let err = check(&bad).unwrap_err();
        assert_eq!(err, "expected postgres://");
    }

    #[test]
    fn resolve_takes_either_form_and_refuses_both_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = secret_in(&dir, "from-file\n");
        let direct = resolve(
            "AWS_SECRET_ACCESS_KEY",
            environment(&[("AWS_SECRET_ACCESS_KEY", "direct")]),
        );
        assert_eq!(direct.unwrap().unwrap().expose_secret(), "direct");
        let from_file = resolve(
            "AWS_SECRET_ACCESS_KEY",
            environment(&[("AWS_SECRET_ACCESS_KEY_FILE", &path)]),
        );
        assert_eq!(from_file.unwrap().unwrap().expose_secret(), "from-file");
        assert!(
            resolve("AWS_SECRET_ACCESS_KEY", environment(&[]))
                .unwrap()
                .is_none()
        );
        let both = resolve(
            "AWS_SECRET_ACCESS_KEY",
            environment(&[
                ("AWS_SECRET_ACCESS_KEY", "direct"),
                ("AWS_SECRET_ACCESS_KEY_FILE", &path),
            ]),
        )
        .unwrap_err();
        assert_eq!(
            both,
            "AWS_SECRET_ACCESS_KEY and AWS_SECRET_ACCESS_KEY_FILE are both set: give the secret one way"
        );
    }

    #[test]
    fn resolve_names_the_variable_and_path_of_an_unreadable_file() {
        let err = resolve(
            "AWS_SECRET_ACCESS_KEY",
            environment(&[("AWS_SECRET_ACCESS_KEY_FILE", "/nonexistent/s3/secret")]),
        )
        .unwrap_err();
        assert!(
            err.starts_with("AWS_SECRET_ACCESS_KEY_FILE=/nonexistent/s3/secret: cannot read it: "),
            "{err}"
        );
    }
}
