//! `cargo xtask cost-model`: fits the instruction cost model of `tinyaot report` and writes it to
//! `cli/src/cost_model.tsv` (which the command line compiles in), with its error on models the fit
//! never saw.
//!
//! The measurements are `cargo xtask mcu --profile`'s: every operator's instructions (generated
//! Rust, case 0) on each core, for the training models and the held-out ones, run here (or read
//! from the JSON of earlier runs with `--from`). Each operator is keyed by the kernel function its
//! lowering chose and described by tinyaot-codegen's [`Features`] (MACs, elements). Per core and
//! kernel function, instructions = a·MACs + b·elements + c is fitted by least squares to the
//! training models' operators, with no coefficient below zero (a negative one is dropped and the
//! rest refitted: a kernel cannot gain instructions back per MAC); per kernel family (module) and
//! per core alike, for kernels a model uses that the training set never ran. The instructions of
//! one inference outside the operators (the invoke's own) are the median over the training
//! models. Then each held-out model is estimated with the very estimator `tinyaot report` uses
//! ([`CostModel::estimate`]) and compared with its measured instructions per inference; that
//! table goes to the data file and to README.md's `cost-model` block.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tinyaot_codegen::cost::{kernel_of, CostModel, Features, Fit, HeldOut, Level};
use tinyaot_codegen::Config;

use crate::cores;

/// The models the coefficients are fitted to by default: the README's int8 CNNs and MLPs besides
/// the held-out ones, with the kernels those use.
const TRAINING: &[&str] = &[
    "sine_mlp",
    "micro_speech_like",
    "resnet8",
    "mobilenet_v1_025",
    "mobilenet_v2_035",
    "mobilenet_pruned",
    "autoencoder",
    "hello_world_int8",
    "micro_speech_quantized",
    "vww_mobilenet_v1_025",
    "ad_autoencoder",
    "keyword_scrambled",
    // Small fixtures, one or a few operators each: the kernels the CNNs above never run (padding,
    // transposes, reductions, activations, resizing), and convolution shapes they lack.
    "pad",
    "padv2",
    "mirror_pad",
    "transpose",
    "mean",
    "reduce_sum",
    "pool_same_odd",
    "add_sub_same_shape",
    "add_sub_mul_broadcast",
    "softmax",
    "concatenation",
    "strided_slice",
    "conv_stride2_same_odd",
    "conv_dilation2",
    "conv_wide_window",
    "depthwise_multiplier",
    "transpose_conv",
    "fused_activations",
    "relu_relu6",
    "logistic",
    "tanh",
    "hard_swish",
    "resize_nearest",
    "parallel_branches",
    "tiny_unet",
    "fc_keep_num_dims",
];

/// The models left out of the fit by default, on which the error is measured: the three.
const HELD_OUT: &[&str] = &[
    "person_detect",
    "ds_cnn",
    "mobilenet_v2_quantized_1x3x224x224",
];

/// Where the command line reads the model from.
const DATA: &str = "cli/src/cost_model.tsv";

/// One measured operator.
struct Sample {
    kernel: (&'static str, &'static str),
    features: Features,
    instructions: f64,
}

/// One model's measurements on one core.
struct Measured {
    model: String,
    /// Instructions per inference (the slowest case, as `cargo xtask mcu` reports it).
    total: u64,
    samples: Vec<Sample>,
}

