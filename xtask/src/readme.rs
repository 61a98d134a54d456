//! README tables written by the commands that measure them: each lives between
//! `<!-- NAME:begin -->` and `<!-- NAME:end -->` in README.md, and `--update-readme` replaces
//! what is between the markers (markers kept), so no figure in the README is typed by hand.

use std::path::Path;

/// Replaces the body of the `name` block of `<root>/README.md` with `body` (which should say
/// which command produced it). Fails when the markers are missing or out of order, leaving the
/// file untouched.
pub fn replace_block(root: &Path, name: &str, body: &str) -> Result<(), String> {
    let begin = format!("<!-- {name}:begin -->");
    let end = format!("<!-- {name}:end -->");
    let readme = root.join("README.md");
    let text =
        std::fs::read_to_string(&readme).map_err(|e| format!("{}: {e}", readme.display()))?;
    let updated = splice(&text, &begin, &end, body)
        .ok_or_else(|| format!("README.md has no {begin} … {end} block to replace"))?;
    std::fs::write(&readme, updated).map_err(|e| format!("{}: {e}", readme.display()))?;
    eprintln!("README.md: the {name} block is updated");
    Ok(())
}

/// `text` with what lies between `begin` and `end` replaced by `body`, set off by blank lines.
fn splice(text: &str, begin: &str, end: &str, body: &str) -> Option<String> {
    splice_lines(
        text,
        begin,
        end,
        &format!("\n{}\n", body.trim_matches('\n')),
    )
}

/// `text` with what lies between the first `begin` and the `end` after it replaced by `body` on
/// lines of its own (the kernel generator's, which uses it for the marked blocks it writes into
/// Rust files).
pub use tinyaot_kernelgen::splice_lines;

#[cfg(test)]
mod tests {
    use super::splice;

    #[test]
    fn replaces_only_the_block() {
        let text = "a\n<!-- t:begin -->\nold\n<!-- t:end -->\nz\n";
        assert_eq!(
            splice(text, "<!-- t:begin -->", "<!-- t:end -->", "new\n").unwrap(),
            "a\n<!-- t:begin -->\n\nnew\n\n<!-- t:end -->\nz\n"
        );
    }

    #[test]
    fn missing_or_reversed_markers_are_refused() {
        assert!(splice("x", "<!-- t:begin -->", "<!-- t:end -->", "y").is_none());
        let reversed = "<!-- t:end --> <!-- t:begin -->";
        assert!(splice(reversed, "<!-- t:begin -->", "<!-- t:end -->", "y").is_none());
    }
}
