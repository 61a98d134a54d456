//! `tinyaot plan MODEL [--format text|json] [--svg FILE]`: the memory plan, as a table or JSON on
//! stdout, and optionally drawn as SVG. The views themselves are [`crate::plan::report`].

use std::path::Path;

use super::args::with_limit_options;
use super::{Args, Failure};
use crate::config::{plan_model, read_model, write_if_changed};
use crate::plan::report;

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(args, &with_limit_options(&["--format", "--svg"]))?;
    let limits = args.limits()?;
    let model = Path::new(args.model()?);
    let json = match args.get("--format").unwrap_or("text") {
        "text" => false,
        "json" => true,
        other => {
            return Err(Failure::Usage(format!(
                "unknown format `{other}` (expected text or json)"
            )))
        }
    };
    let bytes = read_model(model)?;
    let (graph, plan) = plan_model(&bytes, &limits)?;
    if let Some(svg) = args.get("--svg") {
        let title = model.file_name().map_or_else(
            || model.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        // Written whole or not at all (crate::emit::files): a failure leaves no partial drawing.
        write_if_changed(
            Path::new(svg),
            report::svg(&graph, &plan, &title).as_bytes(),
        )?;
    }
    if json {
        print!("{}", report::json(&graph, &plan));
    } else {
        print!("{}", report::text(&graph, &plan));
    }
    Ok(())
}
