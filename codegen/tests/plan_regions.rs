//! Memory regions besides the arena: the planner moves the activations with the most accesses per
//! byte into each named region, as many as fit, keeps each kernel's offset operands in one
//! region, and the independent checker refuses a region plan made wrong in one specific way.

mod common;

use tinyaot_codegen::ir::Graph;
use tinyaot_codegen::lower::{lower, Call, CallKind, Operand};
use tinyaot_codegen::plan::{
    access_contracts, check_plan_with, plan_graph_in_regions, MemoryPlan, MemoryRegion, Storage,
};

fn region(name: &str, capacity: usize) -> MemoryRegion {
    MemoryRegion {
        name: name.to_string(),
        capacity,
        section: format!(".{name}"),
    }
}

/// A fixture model's graph and calls.
fn model(stem: &str) -> (Vec<u8>, Vec<Call>) {
    let path = tinyaot_test_support::fixtures_dir()
        .join("models")
        .join(format!("{stem}.tflite"));
    let bytes = common::read(&path);
    let graph = tinyaot_codegen::load::load(&bytes).expect("loads");
    let calls = lower(&graph).expect("lowers");
    (bytes, calls)
}

fn plan(bytes: &[u8], calls: &[Call], regions: &[MemoryRegion]) -> (Graph<'static>, MemoryPlan) {
    let bytes: &'static [u8] = Box::leak(bytes.to_vec().into_boxed_slice());
    let graph = tinyaot_codegen::load::load(bytes).expect("loads");
    let plan = plan_graph_in_regions(&graph, calls, true, regions).expect("plans");
    (graph, plan)
}

fn in_region(plan: &MemoryPlan, k: usize) -> Vec<usize> {
    plan.tensors
        .iter()
        .filter(|p| p.storage == Storage::Memory(k) && p.bytes > 0)
        .map(|p| p.index)
        .collect()
}

#[test]
fn hot_activations_move_and_fit() {
    let (bytes, calls) = model("mobilenet_v2_035");
    let regions = [region("dtcm", 16 << 10), region("sram2", 32 << 10)];
    let (graph, plan) = plan(&bytes, &calls, &regions);
    let (_, arena_only) = plan_without(&bytes, &calls);
    for (k, used) in plan.memory_regions.iter().enumerate() {
        assert!(
            used.bytes > 0 && used.bytes <= used.region.capacity,
            "{used:?}"
        );
        assert!(!in_region(&plan, k).is_empty());
    }
    // Nothing is in two places, and the arena holds no more than before.
    assert!(plan.arena_bytes <= arena_only.arena_bytes);
    // Every kernel finds its offset operands in one buffer.
    for call in &calls {
        let CallKind::Kernel(kernel) = &call.kind else {
            continue;
        };
        // The model's own buffer (arena, then state), or a memory region.
        let buffers: std::collections::BTreeSet<Option<usize>> = kernel
            .operands
            .iter()
            .flat_map(|o| match o {
                Operand::Offset(_) | Operand::Offsets(_) => o
                    .tensors()
                    .iter()
                    .map(|&t| match plan.tensors[t].storage {
                        Storage::Memory(k) => Some(k),
                        _ => None,
                    })
                    .collect(),
                Operand::Scratch(_) => vec![None],
                Operand::Src(_) | Operand::Srcs(_) => Vec::new(),
            })
            .collect();
        assert!(
            buffers.len() <= 1,
            "operator {}: {:?}",
            call.op,
            kernel.operands
        );
    }
    // Deterministic.
    assert_eq!(plan, self::plan(&bytes, &calls, &regions).1);
    check_plan_with(&graph, &plan, &access_contracts(&calls)).expect("the checker accepts it");
}

fn plan_without(bytes: &[u8], calls: &[Call]) -> (Graph<'static>, MemoryPlan) {
    plan(bytes, calls, &[])
}

#[test]
fn everything_moves_when_the_region_holds_the_arena() {
    let (bytes, calls) = model("ds_cnn");
    let (_, plan) = plan(&bytes, &calls, &[region("dtcm", 64 << 10)]);
    assert_eq!(plan.arena_bytes, 0);
    assert!(plan.memory_regions[0].bytes > 0);
}

#[test]
fn a_region_too_small_for_any_unit_takes_nothing() {
    let (bytes, calls) = model("ds_cnn");
    let (_, plan) = plan(&bytes, &calls, &[region("dtcm", 16)]);
    assert_eq!(plan.memory_regions[0].bytes, 0);
    assert!(in_region(&plan, 0).is_empty());
}

