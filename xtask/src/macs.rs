//! Multiply-accumulates per inference, counted from the graph: the figure instructions are divided
//! by. Only the ops whose cost is dominated by MACs count (CONV_2D, DEPTHWISE_CONV_2D,
//! TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL, SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM's gate
//! products);
//! everything else (pooling, softmax, element-wise ops) adds instructions but no MACs, so small
//! models with a large softmax show a high instructions-per-MAC figure.

use tinyaot_codegen::ir::{Graph, OpCode};

/// MACs of one inference of `graph`.
pub fn macs(graph: &Graph) -> u64 {
    graph
        .operators
        .iter()
        .map(|op| {
            let tensor = |i: Option<usize>| i.map(|t| &graph.tensors[t]);
            let (Some(filter), Some(output)) =
                (tensor(op.input(1)), tensor(op.outputs.first().copied()))
            else {
                return 0;
            };
            let out = output.num_elements() as u64;
            let dim = |i: usize| filter.shape.get(i).copied().unwrap_or(1) as u64;
            match op.kind.code() {
                // Filter [out_channels, kh, kw, in_channels]: each output element sums kh*kw*in.
                Some(OpCode::CONV_2D) => out * dim(1) * dim(2) * dim(3),
                // Filter [1, kh, kw, channels]: each output element sums one kh*kw window.
                Some(OpCode::DEPTHWISE_CONV_2D) => out * dim(1) * dim(2),
                // Filter [out_channels, kh, kw, in_channels]: each input element meets kh*kw*out
                // weights (those landing outside the output included, as TFLM's loop counts them).
                Some(OpCode::TRANSPOSE_CONV) => tensor(op.input(2)).map_or(0, |input| {
                    input.num_elements() as u64 * dim(0) * dim(1) * dim(2)
                }),
                // Weights [units, depth]: each output element sums `depth` products.
                Some(OpCode::FULLY_CONNECTED) => out * dim(filter.shape.len().saturating_sub(1)),
                // Input weights [units, input]: each output element (a unit at a step) sums the
                // four gates' products with the input row and the previous hidden state.
                Some(OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM) => out * 4 * (dim(1) + dim(0)),
                // Feature weights [filters, input_size], time weights [filters, memory]: per batch
                // row, each filter sums its inputs and then its memory.
                Some(OpCode::SVDF) => tensor(op.input(2)).map_or(0, |time| {
                    let batches = output.shape.first().copied().unwrap_or(1) as u64;
                    let memory = time.shape.get(1).copied().unwrap_or(0) as u64;
                    batches * dim(0) * (dim(1) + memory)
                }),
                // LHS matrices [M, K] (or [K, M] with adj_x): each output element sums K
                // products, K being the LHS matrix's size over the output's rows M.
                Some(OpCode::BATCH_MATMUL) => tensor(op.input(0)).map_or(0, |lhs| {
                    let last_two = |shape: &[usize]| match shape {
                        [.., rows, cols] => (*rows as u64, *cols as u64),
                        _ => (1, 1),
                    };
                    let (rows, cols) = last_two(&lhs.shape);
                    let (m, _) = last_two(&output.shape);
                    out * (rows * cols).checked_div(m).unwrap_or(0)
                }),
                _ => 0,
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_macs(name: &str) -> u64 {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/models")
            .join(format!("{name}.tflite"));
        let bytes = std::fs::read(&path).unwrap();
        macs(
            &tinyaot_codegen::config::load_and_fold(&bytes, &tinyaot_codegen::Limits::default())
                .unwrap(),
        )
    }

    #[test]
    fn counts_fully_connected_macs() {
        // 1 -> 16 -> 16 -> 1: 16 + 256 + 16.
        assert_eq!(model_macs("sine_mlp"), 288);
    }

    #[test]
    fn counts_batch_matmul_macs() {
        // Outputs [2, 3, 5] summing K = 4 (plain, adj_x and adj_y with a broadcast batch), then
        // [2, 3, 3, 5] summing K = 4 (both adjoint).
        assert_eq!(model_macs("batch_matmul"), 3 * (30 * 4) + 90 * 4);
    }

    #[test]
    fn counts_lstm_macs() {
        // 6 steps x 12 units x 4 gates x (5 inputs + 12 hidden), then the 72 -> 4 FC.
        assert_eq!(model_macs("lstm"), 6 * 12 * 4 * 17 + 288);
    }

    #[test]
    fn counts_svdf_macs() {
        // Batch 2: 8 filters of 12 inputs and memory 5, then 6 filters of 4 inputs and memory 3.
        assert_eq!(model_macs("svdf_int8"), 2 * (8 * (12 + 5) + 6 * (4 + 3)));
    }

    #[test]
    fn counts_convolution_macs() {
        // Element-wise models have none; a CNN has millions.
        assert_eq!(model_macs("softmax"), 0);
        assert!(model_macs("ds_cnn") > 1_000_000);
    }
}
