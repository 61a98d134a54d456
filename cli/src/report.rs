//! `tinyaot report MODEL -o report.html [--json] [--tflm-arena BYTES|auto]`: what a model needs, on
//! one self-contained HTML page (or the same data as JSON on stdout or in the file): the summary
//! (operators, MACs, weights, arena and its lower bound, state, TFLM's arena when given or asked of
//! TFLM, [`tflm`]), a row per operator (shapes, types, MACs, weight bytes, arena offsets, the kernel variant), the
//! memory plan drawn as SVG, and the estimated instructions per operator and per inference on
//! each core the cost model was fitted for ([`crate::cost`]).
//!
//! The data is gathered once ([`Report`]) and rendered twice, so the page and the JSON cannot
//! disagree. Both are written by hand, as `tinyaot plan`'s JSON is: the structures are flat and
//! escaping is a dozen lines, where a serializer would be a new dependency of the command line.

use std::fmt::Write as _;
use std::path::Path;

use tinyaot_codegen::config::{read_model, write_if_changed};
use tinyaot_codegen::cost::{kernel_of, op_weight_bytes, Features};
use tinyaot_codegen::ir::{Graph, Tensor};
use tinyaot_codegen::{Config, PlanReport, Storage};

use crate::args::with_limit_options;
use crate::cost::Estimates;
use crate::{Args, Failure};

mod html;
mod tflm;

/// TFLM's arena, as the report knows it.
#[derive(Clone, Copy, Debug)]
pub enum TflmFigure {
    /// Given with `--tflm-arena BYTES`.
    Given(u64),
    /// Asked of TFLM with `--tflm-arena auto`.
    Measured(tflm::TflmArena),
}