#[test]
fn the_checker_refuses_wrong_region_plans() {
    let (bytes, calls) = model("mobilenet_v2_035");
    let (graph, good) = plan(&bytes, &calls, &[region("dtcm", 16 << 10)]);
    let access = access_contracts(&calls);
    let check_plan = |graph: &Graph, plan: &MemoryPlan| check_plan_with(graph, plan, &access);
    check_plan(&graph, &good).expect("the plan itself is sound");
    let moved = in_region(&good, 0);
    assert!(moved.len() >= 2);

    // Two region tensors alive together at one offset.
    let live_together = moved
        .iter()
        .flat_map(|&a| moved.iter().map(move |&b| (a, b)))
        .find(|&(a, b)| {
            let (pa, pb) = (&good.tensors[a], &good.tensors[b]);
            a != b
                && pa.alias_of.is_none()
                && pb.alias_of.is_none()
                && pa.first_step <= pb.last_step
                && pb.first_step <= pa.last_step
        });
    let (a, b) = live_together.expect("two region tensors live at one step");
    let mut clash = good.clone();
    clash.tensors[b].offset = clash.tensors[a].offset;
    let end = clash.tensors[b].offset + clash.tensors[b].bytes;
    clash.memory_regions[0].bytes = clash.memory_regions[0].bytes.max(end.div_ceil(16) * 16);
    clash.memory_regions[0].region.capacity = clash.memory_regions[0]
        .region
        .capacity
        .max(clash.memory_regions[0].bytes);
    let e = check_plan(&graph, &clash).expect_err("overlap in the region");
    assert!(e.to_string().contains("overlap"), "{e}");

    // More bytes than the region holds.
    let mut over = good.clone();
    over.memory_regions[0].bytes = over.memory_regions[0].region.capacity + 16;
    assert!(check_plan(&graph, &over).is_err());

    // A tensor past the region's end.
    let mut outside = good.clone();
    outside.tensors[a].offset = outside.memory_regions[0].bytes;
    assert!(check_plan(&graph, &outside).is_err());

    // A region the plan does not have.
    let mut unknown = good.clone();
    unknown.tensors[a].storage = Storage::Memory(1);
    assert!(check_plan(&graph, &unknown).is_err());

    // A constant moved into a region.
    let constant = graph
        .tensors
        .iter()
        .position(|t| t.is_constant())
        .expect("a weight");
    let mut weight = good.clone();
    weight.tensors[constant].storage = Storage::Memory(0);
    assert!(check_plan(&graph, &weight).is_err());
}

#[test]
fn bad_region_names_and_sections_are_refused() {
    let (bytes, calls) = model("ds_cnn");
    let graph = tinyaot_codegen::load::load(&bytes).expect("loads");
    for bad in [
        MemoryRegion {
            name: "Dtcm".into(),
            capacity: 1024,
            section: ".dtcm".into(),
        },
        MemoryRegion {
            name: "arena".into(),
            capacity: 1024,
            section: ".dtcm".into(),
        },
        MemoryRegion {
            name: "type".into(),
            capacity: 1024,
            section: ".dtcm".into(),
        },
        MemoryRegion {
            name: "dtcm".into(),
            capacity: 1024,
            section: ".dt\"cm".into(),
        },
        MemoryRegion {
            name: "dtcm".into(),
            capacity: 8,
            section: ".dtcm".into(),
        },
    ] {
        let e = plan_graph_in_regions(&graph, &calls, true, std::slice::from_ref(&bad))
            .expect_err("refused");
        assert!(e.to_string().contains("memory region"), "{bad:?}: {e}");
    }
    let twice = [region("dtcm", 1024), region("dtcm", 2048)];
    let e = plan_graph_in_regions(&graph, &calls, true, &twice).expect_err("refused");
    assert!(e.to_string().contains("twice"), "{e}");
}

#[test]
fn a_group_refuses_regions() {
    let fixture = |stem: &str| {
        tinyaot_test_support::fixtures_dir()
            .join("models")
            .join(format!("{stem}.tflite"))
    };
    let models = [
        tinyaot_codegen::GroupModel::new(fixture("ds_cnn")),
        tinyaot_codegen::GroupModel::new(fixture("resnet8")),
    ];
    let mut config = tinyaot_codegen::Config::new();
    config.memory_region("dtcm", 16 << 10, ".dtcm");
    let e = config.plan_group(&models).expect_err("refused");
    assert!(e.to_string().contains("not to a group"), "{e}");
    let out = std::env::temp_dir().join(format!("tinyaot-group-regions-{}", std::process::id()));
    let e = config
        .out_dir(&out)
        .compile_group(&models)
        .expect_err("refused");
    assert!(e.to_string().contains("not to a group"), "{e}");
    assert!(!out.join("models.rs").exists());
}
