//! What an operator costs, counted from the graph, and the instruction cost model of
//! `tinyaot report`: multiply-accumulates (the figure `cargo xtask mcu` divides instructions
//! by), the elements an operator reads and writes, and a linear model of the instructions a
//! kernel takes on a core in those two, fitted by `cargo xtask cost-model` to the per-operator
//! instructions `cargo xtask mcu --profile` measures. The estimator lives here, beside the
//! features, so that the command fitting the model measures its error with the very estimate
//! the report prints.

use crate::ir::{Graph, OpCode, Operator};
use crate::lower::{Call, CallKind};

/// MACs of one inference of `graph`: the sum of [`op_macs`].
pub fn macs(graph: &Graph) -> u64 {
    graph.operators.iter().map(|op| op_macs(graph, op)).sum()
}

/// Multiply-accumulates of one run of `op`. Only the operators whose cost is dominated by MACs
/// count (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL, SVDF,
/// UNIDIRECTIONAL_SEQUENCE_LSTM's gate products); everything else (pooling, softmax,
/// element-wise operators) costs instructions but no MACs.
pub fn op_macs(graph: &Graph, op: &Operator) -> u64 {
    let tensor = |i: Option<usize>| i.and_then(|t| graph.tensors.get(t));
    let (Some(filter), Some(output)) = (tensor(op.input(1)), tensor(op.outputs.first().copied()))
    else {
        return 0;
    };
    let out = output.num_elements() as u64;
    let dim = |i: usize| filter.shape.get(i).copied().unwrap_or(1) as u64;
    match op.kind.code() {
        // Filter [out_channels, kh, kw, in_channels]: each output element sums kh*kw*in.
        Some(OpCode::CONV_2D) => out * dim(1) * dim(2) * dim(3),
        // Filter [1, kh, kw, channels]: each output element sums one kh*kw window.
        Some(OpCode::DEPTHWISE_CONV_2D) => out * dim(1) * dim(2),
        // Filter [out_channels, kh, kw, in_channels]: each input element meets kh*kw*out
        // weights (those landing outside the output included, as TFLM's loop counts them).
        Some(OpCode::TRANSPOSE_CONV) => tensor(op.input(2)).map_or(0, |input| {
            input.num_elements() as u64 * dim(0) * dim(1) * dim(2)
        }),
        // Weights [units, depth]: each output element sums `depth` products.
        Some(OpCode::FULLY_CONNECTED) => out * dim(filter.shape.len().saturating_sub(1)),
        // Input weights [units, input]: each output element (a unit at a step) sums the four
        // gates' products with the input row and the previous hidden state.
        Some(OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM) => out * 4 * (dim(1) + dim(0)),
        // Feature weights [filters, input_size], time weights [filters, memory]: per batch row,
        // each filter sums its inputs and then its memory.
        Some(OpCode::SVDF) => tensor(op.input(2)).map_or(0, |time| {
            let batches = output.shape.first().copied().unwrap_or(1) as u64;
            let memory = time.shape.get(1).copied().unwrap_or(0) as u64;
            batches * dim(0) * (dim(1) + memory)
        }),
        // LHS matrices [M, K] (or [K, M] with adj_x): each output element sums K products, K
        // being the LHS matrix's size over the output's rows M.
        Some(OpCode::BATCH_MATMUL) => tensor(op.input(0)).map_or(0, |lhs| {
            let last_two = |shape: &[usize]| match shape {
                [.., rows, cols] => (*rows as u64, *cols as u64),
                _ => (1, 1),
            };
            let (rows, cols) = last_two(&lhs.shape);
            let (m, _) = last_two(&output.shape);
            out * (rows * cols).checked_div(m).unwrap_or(0)
        }),
        _ => 0,
    }
}

/// Bytes of the constant tensors `op` reads (its weights, biases and other constant operands):
/// each counted once per operator.
pub fn op_weight_bytes(graph: &Graph, op: &Operator) -> u64 {
    let mut seen: Vec<usize> = Vec::new();
    op.inputs
        .iter()
        .flatten()
        .filter(|&&t| {
            let fresh = !seen.contains(&t);
            seen.push(t);
            fresh
        })
        .filter_map(|&t| graph.tensors.get(t))
        .filter(|t| t.is_constant())
        .map(|t| t.data.as_ref().map_or(t.bytes, |d| d.len()) as u64)
        .sum()
}

