//! `tinyaot rust MODEL -o FILE.rs [--name Net] [--runtime-path PATH]`, and for several models
//! sharing one arena `tinyaot rust A B -o FILE.rs [--name A --name B] [--group Models]
//! [--keep A:output0]`.

use std::path::Path;

use tinyaot_codegen::config::{file_stem, read_model};
use tinyaot_codegen::emit::files::{write_file, Written};
use tinyaot_codegen::emit::Source;
use tinyaot_codegen::Config;

use crate::args::with_limit_options;
use crate::group::{is_group, members, Naming};
use crate::{Args, Failure};

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(
        args,
        &with_limit_options(&[
            "--output|-o",
            "--name+",
            "--runtime-path",
            "--group",
            "--keep+",
        ]),
    )?;
    let output = args
        .get("--output")
        .ok_or_else(|| Failure::Usage("missing `-o FILE.rs`".to_string()))?;
    let mut config = Config::new();
    config.limits(args.limits()?).planning(args.planning()?);
    if let Some(path) = args.get("--runtime-path") {
        config.runtime_path(path);
    }
    if is_group(&args) {
        if let Some(group) = args.get("--group") {
            config.group_name(group);
        }
        let models = members(&args, Naming::Rust)?;
        let source = config.generate_group(&models)?;
        return write(output, &Source::raw(source.as_bytes()));
    }
    let model = Path::new(args.model()?);
    match args.all("--name").as_slice() {
        [] => {}
        [name] => {
            config.name(*name);
        }
        _ => return Err(Failure::Usage("option `--name` given twice".to_string())),
    }
    let bytes = read_model(model)?;
    let source = config.generate_source(&bytes, &file_stem(model)?)?;
    // Streamed: the constant data is encoded as it is written, never held whole.
    write(output, &source)
}

/// Writes `source` to `output` whole or not at all, and says what was done.
fn write(output: &str, source: &Source) -> Result<(), Failure> {
    match write_file(Path::new(output), source) {
        Ok(Written::Bytes(bytes)) => eprintln!("wrote {output} ({bytes} bytes of Rust)"),
        Ok(Written::Unchanged) => eprintln!("{output} is up to date"),
        Err(e) => return Err(Failure::Refused(format!("{output}: {e}"))),
    }
    Ok(())
}
