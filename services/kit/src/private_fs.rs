//! Files and directories only their owner reads (issue 37): the data
//! directory holds password hashes, private keys and every record, so it is
//! created `0700` and each database and key file `0600`, whatever the umask;
//! a backup likewise. Unix permissions; elsewhere they are left as they come.

use std::io::Write;
use std::path::Path;

/// Creates `dir` (and its parents) readable by its owner only; an existing
/// one is made so too.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    restrict(dir, 0o700)
}

/// Writes `bytes` to a new file at `path` readable by its owner only.
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// Makes the file at `path` readable by its owner only, creating it empty
/// first when there is none (before SQLite does, which would follow the
/// umask; its `-wal` and `-shm` files then take the database file's mode).
pub fn own_file(path: &Path) -> std::io::Result<()> {
    match write_new(path, b"") {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => restrict(path, 0o600),
        Err(error) => Err(error),
    }
}

/// Takes every permission but the owner's off `path`.
pub fn restrict(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
        if current != mode {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_directory_and_its_files_are_the_owners_alone_new_or_found() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data/inner");
        create_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        create_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);

        let database = dir.join("auth.db");
        own_file(&database).unwrap();
        assert_eq!(mode(&database), 0o600);
        std::fs::write(&database, b"kept").unwrap();
        std::fs::set_permissions(&database, std::fs::Permissions::from_mode(0o644)).unwrap();
        own_file(&database).unwrap();
        assert_eq!(mode(&database), 0o600);
        assert_eq!(std::fs::read(&database).unwrap(), b"kept");

        let key = dir.join("key");
        write_new(&key, b"secret").unwrap();
        assert_eq!(mode(&key), 0o600);
        assert!(write_new(&key, b"again").is_err(), "never overwritten");
    }
}