/// What the cost model knows of one operator: the figures its instructions are linear in.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// Multiply-accumulates ([`op_macs`]).
    pub macs: u64,
    /// Elements of the operator's non-constant inputs and of its outputs: what an element-wise
    /// operator, a pooling or a requantization walks.
    pub elements: u64,
}

impl Features {
    /// The features of `op` in `graph`.
    pub fn of(graph: &Graph, op: &Operator) -> Features {
        let elements = op
            .inputs
            .iter()
            .flatten()
            .filter_map(|&t| graph.tensors.get(t))
            .filter(|t| !t.is_constant())
            .chain(op.outputs.iter().filter_map(|&t| graph.tensors.get(t)))
            .map(|t| t.num_elements() as u64)
            .sum();
        Features {
            macs: op_macs(graph, op),
            elements,
        }
    }

    /// The regressors of the linear model, in the coefficients' order: MACs, elements, 1.
    pub fn row(&self) -> [f64; 3] {
        [self.macs as f64, self.elements as f64, 1.0]
    }
}

/// The kernel a call runs, as the cost model keys it: `(module, function)`, e.g.
/// `("conv", "conv2d_s8")`; a reshape's copy is `("alias", "copy")` and an operator compiled away
/// `("none", "none")`.
pub fn kernel_of(call: &Call) -> (&'static str, &'static str) {
    match &call.kind {
        CallKind::Kernel(k) => (k.module, k.function),
        CallKind::Alias { .. } | CallKind::Select { .. } => ("alias", "copy"),
        CallKind::Nothing | CallKind::Exit { .. } => ("none", "none"),
    }
}

/// How specific the coefficients behind an estimate are: fitted to the kernel function itself,
/// to its family (module) when the function was not among the measured ones, or to every
/// kernel of the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Fitted to measurements of this kernel function.
    Function,
    /// Fitted to this kernel family's measurements (the function itself was never measured).
    Module,
    /// Fitted to all of the core's measurements.
    Core,
}

impl Level {
    /// The name the data file and the reports give the level.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Function => "function",
            Level::Module => "module",
            Level::Core => "core",
        }
    }

    fn parse(name: &str) -> Option<Level> {
        [Level::Function, Level::Module, Level::Core]
            .into_iter()
            .find(|l| l.name() == name)
    }
}

/// One fitted linear model: instructions = `coef · [MACs, elements, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The core (`m4`, …, as `cargo xtask mcu --core` names them).
    pub core: String,
    /// What the fit is for: a function, a module or the whole core.
    pub level: Level,
    /// The kernel family (module), or `*` for [`Level::Core`].
    pub module: String,
    /// The kernel function, or `*` for [`Level::Module`] and [`Level::Core`].
    pub function: String,
    /// Instructions per MAC, per element, and per call.
    pub coef: [f64; 3],
    /// The operators (measurements) it was fitted to.
    pub samples: usize,
    /// The largest MACs and the most elements among those operators: how far the measurements
    /// reach ([`Fit::beyond`]).
    pub largest: Features,
}

/// How far past the largest measured operator of its fit an operator may be before its estimate
/// counts as an extrapolation ([`Fit::beyond`]): a kernel's fixed costs (per row, per call) that
/// small measured operators mix into the per-element coefficient inflate it at scale.
pub const EXTRAPOLATION: u64 = 4;

impl Fit {
    /// The estimated instructions of an operator with `features`, never below zero.
    pub fn estimate(&self, features: &Features) -> f64 {
        let row = features.row();
        (0..3).map(|i| self.coef[i] * row[i]).sum::<f64>().max(0.0)
    }

    /// Whether an operator with `features` is more than [`EXTRAPOLATION`] times the largest
    /// measured one in MACs or in elements: an estimate outside what the fit has seen.
    pub fn beyond(&self, features: &Features) -> bool {
        features.macs > EXTRAPOLATION * self.largest.macs
            || features.elements > EXTRAPOLATION * self.largest.elements
    }
}

/// One operator's estimate.
#[derive(Clone, Copy, Debug)]
pub struct OpEstimate<'a> {
    /// Instructions.
    pub instructions: f64,
    /// The fit it came from.
    pub fit: &'a Fit,
    /// The operator is well past the measured ones of that fit ([`Fit::beyond`]).
    pub beyond: bool,
}

