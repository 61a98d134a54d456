//! Fuzz target: `tinyaot_codegen::load::load` on arbitrary bytes must return Ok or Err, never
//! panic, hang or allocate without bound. On Ok, every tensor and operator is read so that the
//! fuzzer also exercises (and the sanitizer checks) the data the loader handed back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(graph) = tinyaot_codegen::load::load(data) else {
        return;
    };
    let mut sum: usize = 0;
    for t in &graph.tensors {
        sum = sum
            .wrapping_add(t.bytes)
            .wrapping_add(t.num_elements())
            .wrapping_add(t.name.len());
        if let Some(d) = t.data.as_deref() {
            // The IR promises constant data is exactly `bytes` long.
            assert_eq!(d.len(), t.bytes);
            sum = sum.wrapping_add(d.first().copied().unwrap_or(0) as usize);
            sum = sum.wrapping_add(d.last().copied().unwrap_or(0) as usize);
        }
        if let Some(q) = &t.quant {
            assert_eq!(q.scales.len(), q.zero_points.len());
            if q.is_per_channel() {
                assert_eq!(t.shape.get(q.axis), Some(&q.scales.len()));
            }
        }
    }
    let n = graph.tensors.len();
    for op in &graph.operators {
        sum = sum.wrapping_add(op.kind.name().len());
        for &t in op
            .inputs
            .iter()
            .flatten()
            .chain(&op.outputs)
            .chain(&op.intermediates)
        {
            // Every index the loader returns is in range.
            assert!(t < n);
            sum = sum.wrapping_add(graph.tensors[t].bytes);
        }
        sum = sum.wrapping_add(format!("{:?}", op.options).len());
    }
    for &t in graph.inputs.iter().chain(&graph.outputs) {
        assert!(t < n);
    }
    if let Some(offsets) = &graph.offline_offsets {
        assert_eq!(offsets.len(), n);
    }
    std::hint::black_box(sum);
});