impl TflmFigure {
    /// The arena TFLM needs, in bytes.
    pub fn total(self) -> u64 {
        match self {
            TflmFigure::Given(n) => n,
            TflmFigure::Measured(a) => a.total,
        }
    }
}

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<(), Failure> {
    let args = Args::parse(
        args,
        &with_limit_options(&["--output|-o", "--json!", "--tflm-arena"]),
    )?;
    let mut config = Config::new();
    config.limits(args.limits()?).planning(args.planning()?);
    let model = Path::new(args.model()?);
    let tflm_arena = match args.get("--tflm-arena") {
        None => None,
        Some("auto") => Some(TflmFigure::Measured(
            tflm::measure(model).map_err(Failure::Refused)?,
        )),
        Some(v) => Some(TflmFigure::Given(
            v.replace('_', "").parse::<u64>().map_err(|_| {
                Failure::Usage(format!(
                    "`--tflm-arena {v}`: expected TFLM's arena in bytes (a whole number) or auto"
                ))
            })?,
        )),
    };
    let json = args.switch("--json");
    let output = args.get("--output");
    if output.is_none() && !json {
        return Err(Failure::Usage(
            "missing `-o FILE.html` (or --json for the data on stdout)".to_string(),
        ));
    }
    let title = model.file_name().map_or_else(
        || model.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes = read_model(model)?;
    let plan = config.plan(&bytes)?;
    let report = Report::new(&title, &plan, tflm_arena);
    let text = if json {
        report.json()
    } else {
        html::page(&report)
    };
    match output {
        // Written whole or not at all (tinyaot-codegen's emit::files).
        Some(path) => {
            write_if_changed(Path::new(path), text.as_bytes())?;
            eprintln!("wrote {path}");
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// Everything the page and the JSON show, gathered from the plan.
pub struct Report<'a, 'm> {
    /// The model's file name.
    title: String,
    plan: &'a PlanReport<'m>,
    /// TFLM's arena, as given or measured with `--tflm-arena`.
    tflm_arena: Option<TflmFigure>,
    /// One row per operator, in execution order.
    ops: Vec<OpRow>,
    /// MACs of one inference.
    macs: u64,
    /// Bytes of the constant tensors the operators read, each counted once.
    weight_bytes: u64,
    /// The instruction estimates, per core (empty when the model does not compile).
    estimates: Estimates,
}

/// One operator's row.
struct OpRow {
    /// Its position in execution order (the plan's operator number).
    position: usize,
    /// Its index in the model file.
    index: usize,
    /// `CONV_2D`, …
    op: String,
    inputs: Vec<TensorInfo>,
    outputs: Vec<TensorInfo>,
    macs: u64,
    weight_bytes: u64,
    /// `module::function` of the kernel it runs, `copy` for a reshape that copies, `none` for an
    /// operator compiled away; `None` when the model does not compile.
    kernel: Option<String>,
    /// Its kernel's scratch memory: (bytes, arena offset).
    scratch: Vec<(usize, usize)>,
}

/// A tensor as the operator table shows it.
struct TensorInfo {
    index: usize,
    name: String,
    shape: Vec<usize>,
    dtype: &'static str,
    bytes: usize,
    /// `arena`, `state`, `flash`, `unused` or a memory region's name.
    storage: String,
    /// Offset within `storage`, for tensors that take RAM.
    offset: Option<usize>,
}

impl<'a, 'm> Report<'a, 'm> {
    /// Gathers the report of `plan`, the model's file being `title`.
    pub fn new(title: &str, plan: &'a PlanReport<'m>, tflm_arena: Option<TflmFigure>) -> Self {
        let graph = plan.graph();
        let memory = plan.memory_plan();
        let info = |t: usize| {
            let tensor: Option<&Tensor> = graph.tensors.get(t);
            let placement = memory.placement(t);
            let storage = match placement.map(|p| p.storage) {
                Some(Storage::Memory(k)) => memory
                    .memory_regions
                    .get(k)
                    .map_or("?".to_string(), |u| u.region.name.clone()),
                Some(other) => other.name().to_string(),
                None => "?".to_string(),
            };
            let takes_ram = matches!(
                placement.map(|p| p.storage),
                Some(Storage::Arena | Storage::State | Storage::Memory(_))
            );
            TensorInfo {
                index: t,
                name: tensor.map_or(String::new(), |t| t.name.clone()),
                shape: tensor.map_or(Vec::new(), |t| t.shape.clone()),
                dtype: tensor.map_or("?", |t| t.dtype.name()),
                bytes: tensor.map_or(0, |t| t.bytes),
                storage,
                offset: placement.filter(|_| takes_ram).map(|p| p.offset),
            }
        };
        let ops: Vec<OpRow> = graph
            .operators
            .iter()
            .enumerate()
            .map(|(position, op)| OpRow {
                position,
                index: op.source_index,
                op: op.kind.name(),
                inputs: op.inputs.iter().flatten().map(|&t| info(t)).collect(),
                outputs: op.outputs.iter().map(|&t| info(t)).collect(),
                macs: Features::of(graph, op).macs,
                weight_bytes: op_weight_bytes(graph, op),
                kernel: plan.calls().and_then(|calls| {
                    calls.get(position).map(|call| match kernel_of(call) {
                        ("alias", f) | ("none", f) => f.to_string(),
                        (module, function) => format!("{module}::{function}"),
                    })
                }),
                scratch: memory
                    .scratch
                    .iter()
                    .filter(|s| s.op == position)
                    .map(|s| (s.bytes, s.offset))
                    .collect(),
            })
            .collect();
        let macs = ops.iter().map(|o| o.macs).sum();
        Report {
            title: title.to_string(),
            plan,
            tflm_arena,
            macs,
            weight_bytes: weight_bytes(graph),
            estimates: Estimates::new(graph, plan.calls()),
            ops,
        }
    }

    /// The report as JSON (`tinyaot report --json`):
    ///
    /// ```text
    /// { "model": "…", "summary": { "operators": N, "folded_operators": N, "macs": N,
    ///     "weight_bytes": N, "arena_bytes": N, "lower_bound_bytes": N, "state_bytes": N,
    ///     "tflm_arena_bytes": N|null, "tflm_arena": TFLM|null, "compiles": true|false,
    ///     "refusal": "…"|null },
    ///   "operators": [ { "position": N, "index": N, "op": "…", "kernel": "…"|null, "macs": N,
    ///     "weight_bytes": N, "inputs": [TENSOR…], "outputs": [TENSOR…],
    ///     "scratch": [ {"bytes": N, "offset": N}, … ] }, … ],
    ///   "estimates": ESTIMATES,
    ///   "plan": <the JSON of `tinyaot plan --format json`> }
    /// ```
    ///
    /// with TFLM `{"source": "given"}` (`--tflm-arena BYTES`) or `{"source": "tflite-micro",
    /// "head_bytes": N, "tail_bytes": N}` (`--tflm-arena auto`: its planned tensors and its
    /// bookkeeping), TENSOR `{"index": N, "name": "…", "shape": [N, …], "type": "INT8", "bytes": N,
    /// "storage": "arena"|"state"|"flash"|…, "offset": N|null}` and ESTIMATES as
    /// [`Estimates::json`] describes it.
    pub fn json(&self) -> String {
        let plan = self.plan.memory_plan();
        let graph = self.plan.graph();
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\n  \"model\": {},\n  \"summary\": {{\"operators\": {}, \"folded_operators\": {}, \
             \"macs\": {}, \"weight_bytes\": {}, \"arena_bytes\": {}, \"lower_bound_bytes\": {}, \
             \"state_bytes\": {}, \"tflm_arena_bytes\": {}, \"tflm_arena\": {}, \"compiles\": {}, \
             \"refusal\": {}}},\
             \n  \"operators\": [",
            string(&self.title),
            graph.operators.len(),
            graph.folded.len(),
            self.macs,
            self.weight_bytes,
            plan.arena_bytes,
            plan.lower_bound_bytes,
            plan.state_bytes,
            self.tflm_arena
                .map_or("null".to_string(), |t| t.total().to_string()),
            match self.tflm_arena {
                None => "null".to_string(),
                Some(TflmFigure::Given(_)) => "{\"source\": \"given\"}".to_string(),
                Some(TflmFigure::Measured(a)) => format!(
                    "{{\"source\": \"tflite-micro\", \"head_bytes\": {}, \"tail_bytes\": {}}}",
                    a.head, a.tail
                ),
            },
            self.plan.refusal().is_none(),
            self.plan.refusal().map_or("null".to_string(), string),
        );
        for (i, op) in self.ops.iter().enumerate() {
            let tensors = |list: &[TensorInfo]| {
                list.iter()
                    .map(|t| {
                        format!(
                            "{{\"index\": {}, \"name\": {}, \"shape\": [{}], \"type\": \"{}\", \
                             \"bytes\": {}, \"storage\": {}, \"offset\": {}}}",
                            t.index,
                            string(&t.name),
                            t.shape
                                .iter()
                                .map(usize::to_string)
                                .collect::<Vec<_>>()
                                .join(", "),
                            t.dtype,
                            t.bytes,
                            string(&t.storage),
                            t.offset.map_or("null".to_string(), |o| o.to_string())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let scratch: Vec<String> = op
                .scratch
                .iter()
                .map(|(bytes, offset)| format!("{{\"bytes\": {bytes}, \"offset\": {offset}}}"))
                .collect();
            let _ = write!(
                out,
                "{}\n    {{\"position\": {}, \"index\": {}, \"op\": {}, \"kernel\": {}, \"macs\": \
                 {}, \"weight_bytes\": {}, \"inputs\": [{}], \"outputs\": [{}], \"scratch\": \
                 [{}]}}",
                if i == 0 { "" } else { "," },
                op.position,
                op.index,
                string(&op.op),
                op.kernel.as_deref().map_or("null".to_string(), string),
                op.macs,
                op.weight_bytes,
                tensors(&op.inputs),
                tensors(&op.outputs),
                scratch.join(", ")
            );
        }
        let _ = write!(
            out,
            "\n  ],\n  \"estimates\": {},\n  \"plan\": {}\n}}\n",
            self.estimates.json(),
            indent(self.plan.json().trim_end())
        );
        out
    }
}

/// Bytes of the constant tensors any operator reads, each counted once: the weights the
/// generated code carries (folded operators' results included).
fn weight_bytes(graph: &Graph) -> u64 {
    let mut read: Vec<usize> = graph
        .operators
        .iter()
        .flat_map(|op| op.inputs.iter().flatten().copied())
        .filter(|&t| graph.tensors.get(t).is_some_and(|t| t.is_constant()))
        .collect();
    read.sort_unstable();
    read.dedup();
    read.iter()
        .map(|&t| {
            let t = &graph.tensors[t];
            t.data.as_ref().map_or(t.bytes, |d| d.len()) as u64
        })
        .sum()
}

/// `text`'s lines after the first indented by two spaces (a nested JSON object).
fn indent(text: &str) -> String {
    text.replace('\n', "\n  ")
}

/// `s` as a JSON string literal (RFC 8259: quote, backslash and control characters escaped), as
/// serde_json writes it.
pub(crate) fn string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string("x\ny\u{1}"), r#""x\ny\u0001""#);
    }
}
