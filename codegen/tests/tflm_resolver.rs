//! TFLM's operator list against tinyaot's registry: every operator `MicroMutableOpResolver`
//! (tensorflow/lite/micro/micro_mutable_op_resolver.h, tflite-micro 90b983c) registers, by its
//! `Add*` methods (`AddBuiltin(BuiltinOperator_X, ..)` and `AddCustom("name", ..)`), and which of
//! them tinyaot does not compile. The list is a fact about TFLM, copied by hand from that header:
//! when TFLM adds an operator, add it here; when tinyaot compiles one more, take it out of
//! [`LACKING`].

use tinyaot_codegen::lower::supported_ops;

/// Every operator TFLM's `MicroMutableOpResolver` can register, as tinyaot names them (custom
/// operators as `CUSTOM(name)`), sorted.
const TFLM_RESOLVER: &[&str] = &[
    "ABS",
    "ADD",
    "ADD_N",
    "ARG_MAX",
    "ARG_MIN",
    "ASSIGN_VARIABLE",
    "AVERAGE_POOL_2D",
    "BATCH_MATMUL",
    "BATCH_TO_SPACE_ND",
    "BROADCAST_ARGS",
    "BROADCAST_TO",
    "CALL_ONCE",
    "CAST",
    "CEIL",
    "CONCATENATION",
    "CONV_2D",
    "COS",
    "CUMSUM",
    "CUSTOM(CIRCULAR_BUFFER)",
    "CUSTOM(SignalDelay)",
    "CUSTOM(SignalEnergy)",
    "CUSTOM(SignalFftAutoScale)",
    "CUSTOM(SignalFilterBank)",
    "CUSTOM(SignalFilterBankLog)",
    "CUSTOM(SignalFilterBankSpectralSubtraction)",
    "CUSTOM(SignalFilterBankSquareRoot)",
    "CUSTOM(SignalFramer)",
    "CUSTOM(SignalIrfft)",
    "CUSTOM(SignalOverlapAdd)",
    "CUSTOM(SignalPCAN)",
    "CUSTOM(SignalRfft)",
    "CUSTOM(SignalStacker)",
    "CUSTOM(SignalWindow)",
    "CUSTOM(TFLM_DECODE)",
    "CUSTOM(TFLite_Detection_PostProcess)",
    "CUSTOM(ethos-u)",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "DIV",
    "DYNAMIC_UPDATE_SLICE",
    "ELU",
    "EMBEDDING_LOOKUP",
    "EQUAL",
    "EXP",
    "EXPAND_DIMS",
    "FILL",
    "FLOOR",
    "FLOOR_DIV",
    "FLOOR_MOD",
    "FULLY_CONNECTED",
    "GATHER",
    "GATHER_ND",
    "GREATER",
    "GREATER_EQUAL",
    "HARD_SWISH",
    "IF",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LEAKY_RELU",
    "LESS",
    "LESS_EQUAL",
    "LOG",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "LOGICAL_OR",
    "LOGISTIC",
    "LOG_SOFTMAX",
    "MAXIMUM",
    "MAX_POOL_2D",
    "MEAN",
    "MINIMUM",
    "MIRROR_PAD",
    "MUL",
    "NEG",
    "NOT_EQUAL",
    "PACK",
    "PAD",
    "PADV2",
    "PRELU",
    "QUANTIZE",
    "READ_VARIABLE",
    "REDUCE_ALL",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "RELU",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR",
    "REVERSE_V2",
    "ROUND",
    "RSQRT",
    "SELECT_V2",
    "SHAPE",
    "SIN",
    "SLICE",
    "SOFTMAX",
    "SPACE_TO_BATCH_ND",
    "SPACE_TO_DEPTH",
    "SPLIT",
    "SPLIT_V",
    "SQRT",
    "SQUARE",
    "SQUARED_DIFFERENCE",
    "SQUEEZE",
    "STRIDED_SLICE",
    "SUB",
    "SUM",
    "SVDF",
    "TANH",
    "TRANSPOSE",
    "TRANSPOSE_CONV",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "UNPACK",
    "VAR_HANDLE",
    "WHILE",
    "ZEROS_LIKE",
];

/// Those tinyaot does not compile, and why: ethos-u (`AddEthosU`) is an Arm Ethos-U NPU's
/// command stream, which only the NPU's driver runs (refused saying so). (TFLM_DECODE, `AddDecode`,
/// is compiled for lookup-table decoding; its Huffman and pruning decoders are refused as not
/// compiled yet, by the decode lowering.)
const LACKING: &[&str] = &["CUSTOM(ethos-u)"];

#[test]
fn tinyaot_compiles_every_operator_tflm_registers_but_the_listed_ones() {
    let ours = supported_ops();
    let lacking: Vec<&str> = TFLM_RESOLVER
        .iter()
        .copied()
        .filter(|name| !ours.iter().any(|o| o == name))
        .collect();
    assert_eq!(
        lacking, LACKING,
        "operators TFLM's MicroMutableOpResolver registers and tinyaot does not compile"
    );
    let unknown: Vec<&String> = ours
        .iter()
        .filter(|o| !TFLM_RESOLVER.contains(&o.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "operators tinyaot compiles that TFLM's resolver does not register: {unknown:?}"
    );
}
