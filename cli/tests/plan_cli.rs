//! `tinyaot plan` end to end: text, JSON and SVG on a reference model, and failures that print
//! `error:`, exit non-zero and leave no file behind.

mod common;

use std::process::{Command, Output};

fn tinyaot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tinyaot"))
        .args(args)
        .output()
        .expect("run tinyaot")
}

/// The reference model person_detect, or `None` when the shared data is missing (the test then
/// skips, saying so; in CI it fails).
fn person_detect() -> Option<String> {
    let shared = tinyaot_test_support::shared_dir_or_skip("`tinyaot plan` on person_detect")?;
    Some(
        shared
            .join("models/person_detect.tflite")
            .to_string_lossy()
            .into_owned(),
    )
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "tinyaot failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn text_table_and_summary() {
    let Some(person_detect) = person_detect() else {
        return;
    };
    let out = stdout(&tinyaot(&["plan", &person_detect]));
    let header = out.lines().next().unwrap_or_default();
    for column in ["index", "name", "bytes", "offset", "first op", "last op"] {
        assert!(header.contains(column), "no {column} column: {header}");
    }
    // By default outputs overlap the inputs they are the last to read, below the bound.
    assert!(out.contains("arena:              36,880 bytes"), "{out}");
    assert!(out.contains("lower bound:        55,296 bytes"), "{out}");
    assert!(
        out.contains("below bound:        18,416 bytes (33.30%), by 2 overlaps"),
        "{out}"
    );
    assert!(
        out.contains("overlaps #51 (stream, operator 2, 18448 bytes below it)"),
        "{out}"
    );
    // --no-overlap: the plan at the bound.
    let bound = stdout(&tinyaot(&["plan", &person_detect, "--no-overlap"]));
    assert!(
        bound.contains("arena:              55,296 bytes"),
        "{bound}"
    );
    assert!(
        bound.contains("above bound:             0 bytes (0.00%)"),
        "{bound}"
    );
    assert!(!bound.contains("overlaps #"), "{bound}");
    // The graph input exists before the first operator.
    let input = out
        .lines()
        .find(|l| l.contains(" input "))
        .expect("input row");
    assert!(input.split_whitespace().any(|w| w == "-1"), "{input}");
}

/// parallel_branches is written breadth-first (both branches' 16-channel tensors alive at once):
/// the plan runs one branch first, says so, and `--keep-order` keeps the file's order.
#[test]
fn operators_reordered_to_lower_the_peak() {
    let model = tinyaot_test_support::fixtures_dir()
        .join("models")
        .join("parallel_branches.tflite")
        .to_string_lossy()
        .into_owned();
    let out = stdout(&tinyaot(&["plan", &model]));
    assert!(out.contains("arena:               6,144 bytes"), "{out}");
    assert!(
        out.contains("order:        the file's operators 0, 2, 4, 1, 3, 5, 6"),
        "{out}"
    );
    let json = stdout(&tinyaot(&["plan", &model, "--format", "json"]));
    assert!(json.contains("\"order\": [0, 2, 4, 1, 3, 5, 6],"), "{json}");
    let kept = stdout(&tinyaot(&["plan", &model, "--keep-order"]));
    assert!(kept.contains("arena:               9,216 bytes"), "{kept}");
    assert!(!kept.contains("order:"), "{kept}");
    let kept = stdout(&tinyaot(&[
        "plan",
        &model,
        "--keep-order",
        "--format",
        "json",
    ]));
    assert!(!kept.contains("\"order\""), "{kept}");
}

#[test]
fn json_has_the_contract_fields() {
    let Some(person_detect) = person_detect() else {
        return;
    };
    let out = stdout(&tinyaot(&["plan", &person_detect, "--format", "json"]));
    assert!(out.contains("\"arena_bytes\": 36880,"), "{out}");
    assert!(
        out.contains("{\"op\": 2, \"input\": 51, \"output\": 54, \"kind\": \"stream\"}"),
        "{out}"
    );
    assert!(out.contains("\"lower_bound_bytes\": 55296,"), "{out}");
    assert!(out.contains("\"state_bytes\": 0,"), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("{\"index\""))
        .collect();
    assert_eq!(rows.len(), 32, "one row per arena tensor");
    for row in &rows {
        for key in [
            "\"name\": \"",
            "\"bytes\": ",
            "\"offset\": ",
            "\"first_op\": ",
            "\"last_op\": ",
        ] {
            assert!(row.contains(key), "{key} missing in {row}");
        }
    }
    assert!(out.trim_end().ends_with('}'));
    let opens = out.matches(['{', '[']).count();
    let closes = out.matches(['}', ']']).count();
    assert_eq!(opens, closes, "unbalanced JSON");
}

#[test]
fn svg_is_written_whole() {
    let Some(person_detect) = person_detect() else {
        return;
    };
    let dir = common::scratch("svg");
    let svg = dir.join("plan.svg");
    let svg_arg = svg.to_string_lossy().into_owned();
    stdout(&tinyaot(&["plan", &person_detect, "--svg", &svg_arg]));
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.starts_with("<svg "));
    assert!(text.ends_with("</svg>\n"));
    assert!(text.matches("<rect ").count() > 32, "one box per tensor");
    // The two overlaps the arena needs, hatched in their operators' columns.
    assert_eq!(text.matches("fill=\"url(#overlap)\"").count(), 2, "{text}");
    assert_eq!(
        std::fs::read_dir(&dir).expect("list").count(),
        1,
        "no temporary file left"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failures_say_error_and_leave_no_file() {
    let dir = common::scratch("fail");
    let junk = dir.join("junk.tflite");
    std::fs::write(&junk, b"not a model at all").expect("write junk");
    // Any model that plans: a fixture, so that this test needs no shared data.
    let model = tinyaot_test_support::fixtures_dir()
        .join("models/ds_cnn.tflite")
        .to_string_lossy()
        .into_owned();
    let svg = dir.join("out.svg");
    let (junk, svg_arg) = (
        junk.to_string_lossy().into_owned(),
        svg.to_string_lossy().into_owned(),
    );

    let cases: [&[&str]; 4] = [
        &["plan", &junk, "--svg", &svg_arg],
        &["plan", "/nonexistent/model.tflite", "--svg", &svg_arg],
        &["plan", &model, "--format", "xml", "--svg", &svg_arg],
        &["plan"],
    ];
    for args in cases {
        let o = tinyaot(args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        assert!(!svg.exists(), "{args:?} left {}", svg.display());
    }

    let missing_dir = dir.join("no/such/dir/out.svg");
    let o = tinyaot(&["plan", &model, "--svg", &missing_dir.to_string_lossy()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error:"));
    assert_eq!(
        std::fs::read_dir(&dir).expect("list").count(),
        1,
        "only the junk model is left"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
