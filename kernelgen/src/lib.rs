//! tinyaot's kernel generator, run as `cargo kernels [--check]` (an alias in .cargo/config.toml;
//! `cargo xtask kernels [--check]` is the same command): everything about the kernels that derives
//! from the Rust runtime's parameter structs and entry points and from the file layout of the
//! kernel families, written into the checked-in files (see [`run`]).
//!
//! It is a crate of its own that depends on no crate of the project: it reads the runtime's
//! sources as text with `syn`, and writes into the code generator's sources. So it builds and runs
//! while the code generator does not compile, which is exactly when a new kernel's constructors,
//! or a renamed struct's, are not generated yet.

#![deny(missing_docs)]

mod kernels;
mod parity_gen;

use std::path::{Path, PathBuf};

pub use kernels::run;

/// The repository: the parent of `kernelgen/`.
pub fn workspace_root() -> Result<PathBuf, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "kernelgen/ has no parent".to_string())
}

/// `text` with what lies between the first `begin` and the `end` after it replaced by `body` on
/// lines of its own: `begin`, a line break, `body`, a line break, `end`. `None` when a marker is
/// missing or `end` comes first. Used for the marked blocks that the generator writes into
/// hand-written Rust files, and by xtask for the README's blocks.
pub fn splice_lines(text: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    let b = text.find(begin)?;
    let e = text[b..].find(end)? + b;
    Some(format!(
        "{}{begin}\n{body}\n{end}{}",
        &text[..b],
        &text[e + end.len()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::splice_lines;

    #[test]
    fn splices_between_the_markers() {
        let text = "a\n// begin\nold\n// end\nz\n";
        assert_eq!(
            splice_lines(text, "// begin", "// end", "new").unwrap(),
            "a\n// begin\nnew\n// end\nz\n"
        );
        assert!(splice_lines("// end // begin", "// begin", "// end", "x").is_none());
    }

    /// The checked-in generated files are what the runtime gives (as `cargo kernels --check`
    /// says), so `cargo test --workspace` fails on drift too.
    #[test]
    fn generated_files_are_up_to_date() {
        crate::run(&["--check".to_string()]).unwrap();
    }
}
