//! Multiply-accumulates per inference, counted from the graph: the figure instructions are divided
//! by. Only the ops whose cost is dominated by MACs count (CONV_2D, DEPTHWISE_CONV_2D,
//! TRANSPOSE_CONV, FULLY_CONNECTED, BATCH_MATMUL, SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM's gate
//! products);
//! everything else (pooling, softmax, element-wise ops) adds instructions but no MACs, so small
//! models with a large softmax show a high instructions-per-MAC figure.

use tinyaot_codegen::ir::Graph;

/// MACs of one inference of `graph` (the code generator's count, [`tinyaot_codegen::cost`], which
/// `tinyaot report` shows per operator).
pub fn macs(graph: &Graph) -> u64 {
    tinyaot_codegen::cost::macs(graph)
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