/// Runs the command with its arguments (after `cost-model`).
pub fn run(args: &[String]) -> Result<(), String> {
    // Every core the report estimates for: the data file is the whole model.
    let mut core_names = "all".to_string();
    let mut training: Vec<String> = TRAINING.iter().map(|s| s.to_string()).collect();
    let mut held_out: Vec<String> = HELD_OUT.iter().map(|s| s.to_string()).collect();
    let mut from: Vec<PathBuf> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = |flag: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        let list = |v: String| -> Vec<String> {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        };
        match arg.as_str() {
            "--core" => core_names = value("--core")?,
            "--models" => training = list(value("--models")?),
            "--held-out" => held_out = list(value("--held-out")?),
            "--from" => from.push(PathBuf::from(value("--from")?)),
            other => return Err(format!("cost-model: unknown argument `{other}`")),
        }
    }
    let root = crate::workspace_root()?;
    let shared = tinyaot_test_support::find_shared_dir()?;
    let json_files = if from.is_empty() {
        let out = crate::target_dir(&root).join("cost-model.json");
        let mut all = training.clone();
        all.extend(held_out.iter().cloned());
        let mcu_args: Vec<String> = [
            "--profile",
            "--core",
            &core_names,
            "--models",
            &all.join(","),
            "--json",
            &out.to_string_lossy(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        crate::mcu::run(&mcu_args)?;
        vec![out]
    } else {
        from.clone()
    };
    let mut per_core: Vec<(String, Vec<Measured>)> = Vec::new();
    for file in &json_files {
        let text = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let json: Value =
            serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let runs = match json["cores"].as_array() {
            Some(list) => list.clone(),
            None => vec![json],
        };
        for run in runs {
            let core = run["core"]
                .as_str()
                .ok_or_else(|| format!("{}: no `core`", file.display()))?
                .to_string();
            let models = measured(&root, &shared, &run)?;
            match per_core.iter_mut().find(|(c, _)| *c == core) {
                Some((_, list)) => list.extend(models),
                None => per_core.push((core, models)),
            }
        }
    }
    // In the order of `cargo xtask mcu --core all`.
    per_core.sort_by_key(|(c, _)| cores::CORES.iter().position(|k| k.name == c));
    let mut model = CostModel {
        source: source_line(
            &per_core
                .iter()
                .map(|(c, _)| c.as_str())
                .collect::<Vec<_>>()
                .join(","),
            &training,
            &held_out,
            &from,
        ),
        fitted: training.clone(),
        ..CostModel::default()
    };
    for (core, runs) in &per_core {
        let title = cores::CORES
            .iter()
            .find(|k| k.name == core)
            .map_or(core.clone(), |k| k.title.to_string());
        let train: Vec<&Measured> = runs
            .iter()
            .filter(|m| training.contains(&m.model))
            .collect();
        if train.is_empty() {
            return Err(format!("{core}: no training model was measured"));
        }
        for name in &training {
            if !train.iter().any(|m| &m.model == name) {
                return Err(format!("{core}: training model {name} was not measured"));
            }
        }
        model.cores.push((core.clone(), title));
        model.fits.extend(fit_core(core, &train));
        let mut outside: Vec<f64> = train
            .iter()
            .map(|m| m.total as f64 - m.samples.iter().map(|s| s.instructions).sum::<f64>())
            .collect();
        outside.sort_by(f64::total_cmp);
        model
            .overhead
            .push((core.clone(), outside[outside.len() / 2].max(0.0)));
    }
    // The held-out error, with the estimator the report uses.
    for (core, runs) in &per_core {
        for name in &held_out {
            let Some(m) = runs.iter().find(|m| &m.model == name) else {
                return Err(format!("{core}: held-out model {name} was not measured"));
            };
            let bytes = std::fs::read(model_path(&root, &shared, name)?)
                .map_err(|e| format!("{name}: {e}"))?;
            let plan = Config::new().plan(&bytes).map_err(|e| e.to_string())?;
            let calls = plan
                .calls()
                .ok_or_else(|| format!("{name}: does not compile"))?;
            let (_, total) = model
                .estimate(core, plan.graph(), calls)
                .ok_or_else(|| format!("{core}: no fit"))?;
            model.held_out.push(HeldOut {
                core: core.clone(),
                model: name.clone(),
                measured: m.total,
                estimated: total.round() as u64,
            });
        }
    }
    let header = "# The instruction cost model of `tinyaot report`, written by `cargo xtask \
                  cost-model` (xtask/src/cost_model.rs): never edit by hand.\n# Records (tab-\
                  separated) as tinyaot_codegen::cost::CostModel reads them: fit = core, level, \
                  module, function, instructions per MAC, per element, per call, operators fitted.\n";
    let path = root.join(DATA);
    std::fs::write(&path, model.write(header)).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut table = format!(
        "`{}` (held-out error, instructions per inference of the generated Rust):\n\n\
         | core | model | measured | estimated | error |\n|---|---|--:|--:|--:|\n",
        model.source
    );
    for h in &model.held_out {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {:+.1}% |\n",
            h.core,
            h.model,
            crate::table::thousands(h.measured),
            crate::table::thousands(h.estimated),
            h.error_percent()
        ));
    }
    println!("wrote {DATA}\n\n{table}");
    crate::readme::replace_block(&root, "cost-model", &table)?;
    Ok(())
}

