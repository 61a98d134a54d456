//! [`Category::ResourceLimits`]: sizes beyond the configured limits or the target's address
//! space.

use super::builders::with;
use super::{Case, Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec};

pub(super) fn resource_limits(cases: &mut Vec<Case>) {
    let mut s = Suite {
        cases,
        category: Category::ResourceLimits,
    };
    // 5 GiB of activations: beyond a 32-bit target's address space and the default arena limit.
    s.refused(
        "activation_of_5_gib",
        ModelSpec::single_op(
            B::RELU,
            Options::None,
            vec![TensorSpec::int8(&[1024, 1024, 1024, 5], 0.1, 0)],
            vec![TensorSpec::int8(&[1024, 1024, 1024, 5], 0.1, 0)],
        ),
        Refusal::Limit,
        "",
    );
    // 24 GiB: the C backend once declared a static array this large.
    s.refused(
        "activation_of_24_gib",
        unary_f32_shaped(&[1024, 1024, 1024, 6]),
        Refusal::Limit,
        "",
    );
    // A tensor whose byte size overflows 64 bits: refused by the tensor-size limit, not wrapped.
    s.refused(
        "byte_size_overflows_u64",
        unary_f32_shaped(&[i32::MAX, i32::MAX, i32::MAX]),
        Refusal::Limit,
        "max-tensor-bytes",
    );
    // A constant whose shape says 257 MiB: refused by the per-tensor limit from its shape alone,
    // before its (here much shorter) data is looked at or anything is copied.
    s.refused(
        "constant_of_257_mib",
        ModelSpec::single_op(
            B::ADD,
            Options::default_for(B::ADD),
            vec![
                TensorSpec::f32(&[257, 1024, 256]),
                TensorSpec::f32(&[257, 1024, 256]).constant(vec![0u8; 64]),
            ],
            vec![TensorSpec::f32(&[257, 1024, 256])],
        ),
        Refusal::Limit,
        "max-tensor-bytes",
    );
    // Many operators: above the default limit (100,000), refused before any per-operator work.
    s.refused(
        "operators_above_the_limit",
        with(ModelSpec::new(), |m| {
            let mut x = m.tensor(TensorSpec::f32(&[1]));
            m.inputs = vec![x];
            for _ in 0..100_001 {
                let y = m.tensor(TensorSpec::f32(&[1]));
                m.op(B::RELU, Options::None, &[x], &[y]);
                x = y;
            }
            m.outputs = vec![x];
        }),
        Refusal::Limit,
        "operator",
    );
}

fn unary_f32_shaped(shape: &[i32]) -> ModelSpec {
    ModelSpec::single_op(
        B::RELU,
        Options::None,
        vec![TensorSpec::f32(shape)],
        vec![TensorSpec::f32(shape)],
    )
}
