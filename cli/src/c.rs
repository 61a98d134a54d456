//! `tinyaot c MODEL -o DIR [--prefix net] [--layout cmake|arduino|zephyr|esp-idf]`: self-contained
//! C99 sources in DIR, with the build files of the chosen layout (`tinyaot_codegen::CLayout`); for
//! several models sharing one arena, `tinyaot c A B -o DIR [--prefix a --prefix b] [--group models]
//! [--keep a:output0]` (sources only: a group has no build-system layout yet).
//!
//! Everything but the constant data is generated in memory first, so a refused model touches no
//! file. The files are then written whole or not at all by `tinyaot_codegen::emit::c_dir`, the
//! writer `Config::compile_c` uses too: DIR appears whole, a rerun replaces the files an earlier
//! run generated for the same prefix (removing kernels no longer needed) and leaves other files
//! alone.

use std::path::Path;

use tinyaot_codegen::config::{c_outputs_with, file_stem, read_model};
use tinyaot_codegen::emit::c::default_prefix;
use tinyaot_codegen::emit::c_build::lay_out;
use tinyaot_codegen::emit::c_dir::write_dir;
use tinyaot_codegen::{CLayout, COptions, Config};

use crate::args::with_limit_options;
use crate::group::{is_group, members, Naming};
use crate::{Args, Failure};

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(
        args,
        &with_limit_options(&["--output|-o", "--prefix+", "--group", "--keep+", "--layout"]),
    )?;
    let limits = args.limits()?;
    let layout = match args.get("--layout") {
        None => CLayout::default(),
        Some(name) => CLayout::from_name(name).ok_or_else(|| {
            Failure::Usage(format!(
                "`--layout {name}`: expected one of {}",
                CLayout::NAMES.join(", ")
            ))
        })?,
    };
    let output = args
        .get("--output")
        .ok_or_else(|| Failure::Usage("missing `-o DIR`".to_string()))?;
    if is_group(&args) {
        if args.get("--layout").is_some() {
            return Err(Failure::Usage(
                "`--layout` applies to one model: a group of models writes its sources only"
                    .to_string(),
            ));
        }
        let mut config = Config::new();
        config
            .limits(limits)
            .planning(args.planning()?)
            .out_dir(output);
        if let Some(group) = args.get("--group") {
            config.group_name(group);
        }
        let models = members(&args, Naming::C)?;
        let files = config.compile_group_c(&models)?;
        let names: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        eprintln!(
            "wrote {} files to {output} ({})",
            files.len(),
            names.join(" ")
        );
        return Ok(());
    }
    let model = Path::new(args.model()?);
    let prefix = match args.all("--prefix").as_slice() {
        [] => None,
        [prefix] => Some(prefix.to_string()),
        _ => return Err(Failure::Usage("option `--prefix` given twice".to_string())),
    };
    let stem = file_stem(model)?;
    let options = COptions {
        prefix: prefix.unwrap_or_else(|| default_prefix(&stem)),
        source_name: model
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("model.tflite")
            .to_string(),
    };
    let bytes = read_model(model)?;
    let files = c_outputs_with(&bytes, &options, &limits, &args.planning()?)?;
    let files = lay_out(layout, &options, files)?;
    write_dir(Path::new(output), &options.prefix, &files)?;
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    let header = files
        .first()
        .map_or_else(String::new, |(_, source)| source.clone().into_string());
    let summary = summary_numbers(&header);
    eprintln!(
        "wrote {} files to {output} ({}); arena {} bytes, weights {} bytes",
        files.len(),
        names.join(" "),
        summary.0,
        summary.1
    );
    Ok(())
}

/// Arena and weight bytes, read back from the header's macros (the one place they are rendered).
fn summary_numbers(header: &str) -> (String, String) {
    let find = |suffix: &str| {
        header
            .lines()
            .find_map(|line| {
                let rest = line.strip_prefix("#define ")?;
                let (name, value) = rest.split_once(' ')?;
                name.ends_with(suffix)
                    .then(|| value.trim().trim_end_matches('u').to_string())
            })
            .unwrap_or_else(|| "?".to_string())
    };
    (find("_ARENA_BYTES"), find("_WEIGHTS_BYTES"))
}
