//! The plan as a picture: x is the step (one column per operator), y the arena offset (0 at the
//! top, growing down), one labelled box per arena tensor. A red step line marks the bytes live at
//! each step; its peak is the lower bound, so gaps between the boxes and the line are waste. Where
//! an operator's output overlaps an input it is the last to read (an [`Overlap`]), the shared
//! bytes are hatched in that operator's column: that is how the arena goes below the line.

use super::facts::{below_bound, below_percent, excess_percent, overlap_kind, thousands};
use crate::ir::Graph;
use crate::plan::memory_plan::{MemoryPlan, Overlap, Storage, ALIGN};
use std::fmt::Write;

const LEFT: f64 = 96.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 64.0;
const PLOT_H: f64 = 560.0;
/// Below the plot: tick labels, then operator names written downwards.
const BOTTOM: f64 = 170.0;

/// An SVG document drawing `plan`; `title` (the model's name, say) heads it.
pub fn svg(graph: &Graph, plan: &MemoryPlan, title: &str) -> String {
    let steps = plan.num_steps.max(1);
    let col = (960.0 / steps as f64).clamp(8.0, 48.0);
    let plot_w = col * steps as f64;
    let width = LEFT + plot_w + RIGHT;
    let height = TOP + PLOT_H + BOTTOM;
    // With overlaps the bound (the red line's peak) lies below the arena's end: both must fit.
    let extent = plan.arena_bytes.max(plan.lower_bound_bytes);
    let scale = PLOT_H / extent.max(1) as f64;
    let y = |offset: usize| TOP + offset as f64 * scale;
    let x = |step: usize| LEFT + step as f64 * col;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let state = if plan.state_bytes > 0 {
        format!(", state {} B (not drawn)", thousands(plan.state_bytes))
    } else {
        String::new()
    };
    let against = if plan.arena_bytes < plan.lower_bound_bytes {
        format!(
            "−{} B, {:.2}% below, by {} overlaps",
            thousands(below_bound(plan)),
            below_percent(plan),
            plan.overlaps.len()
        )
    } else {
        format!(
            "+{} B, {:.2}%",
            thousands(plan.excess_bytes()),
            excess_percent(plan)
        )
    };
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="24" font-size="16" font-weight="bold">{}: arena {} B, lower bound {} B ({against}){}</text>"#,
        escape(title),
        thousands(plan.arena_bytes),
        thousands(plan.lower_bound_bytes),
        state
    );
    let _ = writeln!(
        s,
        r##"<text x="{LEFT}" y="44" font-size="12" fill="#444">x: operator (column "in" = graph inputs before the first operator); y: arena offset in bytes, 0 at the top. One box per tensor (#index), grey dashed boxes for kernel scratch, purple hatching: bytes an output shares with an input it is the last to read; red line: bytes live at each step without such overlaps.</text>"##
    );

    // Grid and axes.
    for (value, label) in y_ticks(extent) {
        let yy = y(value);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" font-size="11" text-anchor="end">{label}</text>"##,
            LEFT + plot_w,
            LEFT - 6.0,
            yy + 4.0
        );
    }
    let every = (30.0 / col).ceil().max(1.0) as usize;
    for step in 0..steps {
        let cx = x(step) + col / 2.0;
        if step % every == 0 {
            let label = if step == 0 {
                "in".to_string()
            } else {
                (step - 1).to_string()
            };
            let _ = writeln!(
                s,
                r#"<text x="{cx:.1}" y="{:.1}" font-size="11" text-anchor="middle">{label}</text>"#,
                TOP + PLOT_H + 16.0
            );
        }
        if step > 0 && col >= 11.0 {
            if let Some(op) = graph.operators.get(step - 1) {
                let ty = TOP + PLOT_H + 26.0;
                let _ = writeln!(
                    s,
                    r##"<text x="{cx:.1}" y="{ty:.1}" font-size="9" fill="#555" transform="rotate(90 {cx:.1} {ty:.1})" dominant-baseline="middle">{}</text>"##,
                    escape(&op.kind.name())
                );
            }
        }
    }
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w:.1}" height="{PLOT_H}" fill="none" stroke="#888"/>"##
    );

    // One box per arena tensor.
    for p in plan
        .tensors
        .iter()
        .filter(|p| p.storage == Storage::Arena && p.bytes > 0)
    {
        let (x0, x1) = (x(p.first_step), x(p.last_step + 1));
        let (y0, h) = (y(p.offset), (p.bytes as f64 * scale).max(1.0));
        let (w, name) = (
            x1 - x0,
            graph.tensors.get(p.index).map_or("", |t| t.name.as_str()),
        );
        let hue = (p.alias_of.unwrap_or(p.index) * 47) % 360;
        let _ = writeln!(
            s,
            r##"<g><title>#{} {}: {} B at offset {}, operators {}..{}{}</title><rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" fill="hsl({hue},55%,72%)" fill-opacity="0.9" stroke="#333" stroke-width="0.6"/>"##,
            p.index,
            escape(name),
            thousands(p.bytes),
            thousands(p.offset),
            p.first_step as i64 - 1,
            p.last_step as i64 - 1,
            p.alias_of
                .map_or(String::new(), |a| format!(" (shares #{a})")),
        );
        if w >= 22.0 && h >= 11.0 {
            let size = if w >= 60.0 && h >= 24.0 {
                format!(
                    r#"<tspan x="{:.1}" dy="12">{} B</tspan>"#,
                    x0 + w / 2.0,
                    thousands(p.bytes)
                )
            } else {
                String::new()
            };
            let ty = y0 + h / 2.0 + if size.is_empty() { 4.0 } else { -2.0 };
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{ty:.1}" font-size="10" text-anchor="middle">#{}{size}</text>"#,
                x0 + w / 2.0,
                p.index
            );
        }
        s.push_str("</g>\n");
    }

    // Kernel scratch memory: a grey box in its operator's column.
    for (k, sc) in plan
        .scratch
        .iter()
        .enumerate()
        .filter(|(_, sc)| sc.bytes > 0)
    {
        let (x0, w) = (x(sc.op + 1), col);
        let (y0, h) = (y(sc.offset), (sc.bytes as f64 * scale).max(1.0));
        let _ = writeln!(
            s,
            r##"<g><title>scratch {k}: {} B at offset {}, operator {} only</title><rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" fill="#b0b0b0" fill-opacity="0.9" stroke="#333" stroke-width="0.6" stroke-dasharray="2 2"/></g>"##,
            thousands(sc.bytes),
            thousands(sc.offset),
            sc.op
        );
    }

    // Overlaps: the bytes an output shares with its dying input, hatched in the operator's column.
    let _ = writeln!(
        s,
        r##"<defs><pattern id="overlap" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff" fill-opacity="0.3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#6a1b9a" stroke-width="3"/></pattern></defs>"##
    );
    for o in &plan.overlaps {
        let Some((from, to)) = shared_bytes(plan, o) else {
            continue;
        };
        let (input, output) = o.access.tensors();
        let (x0, w) = (x(o.op + 1), col);
        let (y0, h) = (y(from), ((to - from) as f64 * scale).max(1.0));
        let _ = writeln!(
            s,
            r##"<g><title>operator {}: output #{output} overlaps input #{input} ({}) over bytes {}..{}</title><rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" fill="url(#overlap)" stroke="#6a1b9a" stroke-width="1.2"/></g>"##,
            o.op,
            overlap_kind(o),
            thousands(from),
            thousands(to)
        );
    }

    // Bytes live per step, as a step line, and the arena / bound markers.
    let live = live_per_step(plan);
    let mut points = String::new();
    for (step, &bytes) in live.iter().enumerate() {
        let _ = write!(
            points,
            "{:.1},{:.1} {:.1},{:.1} ",
            x(step),
            y(bytes),
            x(step + 1),
            y(bytes)
        );
    }
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#d00000" stroke-width="1.5"/>"##,
        points.trim_end()
    );
    let marks = [
        (plan.arena_bytes, "arena", "#000000", ""),
        (plan.lower_bound_bytes, "lower bound", "#d00000", "6 4"),
    ];
    for (i, (bytes, label, colour, dash)) in marks.iter().enumerate() {
        let yy = y(*bytes);
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{colour}" stroke-dasharray="{dash}" stroke-width="1.5"/><text x="{:.1}" y="{:.1}" font-size="11" fill="{colour}">{label} {}</text>"#,
            LEFT + plot_w,
            LEFT + plot_w + 6.0,
            yy + 4.0 + 14.0 * i as f64,
            thousands(*bytes)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle">operator</text>"#,
        LEFT + plot_w / 2.0,
        height - 8.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{:.1}" font-size="12" text-anchor="middle" transform="rotate(-90 16 {:.1})">arena offset (bytes)</text>"#,
        TOP + PLOT_H / 2.0,
        TOP + PLOT_H / 2.0
    );
    s.push_str("</svg>\n");
    s
}

