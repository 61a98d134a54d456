//! `tinyaot rust MODEL -o FILE.rs [--name Net] [--runtime-path PATH]`.

use std::path::Path;

use tinyaot_codegen::config::{file_stem, read_model};
use tinyaot_codegen::emit::files::{write_file, Written};
use tinyaot_codegen::Config;

use crate::args::with_limit_options;
use crate::{Args, Failure};

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(
        args,
        &with_limit_options(&["--output|-o", "--name", "--runtime-path"]),
    )?;
    let model = Path::new(args.model()?);
    let output = args
        .get("--output")
        .ok_or_else(|| Failure::Usage("missing `-o FILE.rs`".to_string()))?;
    let mut config = Config::new();
    config.limits(args.limits()?);
    if let Some(name) = args.get("--name") {
        config.name(name);
    }
    if let Some(path) = args.get("--runtime-path") {
        config.runtime_path(path);
    }
    let bytes = read_model(model)?;
    let source = config.generate_source(&bytes, &file_stem(model)?)?;
    // Streamed: the constant data is encoded as it is written, never held whole.
    match write_file(Path::new(output), &source) {
        Ok(Written::Bytes(bytes)) => eprintln!("wrote {output} ({bytes} bytes of Rust)"),
        Ok(Written::Unchanged) => eprintln!("{output} is up to date"),
        Err(e) => return Err(Failure::Refused(format!("{output}: {e}"))),
    }
    Ok(())
}