/// The command line that reproduces the figures.
fn source_line(cores: &str, training: &[String], held: &[String], from: &[PathBuf]) -> String {
    let mut line = format!("cargo xtask cost-model --core {cores}");
    if training != TRAINING {
        line.push_str(&format!(" --models {}", training.join(",")));
    }
    if held != HELD_OUT {
        line.push_str(&format!(" --held-out {}", held.join(",")));
    }
    if !from.is_empty() {
        // The measurements of earlier `cargo xtask mcu --profile --json` runs (their paths are
        // the machine's, not worth recording).
        line.push_str(" --from MCU_PROFILE.json");
    }
    line
}

/// The measured operators of one core's run (`cargo xtask mcu --json`'s object for one core).
fn measured(root: &Path, shared: &Path, run: &Value) -> Result<Vec<Measured>, String> {
    let mut out = Vec::new();
    for m in run["models"].as_array().into_iter().flatten() {
        let name = m["model"].as_str().unwrap_or_default().to_string();
        let (Some(total), Some(ops)) = (
            m["rust"]["instructions"].as_u64(),
            m["operators"].as_array(),
        ) else {
            return Err(format!(
                "{name}: no Rust instructions or operators (run `cargo xtask mcu` with --profile)"
            ));
        };
        let bytes =
            std::fs::read(model_path(root, shared, &name)?).map_err(|e| format!("{name}: {e}"))?;
        let plan = Config::new().plan(&bytes).map_err(|e| e.to_string())?;
        let graph = plan.graph();
        let calls = plan
            .calls()
            .ok_or_else(|| format!("{name}: does not compile"))?;
        let mut samples = Vec::new();
        for op in ops {
            let (Some(index), Some(n)) = (op["index"].as_u64(), op["rust"].as_u64()) else {
                continue;
            };
            let Some(position) = graph
                .operators
                .iter()
                .position(|o| o.source_index as u64 == index)
            else {
                return Err(format!("{name}: no operator {index} in the plan"));
            };
            samples.push(Sample {
                kernel: kernel_of(&calls[position]),
                features: Features::of(graph, &graph.operators[position]),
                instructions: n as f64,
            });
        }
        out.push(Measured {
            model: name,
            total,
            samples,
        });
    }
    Ok(out)
}

/// Where `name` is: among the fixtures, then ../shared's models and TFLM's suite.
fn model_path(root: &Path, shared: &Path, name: &str) -> Result<PathBuf, String> {
    let places = [
        root.join("tests/fixtures/models"),
        shared.join("models"),
        shared.join("models/tflm_suite"),
    ];
    places
        .iter()
        .map(|dir| dir.join(format!("{name}.tflite")))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("no model `{name}` in tests/fixtures/models or ../shared/models"))
}

/// Every fit of one core: per kernel function, per module, and the core's own.
fn fit_core(core: &str, train: &[&Measured]) -> Vec<Fit> {
    let samples: Vec<&Sample> = train.iter().flat_map(|m| &m.samples).collect();
    let mut keys: Vec<(&str, &str)> = samples.iter().map(|s| s.kernel).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut fits = Vec::new();
    let mut fit = |level: Level, module: &str, function: &str, of: Vec<&Sample>| {
        fits.push(Fit {
            core: core.to_string(),
            level,
            module: module.to_string(),
            function: function.to_string(),
            // The core's fit stands in for kernels never measured, mostly data movement: fitted
            // to every kernel's operators alike (relative error), not to the convolutions that
            // dominate the instruction counts.
            coef: least_squares(&of, level == Level::Core),
            samples: of.len(),
            largest: Features {
                macs: of.iter().map(|s| s.features.macs).max().unwrap_or(0),
                elements: of.iter().map(|s| s.features.elements).max().unwrap_or(0),
            },
        });
    };
    for &(module, function) in &keys {
        let of = samples
            .iter()
            .copied()
            .filter(|s| s.kernel == (module, function))
            .collect();
        fit(Level::Function, module, function, of);
    }
    let mut modules: Vec<&str> = keys.iter().map(|k| k.0).collect();
    modules.dedup();
    for module in modules {
        let of = samples
            .iter()
            .copied()
            .filter(|s| s.kernel.0 == module)
            .collect();
        fit(Level::Module, module, "*", of);
    }
    fit(Level::Core, "*", "*", samples);
    fits
}

