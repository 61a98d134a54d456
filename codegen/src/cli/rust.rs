//! `tinyaot rust MODEL -o FILE.rs [--name Net] [--runtime-path PATH]`.

use std::path::Path;

use super::{Args, Failure};
use crate::config::{file_stem, read_model, write_if_changed};
use crate::Config;

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(args, &["--output|-o", "--name", "--runtime-path"])?;
    let model = Path::new(args.model()?);
    let output = args
        .get("--output")
        .ok_or_else(|| Failure::Usage("missing `-o FILE.rs`".to_string()))?;
    let mut config = Config::new();
    if let Some(name) = args.get("--name") {
        config.name(name);
    }
    if let Some(path) = args.get("--runtime-path") {
        config.runtime_path(path);
    }
    let bytes = read_model(model)?;
    let source = config.generate(&bytes, &file_stem(model)?)?;
    write_if_changed(Path::new(output), source.as_bytes())?;
    eprintln!("wrote {output} ({} bytes of Rust)", source.len());
    Ok(())
}
