//! A small argument parser: one positional MODEL and `--flag VALUE` options, each allowed once.

use super::Failure;

/// Parsed arguments of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    /// Positional arguments, in order.
    pub positional: Vec<String>,
    options: Vec<(&'static str, String)>,
}

impl Args {
    /// Parses `args`, accepting the options in `allowed` (long names with their dashes; an entry may
    /// list a short alias after a `|`, as in `"--output|-o"`; the long name is what [`Args::get`]
    /// takes).
    pub fn parse(args: &[String], allowed: &[&'static str]) -> Result<Args, Failure> {
        let mut parsed = Args::default();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            if !arg.starts_with('-') || arg == "-" {
                parsed.positional.push(arg.clone());
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_string())),
                None => (arg.as_str(), None),
            };
            let Some(long) = allowed
                .iter()
                .find(|spec| spec.split('|').any(|name| name == flag))
                .map(|spec| spec.split('|').next().unwrap_or(spec))
            else {
                return Err(Failure::Usage(format!("unknown option `{flag}`")));
            };
            let value = match inline {
                Some(value) => value,
                None => iter
                    .next()
                    .cloned()
                    .ok_or_else(|| Failure::Usage(format!("option `{long}` needs a value")))?,
            };
            if parsed.get(long).is_some() {
                return Err(Failure::Usage(format!("option `{long}` given twice")));
            }
            parsed.options.push((long, value));
        }
        Ok(parsed)
    }

    /// The value of option `long` (e.g. `"--format"`), if given.
    pub fn get(&self, long: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(name, _)| *name == long)
            .map(|(_, value)| value.as_str())
    }

    /// The single positional MODEL argument.
    pub fn model(&self) -> Result<&str, Failure> {
        match self.positional.as_slice() {
            [model] => Ok(model),
            [] => Err(Failure::Usage("missing MODEL argument".to_string())),
            more => Err(Failure::Usage(format!(
                "expected one MODEL argument, got {}",
                more.len()
            ))),
        }
    }
}
