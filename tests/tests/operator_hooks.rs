//! `invoke_with`: the hook sees every operator of the model, in execution order (the file's, or
//! the one the planner chose to lower the memory peak), once before and once after it runs, with
//! the `.tflite`'s operator index and builtin name (an IF branch's operator: its index in its
//! subgraph, and only when the branch runs), and the outputs are those of `invoke`.

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
        if branched && events != expected(true) {
            assert_eq!(events, expected(false), "{}: hook calls", entry.name);
        } else {
            assert_eq!(events, expected(true), "{}: hook calls", entry.name);
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