/// How far the model's estimate was from the measurement on a model it was not fitted on.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOut {
    /// The core.
    pub core: String,
    /// The model's name (file stem).
    pub model: String,
    /// Instructions per inference, measured (`cargo xtask mcu --profile`, generated Rust).
    pub measured: u64,
    /// Instructions per inference, estimated.
    pub estimated: u64,
}

impl HeldOut {
    /// The estimate's error in percent of the measurement (signed: negative is an
    /// underestimate).
    pub fn error_percent(&self) -> f64 {
        if self.measured == 0 {
            0.0
        } else {
            (self.estimated as f64 - self.measured as f64) * 100.0 / self.measured as f64
        }
    }
}

/// The fitted cost model: its coefficients and its measured held-out error, as
/// `cargo xtask cost-model` writes them (one record per line, tab-separated, `#` comments):
///
/// ```text
/// source  <how the measurements were made>
/// core    <core> <title>
/// fitted  <model>…                          (the models the fit saw)
/// fit     <core> <level> <module> <function> <per MAC> <per element> <per call> <samples>
///         <largest MACs> <most elements>
/// overhead <core> <instructions per inference outside the operators>
/// heldout <core> <model> <measured> <estimated>
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostModel {
    /// How the measurements were made (the command line).
    pub source: String,
    /// The cores, in order, each with its title (`Cortex-M4`…).
    pub cores: Vec<(String, String)>,
    /// The models the coefficients were fitted to.
    pub fitted: Vec<String>,
    /// Every fit.
    pub fits: Vec<Fit>,
    /// Per core, the instructions of one inference outside the operators (the invoke's own).
    pub overhead: Vec<(String, f64)>,
    /// The error on models left out of the fit.
    pub held_out: Vec<HeldOut>,
}

impl CostModel {
    /// Parses the data file; a malformed line is an error naming it.
    pub fn parse(text: &str) -> Result<CostModel, String> {
        let mut model = CostModel::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let bad = || format!("cost model line {}: malformed `{line}`", n + 1);
            let num = |s: &str| s.parse::<f64>().map_err(|_| bad());
            let int = |s: &str| s.parse::<u64>().map_err(|_| bad());
            match f.as_slice() {
                ["source", s] => model.source = s.to_string(),
                ["core", core, title] => model.cores.push((core.to_string(), title.to_string())),
                ["fitted", models @ ..] => {
                    model.fitted.extend(models.iter().map(|s| s.to_string()))
                }
                ["fit", core, level, module, function, a, b, c, samples, macs, elements] => {
                    model.fits.push(Fit {
                        core: core.to_string(),
                        level: Level::parse(level).ok_or_else(bad)?,
                        module: module.to_string(),
                        function: function.to_string(),
                        coef: [num(a)?, num(b)?, num(c)?],
                        samples: int(samples)? as usize,
                        largest: Features {
                            macs: int(macs)?,
                            elements: int(elements)?,
                        },
                    })
                }
                ["overhead", core, v] => model.overhead.push((core.to_string(), num(v)?)),
                ["heldout", core, name, measured, estimated] => model.held_out.push(HeldOut {
                    core: core.to_string(),
                    model: name.to_string(),
                    measured: int(measured)?,
                    estimated: int(estimated)?,
                }),
                _ => return Err(bad()),
            }
        }
        Ok(model)
    }

    /// The data file's text ([`CostModel::parse`] reads it back), after `header` (comment
    /// lines, each starting with `#`).
    pub fn write(&self, header: &str) -> String {
        let mut out = String::from(header);
        out.push_str(&format!("source\t{}\n", self.source));
        for (core, title) in &self.cores {
            out.push_str(&format!("core\t{core}\t{title}\n"));
        }
        out.push_str(&format!("fitted\t{}\n", self.fitted.join("\t")));
        for (core, v) in &self.overhead {
            out.push_str(&format!("overhead\t{core}\t{v:.1}\n"));
        }
        for f in &self.fits {
            out.push_str(&format!(
                "fit\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                f.core,
                f.level.name(),
                f.module,
                f.function,
                coefficient(f.coef[0]),
                coefficient(f.coef[1]),
                coefficient(f.coef[2]),
                f.samples,
                f.largest.macs,
                f.largest.elements
            ));
        }
        for h in &self.held_out {
            out.push_str(&format!(
                "heldout\t{}\t{}\t{}\t{}\n",
                h.core, h.model, h.measured, h.estimated
            ));
        }
        out
    }

    /// The most specific fit for kernel `(module, function)` on `core`: the function's, else its
    /// module's, else the core's; `None` when the core has no fit at all.
    pub fn fit(&self, core: &str, (module, function): (&str, &str)) -> Option<&Fit> {
        let find = |level: Level, m: &str, f: &str| {
            self.fits
                .iter()
                .find(|x| x.core == core && x.level == level && x.module == m && x.function == f)
        };
        find(Level::Function, module, function)
            .or_else(|| find(Level::Module, module, "*"))
            .or_else(|| find(Level::Core, "*", "*"))
    }

    /// The core's instructions per inference outside the operators.
    pub fn overhead(&self, core: &str) -> f64 {
        self.overhead
            .iter()
            .find(|(c, _)| c == core)
            .map_or(0.0, |(_, v)| *v)
    }

    /// Estimated instructions of every call of a planned graph on `core` (in the calls' order),
    /// and of one inference (their sum and the core's overhead).
    pub fn estimate(
        &self,
        core: &str,
        graph: &Graph,
        calls: &[Call],
    ) -> Option<(Vec<OpEstimate<'_>>, f64)> {
        let mut ops = Vec::with_capacity(calls.len());
        for call in calls {
            let op = graph.operators.get(call.op)?;
            let fit = self.fit(core, kernel_of(call))?;
            let features = Features::of(graph, op);
            ops.push(OpEstimate {
                instructions: fit.estimate(&features),
                fit,
                beyond: fit.beyond(&features),
            });
        }
        let total = ops.iter().map(|o| o.instructions).sum::<f64>() + self.overhead(core);
        Some((ops, total))
    }
}

