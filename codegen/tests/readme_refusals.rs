//! The README's "Refused as invalid" list agrees with [`Grounds`]: it quotes the three bracketed
//! endings of an `invalid model:` message as `Display` writes them, and every rule it lists names
//! its ground (*TFLM*, *UB* or *spec*).

use tinyaot_codegen::Grounds;

/// The README's "Refused as invalid" section.
fn section() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let start = readme
        .find("**Refused as invalid.**")
        .expect("README has a \"Refused as invalid.\" section");
    let end = start
        + readme[start..]
            .find("**Refused as unsupported**")
            .expect("the section ends at \"Refused as unsupported\"");
    readme[start..end].to_string()
}

#[test]
fn the_readme_quotes_each_ground_as_messages_end() {
    // The README wraps lines: compare with whitespace collapsed.
    let text = section().split_whitespace().collect::<Vec<_>>().join(" ");
    for (grounds, placeholder) in [
        (
            Grounds::tflm("<the TFLM function and check>"),
            "the TFLM function and check",
        ),
        (
            Grounds::undefined("<what is undefined, and where>"),
            "what is undefined, and where",
        ),
        (Grounds::spec("<the clause>"), "the clause"),
    ] {
        let ending = format!("`[{grounds}]`");
        assert!(
            text.contains(&ending),
            "the README does not quote the {} ending {ending} ({placeholder})",
            grounds.kind()
        );
    }
}

#[test]
fn every_rule_in_the_readme_names_its_ground() {
    let section = section();
    let rules: Vec<&str> = section
        .split("\n- ")
        .skip(1)
        .map(|rule| rule.trim())
        .collect();
    assert!(rules.len() >= 6, "only {} rules", rules.len());
    for rule in rules {
        assert!(
            ["(*TFLM*", "(*UB*", "(*spec*"]
                .iter()
                .any(|tag| rule.contains(tag)),
            "a rule in the README's \"Refused as invalid\" list names no ground: {rule}"
        );
    }
}
