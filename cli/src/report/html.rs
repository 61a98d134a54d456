//! The report as one self-contained HTML page: inline CSS and the plan's SVG, no script, no
//! external resource (it opens offline, from a mail attachment or a CI artifact).

use std::fmt::Write as _;

use tinyaot_codegen::plan::report::thousands;

use super::{OpRow, Report, TensorInfo, TflmFigure};

const STYLE: &str = "\
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-size:.85em}\
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}\
th{background:#f3f3f3;white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
details.note summary{cursor:pointer}\
tr.total td{font-weight:bold;background:#fafafa}\
.plan{overflow:auto;border:1px solid #ddd;max-height:80vh}\
.note{color:#555;font-size:.85em;max-width:60em}\
code{font-size:.95em}.t{white-space:nowrap}";

/// The page.
pub fn page(r: &Report) -> String {
    let mut out = String::new();
    let title = format!("tinyaot report: {}", r.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    summary(&mut out, r);
    estimates(&mut out, r);
    operators(&mut out, r);
    let _ = write!(
        out,
        "<h2 id=\"plan\">Memory plan</h2>\n<p class=\"note\">Operator steps across, arena \
         offsets down: each box is a tensor's bytes over its lifetime (as <code>tinyaot plan \
         --svg</code> draws it).</p>\n<div class=\"plan\">{}</div>\n",
        r.plan.svg(&r.title)
    );
    out.push_str("</body>\n</html>\n");
    out
}

fn summary(out: &mut String, r: &Report) {
    let plan = r.plan.memory_plan();
    let graph = r.plan.graph();
    let row = |out: &mut String, name: &str, value: String, note: &str| {
        let _ = writeln!(
            out,
            "<tr><th>{name}</th><td class=\"n\">{value}</td><td>{note}</td></tr>"
        );
    };
    out.push_str("<h2 id=\"summary\">Summary</h2>\n<table>\n");
    let folded = if graph.folded.is_empty() {
        String::new()
    } else {
        format!(
            "{} more computed at generation time (constant inputs)",
            graph.folded.len()
        )
    };
    row(out, "operators", thousands(graph.operators.len()), &folded);
    row(
        out,
        "MACs",
        thousands(r.macs as usize),
        "multiply-accumulates of one inference (convolutions, fully connected, matrix products)",
    );
    row(
        out,
        "weights",
        bytes(r.weight_bytes as usize),
        "constant tensors the operators read: flash",
    );
    row(
        out,
        "arena",
        bytes(plan.arena_bytes),
        "activation RAM: every tensor and scratch buffer placed over time",
    );
    row(
        out,
        "lower bound",
        bytes(plan.lower_bound_bytes),
        "the liveness lower bound: no plan without overlaps is smaller; overlapping outputs \
         with dying inputs can go below it",
    );
    row(
        out,
        "state",
        bytes(plan.state_bytes),
        "variables kept between inferences (SVDF, LSTM, resource variables)",
    );
    let ours = percent(
        plan.arena_bytes as f64 + plan.state_bytes as f64,
        r.tflm_arena.map_or(0.0, |t| t.total() as f64),
    );
    match r.tflm_arena {
        Some(TflmFigure::Given(n)) => row(
            out,
            "TFLM arena",
            bytes(n as usize),
            &format!(
                "as given with <code>--tflm-arena</code> (what TFLM's \
                 <code>print_allocations</code> reports: planned tensors and its own \
                 bookkeeping); tinyaot's arena and state are {ours} of it"
            ),
        ),
        Some(TflmFigure::Measured(a)) => row(
            out,
            "TFLM arena",
            bytes(a.total as usize),
            &format!(
                "asked of TFLM (tflite-micro's interpreter, <code>print_allocations</code>): {} \
                 of planned tensors and scratch, {} of bookkeeping; tinyaot's arena and state \
                 are {ours} of it",
                bytes(a.head as usize),
                bytes(a.tail as usize)
            ),
        ),
        None => row(
            out,
            "TFLM arena",
            "not given".to_string(),
            "what TFLM itself reports for the model (<code>print_allocations</code>): \
             <code>--tflm-arena auto</code> asks TFLM (the tflite-micro Python package), \
             <code>--tflm-arena BYTES</code> takes the figure",
        ),
    }
    if let Some(why) = r.plan.refusal() {
        row(
            out,
            "compiles",
            "no".to_string(),
            &format!(
                "{}: the plan leaves out kernel scratch memory and there are no kernels or \
                 estimates",
                esc(why)
            ),
        );
    }
    out.push_str("</table>\n");
}

fn operators(out: &mut String, r: &Report) {
    out.push_str(
        "<h2 id=\"operators\">Operators</h2>\n<p class=\"note\">In execution order (# is the \
         position, <em>index</em> the operator's index in the model file). Tensors are \
         <code>#index type[shape]</code> with their place: <code>arena@offset</code>, \
         <code>state@offset</code> or <code>flash</code> (constants). MACs and weight bytes \
         are per operator; the kernel is the runtime function the generated code calls.</p>\n\
         <table>\n<tr><th>#</th><th>index</th><th>op</th><th>inputs</th><th>outputs</th>\
         <th>MACs</th><th>weight bytes</th><th>scratch</th><th>kernel</th></tr>\n",
    );
    for op in &r.ops {
        let _ = writeln!(
            out,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td><code>{}</code></td></tr>",
            op.position,
            op.index,
            esc(&op.op),
            tensors(&op.inputs),
            tensors(&op.outputs),
            thousands(op.macs as usize),
            thousands(op.weight_bytes as usize),
            scratch(op),
            esc(op.kernel.as_deref().unwrap_or("—")),
        );
    }
    let _ = writeln!(
        out,
        "<tr class=\"total\"><td colspan=\"5\">total</td><td class=\"n\">{}</td>\
         <td class=\"n\">{}</td><td colspan=\"2\"></td></tr>\n</table>",
        thousands(r.macs as usize),
        thousands(r.ops.iter().map(|o| o.weight_bytes as usize).sum())
    );
}

fn estimates(out: &mut String, r: &Report) {
    out.push_str("<h2 id=\"estimates\">Estimated instructions</h2>\n");
    let model = match &r.estimates.model {
        Ok(m) => m,
        Err(e) => {
            let _ = writeln!(
                out,
                "<p>No estimate: the compiled-in cost model does not parse ({}).</p>",
                esc(e)
            );
            return;
        }
    };
    let cores = &r.estimates.cores;
    if cores.is_empty() {
        out.push_str(if r.plan.refusal().is_some() {
            "<p>No estimate: the model does not compile.</p>\n"
        } else {
            "<p>No estimate: the built-in cost model has no core.</p>\n"
        });
        return;
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">Instructions of one inference of the generated Rust, estimated per \
         operator by a linear model per core and kernel function (instructions = a·MACs + \
         b·elements + c, elements being those of the non-constant inputs and the outputs), \
         fitted by least squares to per-operator instruction counts measured under QEMU. A \
         kernel never measured takes its family's fit, or the core's (marked ° and ″); an \
         operator more than {} times the largest measured one of its fit (in MACs or elements) \
         is an extrapolation (marked !), less certain. \
         Instruction counts, not cycles: multiply by the core's cycles per instruction (about 1 \
         to 2 on these cores, more with flash wait states).</p>",
        tinyaot_codegen::cost::EXTRAPOLATION
    );
    let _ = writeln!(
        out,
        "<details class=\"note\"><summary>Fitted on {} models by <code>{}</code></summary>\
         <p>{}</p></details>",
        model.fitted.len(),
        esc(&model.source),
        esc(&model.fitted.join(", "))
    );
    // How far off the model was on models it never saw: one row per model, one column per core.
    let mut held: Vec<&str> = Vec::new();
    for h in cores.iter().flat_map(|c| &c.held_out) {
        if !held.contains(&h.model.as_str()) {
            held.push(&h.model);
        }
    }
    if !held.is_empty() {
        out.push_str(
            "<p class=\"note\">The estimate against the measurement on models left out of the \
             fit (instructions per inference, measured by <code>cargo xtask cost-model</code>; \
             positive: an overestimate):</p>\n<table>\n<tr><th>held-out model</th>",
        );
        for c in cores {
            let _ = write!(out, "<th>{}</th>", esc(&c.title));
        }
        out.push_str("</tr>\n");
        for name in &held {
            let _ = write!(out, "<tr><td>{}</td>", esc(name));
            for c in cores {
                match c.held_out.iter().find(|h| h.model == *name) {
                    Some(h) => {
                        let _ = write!(
                            out,
                            "<td class=\"n\" title=\"estimated {}, measured {}\">{:+.1}%</td>",
                            thousands(h.estimated as usize),
                            thousands(h.measured as usize),
                            h.error_percent()
                        );
                    }
                    None => out.push_str("<td></td>"),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
    }
    out.push_str("<p></p>\n<table>\n<tr><th>operator</th>");
    for c in cores {
        let _ = write!(out, "<th>{}</th>", esc(&c.title));
    }
    out.push_str("</tr>\n<tr class=\"total\"><td>per inference</td>");
    for c in cores {
        let _ = write!(out, "<td class=\"n\">{}</td>", thousands(c.total as usize));
    }
    out.push_str("</tr>\n<tr><td>of which extrapolated (!)</td>");
    for c in cores {
        let _ = write!(out, "<td class=\"n\">{}</td>", percent(c.beyond(), c.total));
    }
    out.push_str("</tr>\n");
    for (i, op) in r.ops.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><td class=\"t\">#{} {}</td>",
            op.position,
            esc(&op.op)
        );
        for c in cores {
            let (n, level, beyond) = c.ops.get(i).copied().unwrap_or((0.0, "core", false));
            let mark = match level {
                "function" => "",
                "module" => "°",
                _ => "″",
            };
            let far = if beyond { "!" } else { "" };
            let _ = write!(
                out,
                "<td class=\"n\">{}{mark}{far}</td>",
                thousands(n as usize)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn tensors(list: &[TensorInfo]) -> String {
    list.iter()
        .map(|t| {
            let shape: Vec<String> = t.shape.iter().map(usize::to_string).collect();
            let place = match t.offset {
                Some(o) => format!("{}@{o}", t.storage),
                None => t.storage.clone(),
            };
            format!(
                "<span class=\"t\" title=\"{} ({} bytes)\">#{} {}[{}] {}</span>",
                esc(&t.name),
                t.bytes,
                t.index,
                t.dtype,
                shape.join("×"),
                esc(&place)
            )
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

fn scratch(op: &OpRow) -> String {
    op.scratch
        .iter()
        .map(|(bytes, offset)| format!("<span class=\"t\">{bytes} B @{offset}</span>"))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// `n bytes` with thousands separators.
fn bytes(n: usize) -> String {
    format!("{} bytes", thousands(n))
}

/// `part` as a percentage of `whole`.
fn percent(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        "—".to_string()
    } else {
        format!("{:.0}%", part * 100.0 / whole)
    }
}

/// `s` escaped for HTML text and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup() {
        assert_eq!(
            super::esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
