//! One FlatBuffer operator → [`ir::Operator`]: what it is, its tensors, its options.

use flatbuffers::{ForwardsUOffset, Vector};
use tinyaot_schema::tflite;

use super::{index, options, text};
use crate::error::{Error, Result};
use crate::ir::{self, OpCode, OpKind};

/// Longest custom op name accepted. Operators refer to their code by index, so one long name in
/// the code table would otherwise be copied once per operator: the limit keeps the loader's
/// allocations linear in the file size. Real custom op names are a few dozen bytes.
const MAX_CUSTOM_CODE_LEN: usize = 1024;

/// The model's operator-code table.
pub(super) type OpCodes<'m> = Option<Vector<'m, ForwardsUOffset<tflite::OperatorCode<'m>>>>;

/// Converts operator `index` (execution order) of the subgraph.
pub(super) fn operator(
    index: usize,
    op: tflite::Operator<'_>,
    codes: OpCodes<'_>,
    num_tensors: usize,
) -> Result<ir::Operator> {
    let (kind, version) = kind(index, op.opcode_index(), codes)?;
    let inputs =
        op.inputs()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, raw)| match raw {
                // -1 marks an optional input the model leaves out.
                -1 => Ok(None),
                _ => index::tensor(raw, num_tensors, || format!("operator {index} input {i}"))
                    .map(Some),
            })
            .collect::<Result<Vec<_>>>()?;
    let outputs = index::tensor_list(
        op.outputs(),
        num_tensors,
        &format!("operator {index} output"),
    )?;
    let intermediates = index::tensor_list(
        op.intermediates(),
        num_tensors,
        &format!("operator {index} intermediate"),
    )?;
    let options = options::decode(index, &kind, &op)?;
    Ok(ir::Operator {
        kind,
        version,
        options,
        inputs,
        outputs,
        intermediates,
        source_index: index,
        branch: None,
        looped: None,
    })
}

/// Resolves an operator's `opcode_index` to its kind and version.
fn kind(index: usize, opcode_index: u32, codes: OpCodes<'_>) -> Result<(OpKind, i32)> {
    let len = codes.map_or(0, |c| c.len());
    let code = match (codes, usize::try_from(opcode_index)) {
        // `Vector::get` asserts in range; the guard makes that assertion unreachable.
        (Some(codes), Ok(i)) if i < len => codes.get(i),
        _ => {
            return Err(Error::IndexOutOfRange {
                context: format!("operator {index} opcode_index"),
                index: i64::from(opcode_index),
                len,
            })
        }
    };
    // Files written before the code outgrew a byte set only `deprecated_builtin_code`; newer ones
    // set both, or only the wide field for codes past 127. TFLite takes the larger of the two.
    let builtin = i32::from(code.deprecated_builtin_code()).max(code.builtin_code().0);
    if builtin < 0 {
        return Err(Error::Corrupt {
            detail: format!(
                "operator {index} uses operator code {opcode_index}, whose builtin code {builtin} \
                 is negative"
            ),
        });
    }
    let kind = if OpCode(builtin) == OpCode::CUSTOM {
        // The name as text; one that is not UTF-8 (TFLM would look it up byte for byte and find no
        // registration) is an unknown custom op like any other, shown with `\xNN` escapes.
        match code.custom_code_bytes() {
            Some(name) if name.len() <= MAX_CUSTOM_CODE_LEN => OpKind::Custom(text(Some(name))),
            Some(name) => {
                return Err(Error::Corrupt {
                    detail: format!(
                        "operator {index} is CUSTOM with a {}-byte custom_code; names longer \
                         than {MAX_CUSTOM_CODE_LEN} bytes are not accepted",
                        name.len()
                    ),
                })
            }
            None => {
                return Err(Error::Corrupt {
                    detail: format!(
                        "operator {index} is CUSTOM but its operator code {opcode_index} has no \
                         custom_code"
                    ),
                })
            }
        }
    } else {
        OpKind::Builtin(OpCode(builtin))
    };
    Ok((kind, code.version()))
}
