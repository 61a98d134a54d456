//! TFLM_DECODE of several tensors, split into one operator per tensor. TFLM's DECODE takes its
//! inputs in pairs (a compressed tensor and its ancillary data) and decodes each pair into the
//! output of the same position, one after the other (decode.cc Eval), so a DECODE of `n`
//! tensors is `n` DECODEs of one, run in its place in the same order; each keeps the DECODE's
//! index for messages and hooks and is named by the tensor it writes (`Operator::ident`). A
//! DECODE whose inputs are not pairs of its outputs stays whole for the lowering to refuse with
//! TFLM's reason.

use crate::ir::Operator;

/// Whether `op` is a DECODE of several tensors, its inputs their pairs.
fn splits(op: &Operator) -> bool {
    op.is_decode() && op.outputs.len() > 1 && op.inputs.len() == 2 * op.outputs.len()
}

/// Replaces each DECODE of several tensors by one DECODE per tensor, in place.
pub(super) fn split(operators: &mut Vec<Operator>) {
    if !operators.iter().any(splits) {
        return;
    }
    let ops = std::mem::take(operators);
    for op in ops {
        if !splits(&op) {
            operators.push(op);
            continue;
        }
        for (k, &output) in op.outputs.iter().enumerate() {
            operators.push(Operator {
                inputs: op.inputs[2 * k..2 * k + 2].to_vec(),
                outputs: vec![output],
                ..op.clone()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split;
    use crate::ir::{OpCode, OpKind, Operator, Options};

    fn op(kind: OpKind, inputs: &[usize], outputs: &[usize], source_index: usize) -> Operator {
        Operator {
            kind,
            version: 1,
            options: Options::None,
            inputs: inputs.iter().map(|&t| Some(t)).collect(),
            outputs: outputs.to_vec(),
            intermediates: vec![],
            source_index,
            branch: None,
            looped: None,
        }
    }

    #[test]
    fn a_decode_of_two_tensors_becomes_two_in_its_place() {
        let decode = OpKind::Custom("TFLM_DECODE".into());
        let conv = OpKind::Builtin(OpCode::CONV_2D);
        let mut ops = vec![
            op(decode.clone(), &[1, 2, 3, 4], &[5, 6], 0),
            op(conv.clone(), &[0, 5, 6], &[7], 1),
            // Not pairs: left for the lowering to refuse.
            op(decode.clone(), &[1, 2, 3], &[8, 9], 2),
        ];
        split(&mut ops);
        let got: Vec<_> = ops
            .iter()
            .map(|o| (o.source_index, o.inputs.clone(), o.outputs.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (0, vec![Some(1), Some(2)], vec![5]),
                (0, vec![Some(3), Some(4)], vec![6]),
                (1, vec![Some(0), Some(5), Some(6)], vec![7]),
                (2, vec![Some(1), Some(2), Some(3)], vec![8, 9]),
            ]
        );
        assert_ne!(ops[0].ident(), ops[1].ident());
    }
}
