//! `tinyaot plan MODEL [--format text|json] [--svg FILE]`: the memory plan, as a table or JSON on
//! stdout, and optionally drawn as SVG. The views themselves are tinyaot-codegen's
//! [`PlanReport`]. With several models (`tinyaot plan A B [--keep A:output0]`), each model's plan
//! and the sizes of the group sharing one arena ([`tinyaot_codegen::GroupPlan`]).

use std::path::Path;

use tinyaot_codegen::config::{read_model, write_if_changed};
use tinyaot_codegen::{Config, PlanReport};

use crate::args::with_limit_options;
use crate::group::{is_group, members, Naming};
use crate::{Args, Failure};

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(
        args,
        &with_limit_options(&["--format", "--svg", "--group", "--keep+"]),
    )?;
    let mut config = Config::new();
    config.limits(args.limits()?).planning(args.planning()?);
    let json = match args.get("--format").unwrap_or("text") {
        "text" => false,
        "json" => true,
        other => {
            return Err(Failure::Usage(format!(
                "unknown format `{other}` (expected text or json)"
            )))
        }
    };
    if is_group(&args) {
        if args.get("--svg").is_some() {
            return Err(Failure::Usage(
                "--svg draws one model's plan: give one MODEL".to_string(),
            ));
        }
        if let Some(group) = args.get("--group") {
            config.group_name(group);
        }
        let plan = config.plan_group(&members(&args, Naming::Stem)?)?;
        print!("{}", if json { plan.json() } else { plan.text() });
        return Ok(());
    }
    let model = Path::new(args.model()?);
    let bytes = read_model(model)?;
    let report: PlanReport = config.plan(&bytes)?;
    if let Some(svg) = args.get("--svg") {
        let title = model.file_name().map_or_else(
            || model.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        // Written whole or not at all (tinyaot-codegen's emit::files): a failure leaves no partial
        // drawing.
        write_if_changed(Path::new(svg), report.svg(&title).as_bytes())?;
    }
    if json {
        print!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    Ok(())
}
