//! Writes the hostile-model suite into a directory: `<name>.tflite` per case, and `cases.tsv`
//! (name, category, expected outcome), for running the cases through other tools (TFLM, the
//! `tinyaot` command line).
//!
//! ```text
//! cargo run -p tinyaot-modelkit --example hostile -- OUT_DIR
//! ```

use std::fmt::Write as _;
use std::path::PathBuf;

use tinyaot_modelkit::hostile::{cases, Expect};

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: hostile OUT_DIR");
        std::process::exit(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: {}: {e}", dir.display());
        std::process::exit(1);
    }
    let mut index = String::from("name\tcategory\texpect\n");
    for case in cases() {
        let path = dir.join(format!("{}.tflite", case.name));
        if let Err(e) = std::fs::write(&path, &case.model) {
            eprintln!("error: {}: {e}", path.display());
            std::process::exit(1);
        }
        let expect = match &case.expect {
            Expect::Accepted => "accepted".to_string(),
            Expect::Refused(kind, mentions) => format!("refused {kind:?}: {mentions}"),
        };
        let _ = writeln!(index, "{}\t{:?}\t{expect}", case.name, case.category);
    }
    if let Err(e) = std::fs::write(dir.join("cases.tsv"), index) {
        eprintln!("error: {}: {e}", dir.display());
        std::process::exit(1);
    }
}