/// The arena bytes `[from, to)` the output and the input of overlap `o` share, if any.
fn shared_bytes(plan: &MemoryPlan, o: &Overlap) -> Option<(usize, usize)> {
    let (input, output) = o.access.tensors();
    let (i, out) = (plan.tensors.get(input)?, plan.tensors.get(output)?);
    let from = i.offset.max(out.offset);
    let to = (i.offset + i.bytes).min(out.offset + out.bytes);
    (from < to).then_some((from, to))
}

/// Bytes live at each step: every alias group once, at its [`ALIGN`]-rounded size (members of a
/// group share their bytes, so have one size). Each group's members' lifetimes are merged, then
/// every merged range adds its size at its first step and takes it away after its last: linear
/// after a sort, where summing step by step would be quadratic in a long chain.
fn live_per_step(plan: &MemoryPlan) -> Vec<usize> {
    let steps = plan.num_steps;
    let mut ranges: Vec<(usize, usize, usize, usize)> = plan
        .tensors
        .iter()
        .filter(|p| {
            p.storage == Storage::Arena && p.first_step <= p.last_step && p.first_step < steps
        })
        .map(|p| {
            let size = p.bytes.div_ceil(ALIGN).saturating_mul(ALIGN);
            let owner = p.alias_of.unwrap_or(p.index);
            (owner, p.first_step, p.last_step.min(steps - 1), size)
        })
        .collect();
    // Scratch memory: each its own group (after every tensor index), live at its step alone.
    ranges.extend(
        plan.scratch
            .iter()
            .enumerate()
            .filter(|(_, sc)| sc.op + 1 < steps)
            .map(|(k, sc)| {
                let size = sc.bytes.div_ceil(ALIGN).saturating_mul(ALIGN);
                (plan.tensors.len() + k, sc.op + 1, sc.op + 1, size)
            }),
    );
    ranges.sort_unstable();
    let mut delta = vec![0i128; steps + 1];
    let mut add = |(_, first, last, size): (usize, usize, usize, usize)| {
        delta[first] += size as i128;
        delta[last + 1] -= size as i128;
    };
    let mut open: Option<(usize, usize, usize, usize)> = None;
    for r in ranges {
        match &mut open {
            Some(o) if o.0 == r.0 && r.1 <= o.2 => {
                o.2 = o.2.max(r.2);
                o.3 = o.3.max(r.3);
            }
            _ => {
                if let Some(o) = open.replace(r) {
                    add(o);
                }
            }
        }
    }
    if let Some(o) = open {
        add(o);
    }
    let mut running = 0i128;
    delta[..steps]
        .iter()
        .map(|d| {
            running += d;
            usize::try_from(running).unwrap_or(usize::MAX)
        })
        .collect()
}

/// Round tick values (1, 2 or 5 times a power of ten) from 0 to `max`, about eight of them.
fn y_ticks(max: usize) -> Vec<(usize, String)> {
    if max == 0 {
        return vec![(0, "0".to_string())];
    }
    let raw = (max / 8).max(1);
    let mut magnitude = 1usize;
    while magnitude.saturating_mul(10) <= raw {
        magnitude *= 10;
    }
    let step = [1, 2, 5, 10]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10 * magnitude);
    (0..=max / step)
        .map(|i| (i * step, thousands(i * step)))
        .collect()
}

/// `s` with the five XML special characters escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0 text at all.
            c if u32::from(c) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        let t = y_ticks(55_296);
        assert_eq!(t[1].0, 10_000);
        assert_eq!(t.last().map(|t| t.0), Some(50_000));
        assert_eq!(y_ticks(0).len(), 1);
    }

    #[test]
    fn xml_is_escaped() {
        assert_eq!(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
    }
}
