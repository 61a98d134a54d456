//! The arguments of a group of models sharing one arena (`tinyaot plan|rust|c A B …`): the models
//! with their names, and what each keeps out of the shared arena (`--keep MODEL:IO`).

use std::path::Path;

use tinyaot_codegen::config::file_stem;
use tinyaot_codegen::GroupModel;

use crate::{Args, Failure};

/// How a command names each model of a group.
pub enum Naming {
    /// `--name`, one per model (Rust handles; default: the file stem in CamelCase).
    Rust,
    /// `--prefix`, one per model (C prefixes; default: the file stem, sanitized).
    C,
    /// The file stem, sanitized (`tinyaot plan`).
    Stem,
}

/// Whether the arguments ask for a group: several models, or `--group` or `--keep`.
pub fn is_group(args: &Args) -> bool {
    args.positional.len() > 1 || args.get("--group").is_some() || !args.all("--keep").is_empty()
}

/// The models of a group from the positional arguments, named as `naming` says, with each
/// `--keep MODEL:IO` given to the model it names (by its name or its file stem).
pub fn members(args: &Args, naming: Naming) -> Result<Vec<GroupModel>, Failure> {
    let paths = args.models()?;
    let flag = match naming {
        Naming::Rust => "--name",
        Naming::C => "--prefix",
        Naming::Stem => "",
    };
    let names = if flag.is_empty() {
        Vec::new()
    } else {
        args.all(flag)
    };
    if !names.is_empty() && names.len() != paths.len() {
        return Err(Failure::Usage(format!(
            "{} models but {} `{flag}` options: give one per model, in the models' order, or none",
            paths.len(),
            names.len()
        )));
    }
    let mut models = Vec::new();
    let mut keys = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let stem = file_stem(Path::new(path))?;
        let mut model = GroupModel::new(path);
        let name = match (&naming, names.get(i)) {
            (Naming::Rust, Some(name)) => {
                model = model.name(*name);
                name.to_string()
            }
            (Naming::C, Some(prefix)) => {
                model = model.prefix(*prefix);
                prefix.to_string()
            }
            (Naming::Rust, None) => tinyaot_codegen::emit::rust::camel_case(&stem),
            _ => tinyaot_codegen::emit::c::default_prefix(&stem),
        };
        keys.push((name, stem));
        models.push(model);
    }
    for keep in args.all("--keep") {
        let Some((who, io)) = keep.rsplit_once(':') else {
            return Err(Failure::Usage(format!(
                "`--keep {keep}`: expected MODEL:IO, e.g. kws:output0"
            )));
        };
        let matches: Vec<usize> = keys
            .iter()
            .enumerate()
            .filter(|(_, (name, stem))| name == who || stem == who)
            .map(|(i, _)| i)
            .collect();
        match matches.as_slice() {
            [i] => {
                let model = std::mem::replace(&mut models[*i], GroupModel::new(""));
                models[*i] = model.keep(io);
            }
            [] => {
                let known: Vec<&str> = keys.iter().map(|(name, _)| name.as_str()).collect();
                return Err(Failure::Usage(format!(
                    "`--keep {keep}`: no model named `{who}` (the models: {})",
                    known.join(", ")
                )));
            }
            _ => {
                return Err(Failure::Usage(format!(
                    "`--keep {keep}`: several models are named `{who}`: use their names"
                )))
            }
        }
    }
    Ok(models)
}
