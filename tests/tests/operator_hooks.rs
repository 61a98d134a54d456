//! `invoke_with`: the hook sees every operator of the model, in execution order (the file's, or
//! the one the planner chose to lower the memory peak), once before and once after it runs, with
//! the `.tflite`'s operator index and builtin name (an IF branch's operator: its index in its
//! subgraph, and only when the branch runs; a WHILE's loop once per iteration, the last one up to
//! its exit), and the outputs are those of `invoke`.

use tinyaot_tests::models::ENTRIES;
use tinyaot_tests::Outcome;

#[test]
fn the_hook_wraps_every_operator_and_changes_nothing() {
    let (mut checked, mut reordered) = (0, 0);
    for entry in ENTRIES.iter().filter(|e| e.suite == "fixtures") {
        let Outcome::Compiled(make) = entry.outcome else {
            continue;
        };
        let path = tinyaot_test_support::fixtures_dir()
            .join("models")
            .join(format!("{}.tflite", entry.name));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let report = tinyaot_codegen::Config::new()
            .plan(&bytes)
            .expect("a fixture that compiled plans");
        // The operators of an IF's branch run (and are hooked) only when its condition selects
        // that branch: the events are those of the then branch or of the else branch (the
        // fixtures have one IF at most).
        let expected = |taken: bool| -> Vec<(bool, usize, String)> {
            report
                .graph()
                .operators
                .iter()
                .filter(|op| op.branch.is_none_or(|b| b.taken == taken))
                .flat_map(|op| {
                    let i = op.source_index;
                    [(true, i, op.kind.name()), (false, i, op.kind.name())]
                })
                .collect()
        };
        let branched = report
            .graph()
            .operators
            .iter()
            .any(|op| op.branch.is_some());
        if report
            .graph()
            .operators
            .iter()
            .enumerate()
            .any(|(i, op)| i != op.source_index)
        {
            reordered += 1;
        }

        let (mut plain, mut hooked) = (make(), make());
        let (inputs, outputs) = plain.counts();
        for i in 0..inputs {
            // The same arbitrary input in both instances.
            for (k, (a, b)) in plain
                .input(i)
                .iter_mut()
                .zip(hooked.input(i).iter_mut())
                .enumerate()
            {
                let v = (k * 37 + i * 11) as u8 & 0x3f;
                *a = v;
                *b = v;
            }
        }
        plain.invoke();
        let events = hooked.invoke_recording();
        let events: Vec<(bool, usize, String)> = events
            .into_iter()
            .map(|(before, i, name)| (before, i, name.to_string()))
            .collect();
        if report
            .graph()
            .operators
            .iter()
            .any(|op| op.looped.is_some())
        {
            assert_eq!(
                events,
                looped_events(report.graph(), events.len()),
                "{}: hook calls",
                entry.name
            );
        } else if branched && events != expected(true) {
            assert_eq!(events, expected(false), "{}: hook calls", entry.name);
        } else {
            let all = expected(true);
            // A CIRCULAR_BUFFER still waiting for frames ends the invoke right after itself (its
            // stop byte; TFLM's kTfLiteAbort): the hook saw the operators up to it, in order.
            let stopped = events.len() < all.len()
                && events[..] == all[..events.len()]
                && events
                    .last()
                    .is_some_and(|(before, _, name)| !before && name == "CUSTOM(CIRCULAR_BUFFER)");
            if !stopped {
                assert_eq!(events, all, "{}: hook calls", entry.name);
            }
        }
        for o in 0..outputs {
            assert_eq!(
                plain.output(o),
                hooked.output(o),
                "{}: output {o} differs with the hook",
                entry.name
            );
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} fixture models were checked");
    // parallel_branches (int8 and float) run in another order than the file's.
    assert!(
        reordered >= 2,
        "only {reordered} reordered models were checked"
    );
}

/// The hook calls of a model with one WHILE (the fixtures have one at most) that made `count`
/// calls: the operators before its loop, some whole iterations of the loop, the last one up to
/// its exit (after which nothing of the loop runs), then the operators after the loop. The number
/// of iterations is the one that makes `count` calls; none makes the list empty (a mismatch).
fn looped_events(graph: &tinyaot_codegen::ir::Graph, count: usize) -> Vec<(bool, usize, String)> {
    use tinyaot_codegen::ir::{Options, WhileStep};
    let ops = &graph.operators;
    let events = |range: std::ops::Range<usize>| -> Vec<(bool, usize, String)> {
        ops[range]
            .iter()
            .flat_map(|op| {
                let i = op.source_index;
                [(true, i, op.kind.name()), (false, i, op.kind.name())]
            })
            .collect()
    };
    let first = ops
        .iter()
        .position(|op| op.looped.is_some())
        .expect("a loop");
    let last = ops
        .iter()
        .rposition(|op| op.looped.is_some())
        .expect("a loop");
    let exit = ops
        .iter()
        .position(|op| op.options == Options::While(WhileStep::Exit))
        .expect("an exit");
    let (before, whole, partial, after) = (
        events(0..first),
        events(first..last + 1),
        events(first..exit + 1),
        events(last + 1..ops.len()),
    );
    let fixed = before.len() + partial.len() + after.len();
    let Some(iterations) = count
        .checked_sub(fixed)
        .filter(|rest| rest % whole.len() == 0)
        .map(|rest| rest / whole.len())
    else {
        return Vec::new();
    };
    let mut expected = before;
    for _ in 0..iterations {
        expected.extend(whole.iter().cloned());
    }
    expected.extend(partial);
    expected.extend(after);
    expected
}
