//! The parsers of the `strider` command, as a library so that they can be fuzzed and tested on their own: `.npy`
//! files as strider tensors, and NumPy-style slice expressions as DML_SLICE1 windows. The command itself is
//! `src/main.rs`.

pub mod npy;
pub mod window;

/// `n dimensions`, or `1 dimension`, for messages.
pub fn dimensions(n: usize) -> String {
    match n {
        1 => "1 dimension".to_owned(),
        n => format!("{n} dimensions"),
    }
}

/// Puts a completed temporary file in place of `path`, readable as a file created the usual way would be
/// (temporary files are created private).
///
/// # Errors
///
/// When the rename or the permission change fails.
pub fn persist(tmp: tempfile::NamedTempFile, path: &std::path::Path) -> anyhow::Result<()> {
    let file = tmp.persist(path).map_err(|e| anyhow::anyhow!("cannot write {}: {}", path.display(), e.error))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    drop(file);
    Ok(())
}