/// Non-negative least squares of instructions on [MACs, elements, 1] over `samples`: ordinary
/// least squares over the regressors that vary, dropping the most negative coefficient and
/// refitting until none is negative; with fewer samples than regressors, or a singular system,
/// the per-call constant and then the elements go first. `relative`: each operator's error in
/// proportion to its instructions (operators measured at zero left out), so that small
/// operators weigh as much as large ones.
fn least_squares(samples: &[&Sample], relative: bool) -> [f64; 3] {
    let samples: Vec<&Sample> = samples
        .iter()
        .copied()
        .filter(|s| !relative || s.instructions > 0.0)
        .collect();
    let weight = |s: &Sample| if relative { 1.0 / s.instructions } else { 1.0 };
    let rows: Vec<[f64; 3]> = samples
        .iter()
        .map(|s| s.features.row().map(|x| x * weight(s)))
        .collect();
    let y: Vec<f64> = samples.iter().map(|s| s.instructions * weight(s)).collect();
    // Regressors that are not zero throughout.
    let mut active: Vec<usize> = (0..3)
        .filter(|&j| rows.iter().any(|r| r[j] != 0.0))
        .collect();
    while active.len() > samples.len().max(1) {
        active.pop();
    }
    loop {
        if active.is_empty() {
            return [0.0; 3];
        }
        let Some(solution) = solve(&rows, &y, &active) else {
            active.pop();
            continue;
        };
        match solution
            .iter()
            .enumerate()
            .filter(|(_, &v)| v < 0.0)
            .min_by(|a, b| a.1.total_cmp(b.1))
        {
            Some((k, _)) => {
                active.remove(k);
            }
            None => {
                let mut coef = [0.0; 3];
                for (k, &j) in active.iter().enumerate() {
                    coef[j] = solution[k];
                }
                return coef;
            }
        }
    }
}

/// The least-squares coefficients of the `active` columns of `rows` against `y`, from the normal
/// equations (columns scaled to their largest value first: MACs run to 10^8 where the constant
/// is 1); `None` when singular.
fn solve(rows: &[[f64; 3]], y: &[f64], active: &[usize]) -> Option<Vec<f64>> {
    let n = active.len();
    let scale: Vec<f64> = active
        .iter()
        .map(|&j| {
            rows.iter()
                .map(|r| r[j].abs())
                .fold(0.0, f64::max)
                .max(1e-300)
        })
        .collect();
    let mut a = vec![vec![0.0; n + 1]; n];
    for (r, &t) in rows.iter().zip(y) {
        let x: Vec<f64> = active.iter().zip(&scale).map(|(&j, s)| r[j] / s).collect();
        for i in 0..n {
            for k in 0..n {
                a[i][k] += x[i] * x[k];
            }
            a[i][n] += x[i] * t;
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..n {
        let pivot = (col..n).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-9 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (row, r) in a.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / pivot_row[col];
                for (x, p) in r.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i] / scale[i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(macs: u64, elements: u64, instructions: f64) -> Sample {
        Sample {
            kernel: ("conv", "conv2d_s8"),
            features: Features { macs, elements },
            instructions,
        }
    }

    #[test]
    fn fits_an_exact_linear_model() {
        let s: Vec<Sample> = [(100, 10), (400, 30), (900, 20), (50, 70)]
            .iter()
            .map(|&(m, e)| sample(m, e, 2.0 * m as f64 + 3.0 * e as f64 + 50.0))
            .collect();
        let refs: Vec<&Sample> = s.iter().collect();
        let c = least_squares(&refs, false);
        for (got, want) in c.iter().zip([2.0, 3.0, 50.0]) {
            assert!((got - want).abs() < 1e-6, "{c:?}");
        }
    }

    #[test]
    fn no_negative_coefficients_and_few_samples() {
        // A falling constant would be negative: it is dropped.
        let s = [sample(100, 0, 100.0), sample(200, 0, 260.0)];
        let refs: Vec<&Sample> = s.iter().collect();
        let c = least_squares(&refs, false);
        assert!(c.iter().all(|&v| v >= 0.0), "{c:?}");
        assert_eq!(c[1], 0.0);
        // One sample: instructions per MAC alone.
        let one = [sample(1000, 10, 5000.0)];
        let c = least_squares(&one.iter().collect::<Vec<_>>(), false);
        assert!(
            (c[0] - 5.0).abs() < 1e-9 && c[1] == 0.0 && c[2] == 0.0,
            "{c:?}"
        );
        // Relative: the same exact fit, whatever the weights.
        let s: Vec<Sample> = [(0, 10), (0, 1000)]
            .iter()
            .map(|&(m, e)| sample(m, e, 4.0 * e as f64))
            .collect();
        let c = least_squares(&s.iter().collect::<Vec<_>>(), true);
        assert!((c[1] - 4.0).abs() < 1e-9, "{c:?}");
    }
}
