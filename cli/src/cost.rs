//! The instruction estimates of `tinyaot report`: the cost model that `cargo xtask cost-model`
//! fitted to per-operator instruction counts measured on emulated cores (`cargo xtask mcu
//! --profile`), compiled into the command line from its data file, `src/cost_model.tsv`
//! (figures written by that command, never by hand), and applied to a model's operators by
//! tinyaot-codegen's estimator ([`tinyaot_codegen::cost::CostModel`]), the one the fitting command
//! measured its held-out error with.

use std::fmt::Write as _;

use tinyaot_codegen::cost::{CostModel, HeldOut};
use tinyaot_codegen::ir::Graph;
use tinyaot_codegen::lower::Call;

use crate::report::string;

/// The data file `cargo xtask cost-model` writes.
const DATA: &str = include_str!("cost_model.tsv");

/// The cost model compiled in.
pub fn model() -> Result<CostModel, String> {
    CostModel::parse(DATA)
}

/// One core's estimate of a model.
pub struct CoreEstimate {
    /// `m4`, … (`cargo xtask mcu --core`'s names).
    pub core: String,
    /// `Cortex-M4`, …
    pub title: String,
    /// Per operator in execution order: estimated instructions, how specific the fit was
    /// (`function`, `module`, `core`), and whether the operator is well past the measured ones
    /// of its fit (an extrapolation, [`tinyaot_codegen::cost::Fit::beyond`]).
    pub ops: Vec<(f64, &'static str, bool)>,
    /// Estimated instructions of one inference.
    pub total: f64,
    /// The model's measured error on models it was not fitted on, for this core.
    pub held_out: Vec<HeldOut>,
}

impl CoreEstimate {
    /// The estimated instructions of the operators well past the measured ones of their fit.
    pub fn beyond(&self) -> f64 {
        // A fold from 0.0: `sum` of no f64 is -0.0, printed "-0".
        self.ops
            .iter()
            .filter(|o| o.2)
            .fold(0.0, |sum, o| sum + o.0)
    }
}

/// The estimates of one model on every core of the cost model.
pub struct Estimates {
    /// The cost model (its source line and training models are shown); `Err` if the compiled-in
    /// data does not parse (a build from a damaged file: the page says so rather than failing).
    pub model: Result<CostModel, String>,
    /// Per core; empty when the model does not compile (no kernels to estimate).
    pub cores: Vec<CoreEstimate>,
}

impl Estimates {
    /// The estimates for `graph` lowered to `calls` (`None`: the model does not compile).
    pub fn new(graph: &Graph, calls: Option<&[Call]>) -> Estimates {
        let model = model();
        let mut cores = Vec::new();
        if let (Ok(m), Some(calls)) = (&model, calls) {
            for (core, title) in &m.cores {
                let Some((ops, total)) = m.estimate(core, graph, calls) else {
                    continue;
                };
                cores.push(CoreEstimate {
                    core: core.clone(),
                    title: title.clone(),
                    ops: ops
                        .iter()
                        .map(|o| (o.instructions, o.fit.level.name(), o.beyond))
                        .collect(),
                    total,
                    held_out: m
                        .held_out
                        .iter()
                        .filter(|h| &h.core == core)
                        .cloned()
                        .collect(),
                });
            }
        }
        Estimates { model, cores }
    }

    /// As JSON: `{"source": "…", "fitted_on": ["…", …], "cores": [{"core": "m4", "title":
    /// "Cortex-M4", "instructions": N, "beyond_measured_instructions": N, "operators":
    /// [{"instructions": N, "fit": "function"|"module"|"core", "beyond_measured": true|false},
    /// …], "held_out": [{"model": "…", "measured": N, "estimated": N,
    /// "error_percent": X}, …]}, …]}`, operators in execution order; with `"error": "…"`
    /// instead of the cores when the compiled-in model does not parse.
    pub fn json(&self) -> String {
        let m = match &self.model {
            Ok(m) => m,
            Err(e) => return format!("{{\"error\": {}}}", string(e)),
        };
        let mut out = format!(
            "{{\"source\": {}, \"fitted_on\": [{}], \"cores\": [",
            string(&m.source),
            m.fitted
                .iter()
                .map(|s| string(s))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (i, c) in self.cores.iter().enumerate() {
            let ops: Vec<String> = c
                .ops
                .iter()
                .map(|(n, level, beyond)| {
                    format!(
                        "{{\"instructions\": {n:.0}, \"fit\": \"{level}\", \"beyond_measured\": \
                         {beyond}}}"
                    )
                })
                .collect();
            let held: Vec<String> = c
                .held_out
                .iter()
                .map(|h| {
                    format!(
                        "{{\"model\": {}, \"measured\": {}, \"estimated\": {}, \
                         \"error_percent\": {:.1}}}",
                        string(&h.model),
                        h.measured,
                        h.estimated,
                        h.error_percent()
                    )
                })
                .collect();
            let _ = write!(
                out,
                "{}\n    {{\"core\": {}, \"title\": {}, \"instructions\": {:.0}, \
                 \"beyond_measured_instructions\": {:.0}, \"operators\": [{}], \"held_out\": [{}]}}",
                if i == 0 { "" } else { "," },
                string(&c.core),
                string(&c.title),
                c.total,
                c.beyond(),
                ops.join(", "),
                held.join(", ")
            );
        }
        out.push_str(if self.cores.is_empty() {
            "]}"
        } else {
            "\n  ]}"
        });
        out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_compiled_in_model_parses() {
        let m = super::model().expect("src/cost_model.tsv parses");
        assert!(!m.cores.is_empty(), "no core in the cost model");
        for (core, _) in &m.cores {
            assert!(
                m.fit(core, ("conv", "no_such_kernel")).is_some(),
                "{core}: no fallback fit"
            );
        }
    }
}