/// A coefficient with the digits that matter (instructions per MAC are fractions, per call
/// thousands).
fn coefficient(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" || s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_file_round_trips() {
        let model = CostModel {
            source: "cargo xtask cost-model".into(),
            cores: vec![("m4".into(), "Cortex-M4".into())],
            fitted: vec!["resnet8".into(), "sine_mlp".into()],
            fits: vec![
                Fit {
                    core: "m4".into(),
                    level: Level::Function,
                    module: "conv".into(),
                    function: "conv2d_s8".into(),
                    coef: [1.25, 3.5, 120.0],
                    samples: 7,
                    largest: Features {
                        macs: 1000,
                        elements: 100,
                    },
                },
                Fit {
                    core: "m4".into(),
                    level: Level::Core,
                    module: "*".into(),
                    function: "*".into(),
                    coef: [2.0, 0.0, 0.0],
                    samples: 30,
                    largest: Features {
                        macs: 5000,
                        elements: 900,
                    },
                },
            ],
            overhead: vec![("m4".into(), 42.0)],
            held_out: vec![HeldOut {
                core: "m4".into(),
                model: "ds_cnn".into(),
                measured: 1000,
                estimated: 1100,
            }],
        };
        let text = model.write("# header\n");
        assert_eq!(CostModel::parse(&text).expect("parses"), model);
        assert!((model.held_out[0].error_percent() - 10.0).abs() < 1e-9);
        // The function's own fit, else the core's.
        let f = model.fit("m4", ("conv", "conv2d_s8")).expect("fit");
        assert_eq!(f.level, Level::Function);
        // Past four times the largest measured operator: an extrapolation.
        let near = Features {
            macs: 4000,
            elements: 400,
        };
        assert!(!f.beyond(&near));
        assert!(f.beyond(&Features { macs: 4001, ..near }));
        let f = model.fit("m4", ("pooling", "avg_pool_s8")).expect("fit");
        assert_eq!(f.level, Level::Core);
        assert!(model.fit("m7", ("conv", "conv2d_s8")).is_none());
        assert!(CostModel::parse("fit\tm4\tnope").is_err());
    }

    #[test]
    fn coefficients_keep_their_digits() {
        assert_eq!(coefficient(1.5), "1.5");
        assert_eq!(coefficient(120.0), "120");
        assert_eq!(coefficient(0.0000001), "0");
        assert_eq!(coefficient(-0.0), "0");
    }
}
