//! Builtin options: the [`Options`] enum, its constructors and defaults, and its serialisation
//! into the options tables of the FlatBuffer.

use flatbuffers::{FlatBufferBuilder, UnionWIPOffset, WIPOffset};
use tinyaot_schema::tflite;

use crate::{Activation, BuiltinOperator, BuiltinOptions, Padding, TensorType, WeightsFormat};

/// Builtin options, one variant per options table tinyaot reads (plus the empty tables of the other
/// ops it lowers). Enum-typed fields are the schema's newtypes, so out-of-range values are
/// expressible (`Activation(9)`, `Padding(-1)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Options {
    /// No options table (`builtin_options_type` NONE).
    None,
    /// `Conv2DOptions`.
    Conv2D {
        /// SAME or VALID.
        padding: Padding,
        /// Horizontal stride.
        stride_w: i32,
        /// Vertical stride.
        stride_h: i32,
        /// Horizontal dilation.
        dilation_w: i32,
        /// Vertical dilation.
        dilation_h: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// `DepthwiseConv2DOptions`.
    DepthwiseConv2D {
        /// SAME or VALID.
        padding: Padding,
        /// Horizontal stride.
        stride_w: i32,
        /// Vertical stride.
        stride_h: i32,
        /// Output channels per input channel.
        depth_multiplier: i32,
        /// Horizontal dilation.
        dilation_w: i32,
        /// Vertical dilation.
        dilation_h: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// `TransposeConvOptions`.
    TransposeConv {
        /// SAME or VALID.
        padding: Padding,
        /// Horizontal stride.
        stride_w: i32,
        /// Vertical stride.
        stride_h: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// `FullyConnectedOptions`.
    FullyConnected {
        /// Fused activation.
        activation: Activation,
        /// DEFAULT or a shuffled format.
        weights_format: WeightsFormat,
        /// Keep the input's leading dimensions in the output.
        keep_num_dims: bool,
    },
    /// `Pool2DOptions` (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D).
    Pool2D {
        /// SAME or VALID.
        padding: Padding,
        /// Horizontal stride.
        stride_w: i32,
        /// Vertical stride.
        stride_h: i32,
        /// Window width.
        filter_w: i32,
        /// Window height.
        filter_h: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// `SoftmaxOptions`.
    Softmax {
        /// The inverse temperature.
        beta: f32,
    },
    /// `AddOptions`.
    Add {
        /// Fused activation.
        activation: Activation,
    },
    /// `SubOptions`.
    Sub {
        /// Fused activation.
        activation: Activation,
    },
    /// `MulOptions`.
    Mul {
        /// Fused activation.
        activation: Activation,
    },
    /// `DivOptions`.
    Div {
        /// Fused activation.
        activation: Activation,
    },
    /// The empty `SquaredDifferenceOptions`.
    SquaredDifference,
    /// `ConcatenationOptions`.
    Concatenation {
        /// The axis (negative counts from the end).
        axis: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// `ReshapeOptions`.
    Reshape {
        /// `new_shape` (`None` leaves the field out).
        new_shape: Option<Vec<i32>>,
    },
    /// `SqueezeOptions`.
    Squeeze {
        /// Axes to squeeze (empty: every size-1 axis).
        squeeze_dims: Vec<i32>,
    },
    /// `PackOptions`.
    Pack {
        /// `values_count`: how many inputs.
        values_count: i32,
        /// `axis`: the new output axis.
        axis: i32,
    },
    /// `StridedSliceOptions`.
    StridedSlice {
        /// `begin_mask`.
        begin_mask: i32,
        /// `end_mask`.
        end_mask: i32,
        /// `ellipsis_mask`.
        ellipsis_mask: i32,
        /// `new_axis_mask`.
        new_axis_mask: i32,
        /// `shrink_axis_mask`.
        shrink_axis_mask: i32,
        /// `offset`: end is begin + end.
        offset: bool,
    },
    /// `ReducerOptions` (MEAN and the other reductions).
    Reducer {
        /// Keep reduced axes as size 1.
        keep_dims: bool,
    },
    /// `LeakyReluOptions`.
    LeakyRelu {
        /// Slope below zero.
        alpha: f32,
    },
    /// The empty `PadOptions`.
    Pad,
    /// The empty `PadV2Options`.
    PadV2,
    /// The empty `TransposeOptions`.
    Transpose,
    /// The empty `QuantizeOptions`.
    Quantize,
    /// The empty `DequantizeOptions`.
    Dequantize,
    /// The empty `HardSwishOptions`.
    HardSwish,
    /// The empty `MaximumMinimumOptions` (MAXIMUM, MINIMUM).
    MaximumMinimum,
    /// `SVDFOptions`.
    Svdf {
        /// Filters per output unit.
        rank: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// `UnidirectionalSequenceLSTMOptions`.
    UnidirectionalSequenceLstm {
        /// The cell gate's activation (TFLM's kernel implements TANH).
        activation: Activation,
        /// The cell state's clip (0: none).
        cell_clip: f32,
        /// Whether the input is `[time, batches, features]` rather than `[batches, time, …]`.
        time_major: bool,
    },
    /// The empty `ExpandDimsOptions`.
    ExpandDims,
    /// `SplitOptions`.
    Split {
        /// Number of outputs.
        num_splits: i32,
    },
    /// `SplitVOptions`.
    SplitV {
        /// Number of outputs.
        num_splits: i32,
    },
    /// The empty `SliceOptions`.
    Slice,
    /// `UnpackOptions`.
    Unpack {
        /// Number of outputs.
        num: i32,
        /// The axis unpacked (negative: from the end).
        axis: i32,
    },
    /// `ShapeOptions`.
    Shape {
        /// The output's type.
        out_type: TensorType,
    },
    /// `GatherOptions`.
    Gather {
        /// The axis gathered along (negative: from the end).
        axis: i32,
        /// Leading dimensions shared by the input and the positions.
        batch_dims: i32,
    },
    /// `IfOptions`: the subgraphs IF runs when its condition is true and when it is false.
    If {
        /// The subgraph run when the condition is true.
        then_subgraph: i32,
        /// The subgraph run when it is false.
        else_subgraph: i32,
    },
    /// `WhileOptions`: the subgraphs of WHILE's condition and body.
    While {
        /// The condition subgraph.
        cond_subgraph: i32,
        /// The body subgraph.
        body_subgraph: i32,
    },
    /// `CallOnceOptions`: the subgraph CALL_ONCE runs on the first invocation.
    CallOnce {
        /// The init subgraph.
        init_subgraph: i32,
    },
    /// `VarHandleOptions`: the resource variable's container and shared name.
    VarHandle {
        /// `container` (`None` leaves it out).
        container: Option<String>,
        /// `shared_name` (`None` leaves it out).
        shared_name: Option<String>,
    },
    /// `ResizeNearestNeighborOptions` or (`bilinear`) `ResizeBilinearOptions`.
    Resize {
        /// RESIZE_BILINEAR's table rather than RESIZE_NEAREST_NEIGHBOR's.
        bilinear: bool,
        /// Corner pixels aligned.
        align_corners: bool,
        /// Pixel centres at half-integers.
        half_pixel_centers: bool,
    },
    /// `DepthToSpaceOptions` or (`to_depth`) `SpaceToDepthOptions`.
    BlockSize {
        /// SPACE_TO_DEPTH's table rather than DEPTH_TO_SPACE's.
        to_depth: bool,
        /// The block size.
        block_size: i32,
    },
    /// `MirrorPadOptions`.
    MirrorPad {
        /// SYMMETRIC rather than REFLECT.
        symmetric: bool,
    },
    /// `BatchMatMulOptions`.
    BatchMatMul {
        /// The LHS is given transposed (its last two dimensions swapped).
        adj_x: bool,
        /// The RHS is given transposed.
        adj_y: bool,
    },
    /// `CumsumOptions`.
    Cumsum {
        /// Each output is the sum of the elements before it.
        exclusive: bool,
        /// The sum runs from the axis's last element.
        reverse: bool,
    },
    /// `table`'s options written with the union tag `tag` instead of its own: a type confusion a
    /// hostile file can carry (the verifier then checks the table against `tag`'s layout).
    Mislabeled {
        /// The `builtin_options_type` written.
        tag: BuiltinOptions,
        /// The table written.
        table: Box<Options>,
    },
}

impl Options {
    /// `Conv2DOptions` with the given padding, `(stride_w, stride_h)`, activation, dilation 1.
    pub fn conv2d(padding: Padding, stride: (i32, i32), activation: Activation) -> Self {
        Options::Conv2D {
            padding,
            stride_w: stride.0,
            stride_h: stride.1,
            dilation_w: 1,
            dilation_h: 1,
            activation,
        }
    }

    /// `DepthwiseConv2DOptions` with dilation 1.
    pub fn depthwise(
        padding: Padding,
        stride: (i32, i32),
        depth_multiplier: i32,
        activation: Activation,
    ) -> Self {
        Options::DepthwiseConv2D {
            padding,
            stride_w: stride.0,
            stride_h: stride.1,
            depth_multiplier,
            dilation_w: 1,
            dilation_h: 1,
            activation,
        }
    }

    /// `Pool2DOptions` with `(stride_w, stride_h)` and `(filter_w, filter_h)`.
    pub fn pool(
        padding: Padding,
        stride: (i32, i32),
        filter: (i32, i32),
        activation: Activation,
    ) -> Self {
        Options::Pool2D {
            padding,
            stride_w: stride.0,
            stride_h: stride.1,
            filter_w: filter.0,
            filter_h: filter.1,
            activation,
        }
    }

    /// `FullyConnectedOptions` with default weights and `keep_num_dims` false.
    pub fn fully_connected(activation: Activation) -> Self {
        Options::FullyConnected {
            activation,
            weights_format: WeightsFormat::DEFAULT,
            keep_num_dims: false,
        }
    }

    /// Well-formed options for `op` as the TFLite converter writes them: stride 1, SAME padding,
    /// 2×2 pool windows, depth multiplier 1, no activation, softmax beta 1, leaky alpha 0.2, no
    /// reshape `new_shape` (the shape input rules), concatenation on axis -1, SVDF rank 1. Ops
    /// without an options table get [`Options::None`].
    pub fn default_for(op: BuiltinOperator) -> Self {
        use BuiltinOperator as B;
        let none = Activation::NONE;
        match op {
            B::CONV_2D => Options::conv2d(Padding::SAME, (1, 1), none),
            B::DEPTHWISE_CONV_2D => Options::depthwise(Padding::SAME, (1, 1), 1, none),
            B::FULLY_CONNECTED => Options::fully_connected(none),
            B::AVERAGE_POOL_2D | B::MAX_POOL_2D | B::L2_POOL_2D => {
                Options::pool(Padding::SAME, (1, 1), (2, 2), none)
            }
            B::SOFTMAX => Options::Softmax { beta: 1.0 },
            B::ADD => Options::Add { activation: none },
            B::SUB => Options::Sub { activation: none },
            B::MUL => Options::Mul { activation: none },
            B::DIV => Options::Div { activation: none },
            B::SQUARED_DIFFERENCE => Options::SquaredDifference,
            B::CONCATENATION => Options::Concatenation {
                axis: -1,
                activation: none,
            },
            B::RESHAPE => Options::Reshape { new_shape: None },
            B::SQUEEZE => Options::Squeeze {
                squeeze_dims: Vec::new(),
            },
            B::STRIDED_SLICE => Options::StridedSlice {
                begin_mask: 0,
                end_mask: 0,
                ellipsis_mask: 0,
                new_axis_mask: 0,
                shrink_axis_mask: 0,
                offset: false,
            },
            B::MEAN => Options::Reducer { keep_dims: true },
            B::LEAKY_RELU => Options::LeakyRelu { alpha: 0.2 },
            B::PAD => Options::Pad,
            B::PADV2 => Options::PadV2,
            B::TRANSPOSE => Options::Transpose,
            B::QUANTIZE => Options::Quantize,
            B::DEQUANTIZE => Options::Dequantize,
            B::HARD_SWISH => Options::HardSwish,
            B::MAXIMUM | B::MINIMUM => Options::MaximumMinimum,
            B::EXPAND_DIMS => Options::ExpandDims,
            B::SVDF => Options::Svdf {
                rank: 1,
                activation: none,
            },
            B::UNIDIRECTIONAL_SEQUENCE_LSTM => Options::UnidirectionalSequenceLstm {
                activation: Activation::TANH,
                cell_clip: 0.0,
                time_major: false,
            },
            B::SPLIT => Options::Split { num_splits: 1 },
            B::SPLIT_V => Options::SplitV { num_splits: 1 },
            B::SLICE => Options::Slice,
            B::UNPACK => Options::Unpack { num: 1, axis: 0 },
            B::SHAPE => Options::Shape {
                out_type: TensorType::INT32,
            },
            B::GATHER => Options::Gather {
                axis: 0,
                batch_dims: 0,
            },
            _ => Options::None,
        }
    }

    /// The union tag this variant writes.
    pub fn tag(&self) -> BuiltinOptions {
        use BuiltinOptions as T;
        match self {
            Options::None => T::NONE,
            Options::Conv2D { .. } => T::Conv2DOptions,
            Options::DepthwiseConv2D { .. } => T::DepthwiseConv2DOptions,
            Options::TransposeConv { .. } => T::TransposeConvOptions,
            Options::FullyConnected { .. } => T::FullyConnectedOptions,
            Options::Pool2D { .. } => T::Pool2DOptions,
            Options::Softmax { .. } => T::SoftmaxOptions,
            Options::Add { .. } => T::AddOptions,
            Options::Sub { .. } => T::SubOptions,
            Options::Mul { .. } => T::MulOptions,
            Options::Div { .. } => T::DivOptions,
            Options::SquaredDifference => T::SquaredDifferenceOptions,
            Options::Concatenation { .. } => T::ConcatenationOptions,
            Options::Reshape { .. } => T::ReshapeOptions,
            Options::Squeeze { .. } => T::SqueezeOptions,
            Options::StridedSlice { .. } => T::StridedSliceOptions,
            Options::Pack { .. } => T::PackOptions,
            Options::Reducer { .. } => T::ReducerOptions,
            Options::LeakyRelu { .. } => T::LeakyReluOptions,
            Options::Pad => T::PadOptions,
            Options::PadV2 => T::PadV2Options,
            Options::Transpose => T::TransposeOptions,
            Options::Quantize => T::QuantizeOptions,
            Options::Dequantize => T::DequantizeOptions,
            Options::HardSwish => T::HardSwishOptions,
            Options::MaximumMinimum => T::MaximumMinimumOptions,
            Options::Svdf { .. } => T::SVDFOptions,
            Options::UnidirectionalSequenceLstm { .. } => T::UnidirectionalSequenceLSTMOptions,
            Options::Split { .. } => T::SplitOptions,
            Options::SplitV { .. } => T::SplitVOptions,
            Options::ExpandDims => T::ExpandDimsOptions,
            Options::Slice => T::SliceOptions,
            Options::Unpack { .. } => T::UnpackOptions,
            Options::Shape { .. } => T::ShapeOptions,
            Options::Gather { .. } => T::GatherOptions,
            Options::If { .. } => T::IfOptions,
            Options::While { .. } => T::WhileOptions,
            Options::CallOnce { .. } => T::CallOnceOptions,
            Options::VarHandle { .. } => T::VarHandleOptions,
            Options::BatchMatMul { .. } => T::BatchMatMulOptions,
            Options::Cumsum { .. } => T::CumsumOptions,
            Options::Resize { bilinear: true, .. } => T::ResizeBilinearOptions,
            Options::Resize { .. } => T::ResizeNearestNeighborOptions,
            Options::BlockSize { to_depth: true, .. } => T::SpaceToDepthOptions,
            Options::BlockSize { .. } => T::DepthToSpaceOptions,
            Options::MirrorPad { .. } => T::MirrorPadOptions,
            Options::Mislabeled { tag, .. } => *tag,
        }
    }

    /// Writes the table; returns the union tag and value for `OperatorArgs`.
    pub(crate) fn write(
        &self,
        fbb: &mut FlatBufferBuilder<'_>,
    ) -> (BuiltinOptions, Option<WIPOffset<UnionWIPOffset>>) {
        let tag = self.tag();
        let value = match self {
            Options::None => return (tag, None),
            Options::Mislabeled { table, .. } => return (tag, table.write(fbb).1),
            Options::Conv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                activation,
            } => tflite::Conv2DOptions::create(
                fbb,
                &tflite::Conv2DOptionsArgs {
                    padding: *padding,
                    stride_w: *stride_w,
                    stride_h: *stride_h,
                    dilation_w_factor: *dilation_w,
                    dilation_h_factor: *dilation_h,
                    fused_activation_function: *activation,
                    ..Default::default()
                },
            )
            .as_union_value(),
            Options::TransposeConv {
                padding,
                stride_w,
                stride_h,
                activation,
            } => tflite::TransposeConvOptions::create(
                fbb,
                &tflite::TransposeConvOptionsArgs {
                    padding: *padding,
                    stride_w: *stride_w,
                    stride_h: *stride_h,
                    fused_activation_function: *activation,
                    ..Default::default()
                },
            )
            .as_union_value(),
            Options::DepthwiseConv2D {
                padding,
                stride_w,
                stride_h,
                depth_multiplier,
                dilation_w,
                dilation_h,
                activation,
            } => tflite::DepthwiseConv2DOptions::create(
                fbb,
                &tflite::DepthwiseConv2DOptionsArgs {
                    padding: *padding,
                    stride_w: *stride_w,
                    stride_h: *stride_h,
                    depth_multiplier: *depth_multiplier,
                    dilation_w_factor: *dilation_w,
                    dilation_h_factor: *dilation_h,
                    fused_activation_function: *activation,
                },
            )
            .as_union_value(),
            Options::FullyConnected {
                activation,
                weights_format,
                keep_num_dims,
            } => tflite::FullyConnectedOptions::create(
                fbb,
                &tflite::FullyConnectedOptionsArgs {
                    fused_activation_function: *activation,
                    weights_format: *weights_format,
                    keep_num_dims: *keep_num_dims,
                    ..Default::default()
                },
            )
            .as_union_value(),
            Options::Pool2D {
                padding,
                stride_w,
                stride_h,
                filter_w,
                filter_h,
                activation,
            } => tflite::Pool2DOptions::create(
                fbb,
                &tflite::Pool2DOptionsArgs {
                    padding: *padding,
                    stride_w: *stride_w,
                    stride_h: *stride_h,
                    filter_width: *filter_w,
                    filter_height: *filter_h,
                    fused_activation_function: *activation,
                },
            )
            .as_union_value(),
            Options::Softmax { beta } => {
                tflite::SoftmaxOptions::create(fbb, &tflite::SoftmaxOptionsArgs { beta: *beta })
                    .as_union_value()
            }
            Options::Add { activation } => tflite::AddOptions::create(
                fbb,
                &tflite::AddOptionsArgs {
                    fused_activation_function: *activation,
                    ..Default::default()
                },
            )
            .as_union_value(),
            Options::Sub { activation } => tflite::SubOptions::create(
                fbb,
                &tflite::SubOptionsArgs {
                    fused_activation_function: *activation,
                    ..Default::default()
                },
            )
            .as_union_value(),
            Options::Mul { activation } => tflite::MulOptions::create(
                fbb,
                &tflite::MulOptionsArgs {
                    fused_activation_function: *activation,
                },
            )
            .as_union_value(),
            Options::Concatenation { axis, activation } => tflite::ConcatenationOptions::create(
                fbb,
                &tflite::ConcatenationOptionsArgs {
                    axis: *axis,
                    fused_activation_function: *activation,
                },
            )
            .as_union_value(),
            Options::Reshape { new_shape } => {
                let new_shape = new_shape.as_ref().map(|s| fbb.create_vector(s));
                tflite::ReshapeOptions::create(fbb, &tflite::ReshapeOptionsArgs { new_shape })
                    .as_union_value()
            }
            Options::Squeeze { squeeze_dims } => {
                let squeeze_dims = Some(fbb.create_vector(squeeze_dims));
                tflite::SqueezeOptions::create(fbb, &tflite::SqueezeOptionsArgs { squeeze_dims })
                    .as_union_value()
            }
            Options::StridedSlice {
                begin_mask,
                end_mask,
                ellipsis_mask,
                new_axis_mask,
                shrink_axis_mask,
                offset,
            } => tflite::StridedSliceOptions::create(
                fbb,
                &tflite::StridedSliceOptionsArgs {
                    begin_mask: *begin_mask,
                    end_mask: *end_mask,
                    ellipsis_mask: *ellipsis_mask,
                    new_axis_mask: *new_axis_mask,
                    shrink_axis_mask: *shrink_axis_mask,
                    offset: *offset,
                },
            )
            .as_union_value(),
            Options::Pack { values_count, axis } => tflite::PackOptions::create(
                fbb,
                &tflite::PackOptionsArgs {
                    values_count: *values_count,
                    axis: *axis,
                },
            )
            .as_union_value(),
            Options::Reducer { keep_dims } => tflite::ReducerOptions::create(
                fbb,
                &tflite::ReducerOptionsArgs {
                    keep_dims: *keep_dims,
                },
            )
            .as_union_value(),
            Options::LeakyRelu { alpha } => tflite::LeakyReluOptions::create(
                fbb,
                &tflite::LeakyReluOptionsArgs { alpha: *alpha },
            )
            .as_union_value(),
            Options::Pad => {
                tflite::PadOptions::create(fbb, &tflite::PadOptionsArgs {}).as_union_value()
            }
            Options::PadV2 => {
                tflite::PadV2Options::create(fbb, &tflite::PadV2OptionsArgs {}).as_union_value()
            }
            Options::Transpose => {
                tflite::TransposeOptions::create(fbb, &tflite::TransposeOptionsArgs {})
                    .as_union_value()
            }
            Options::Quantize => {
                tflite::QuantizeOptions::create(fbb, &tflite::QuantizeOptionsArgs {})
                    .as_union_value()
            }
            Options::Dequantize => {
                tflite::DequantizeOptions::create(fbb, &tflite::DequantizeOptionsArgs {})
                    .as_union_value()
            }
            Options::HardSwish => {
                tflite::HardSwishOptions::create(fbb, &tflite::HardSwishOptionsArgs {})
                    .as_union_value()
            }
            Options::Div { activation } => tflite::DivOptions::create(
                fbb,
                &tflite::DivOptionsArgs {
                    fused_activation_function: *activation,
                },
            )
            .as_union_value(),
            Options::SquaredDifference => tflite::SquaredDifferenceOptions::create(
                fbb,
                &tflite::SquaredDifferenceOptionsArgs {},
            )
            .as_union_value(),
            Options::MaximumMinimum => {
                tflite::MaximumMinimumOptions::create(fbb, &tflite::MaximumMinimumOptionsArgs {})
                    .as_union_value()
            }
            Options::ExpandDims => {
                tflite::ExpandDimsOptions::create(fbb, &tflite::ExpandDimsOptionsArgs {})
                    .as_union_value()
            }
            Options::Svdf { rank, activation } => tflite::SVDFOptions::create(
                fbb,
                &tflite::SVDFOptionsArgs {
                    rank: *rank,
                    fused_activation_function: *activation,
                    asymmetric_quantize_inputs: false,
                },
            )
            .as_union_value(),
            Options::UnidirectionalSequenceLstm {
                activation,
                cell_clip,
                time_major,
            } => tflite::UnidirectionalSequenceLSTMOptions::create(
                fbb,
                &tflite::UnidirectionalSequenceLSTMOptionsArgs {
                    fused_activation_function: *activation,
                    cell_clip: *cell_clip,
                    time_major: *time_major,
                    ..Default::default()
                },
            )
            .as_union_value(),
            Options::Split { num_splits } => tflite::SplitOptions::create(
                fbb,
                &tflite::SplitOptionsArgs {
                    num_splits: *num_splits,
                },
            )
            .as_union_value(),
            Options::SplitV { num_splits } => tflite::SplitVOptions::create(
                fbb,
                &tflite::SplitVOptionsArgs {
                    num_splits: *num_splits,
                },
            )
            .as_union_value(),
            Options::Slice => {
                tflite::SliceOptions::create(fbb, &tflite::SliceOptionsArgs {}).as_union_value()
            }
            Options::Unpack { num, axis } => tflite::UnpackOptions::create(
                fbb,
                &tflite::UnpackOptionsArgs {
                    num: *num,
                    axis: *axis,
                },
            )
            .as_union_value(),
            Options::Shape { out_type } => tflite::ShapeOptions::create(
                fbb,
                &tflite::ShapeOptionsArgs {
                    out_type: *out_type,
                },
            )
            .as_union_value(),
            Options::Gather { axis, batch_dims } => tflite::GatherOptions::create(
                fbb,
                &tflite::GatherOptionsArgs {
                    axis: *axis,
                    batch_dims: *batch_dims,
                },
            )
            .as_union_value(),
            Options::If {
                then_subgraph,
                else_subgraph,
            } => tflite::IfOptions::create(
                fbb,
                &tflite::IfOptionsArgs {
                    then_subgraph_index: *then_subgraph,
                    else_subgraph_index: *else_subgraph,
                },
            )
            .as_union_value(),
            Options::While {
                cond_subgraph,
                body_subgraph,
            } => tflite::WhileOptions::create(
                fbb,
                &tflite::WhileOptionsArgs {
                    cond_subgraph_index: *cond_subgraph,
                    body_subgraph_index: *body_subgraph,
                },
            )
            .as_union_value(),
            Options::CallOnce { init_subgraph } => tflite::CallOnceOptions::create(
                fbb,
                &tflite::CallOnceOptionsArgs {
                    init_subgraph_index: *init_subgraph,
                },
            )
            .as_union_value(),
            Options::VarHandle {
                container,
                shared_name,
            } => {
                let container = container.as_deref().map(|s| fbb.create_string(s));
                let shared_name = shared_name.as_deref().map(|s| fbb.create_string(s));
                tflite::VarHandleOptions::create(
                    fbb,
                    &tflite::VarHandleOptionsArgs {
                        container,
                        shared_name,
                    },
                )
                .as_union_value()
            }
            Options::BatchMatMul { adj_x, adj_y } => tflite::BatchMatMulOptions::create(
                fbb,
                &tflite::BatchMatMulOptionsArgs {
                    adj_x: *adj_x,
                    adj_y: *adj_y,
                    asymmetric_quantize_inputs: false,
                },
            )
            .as_union_value(),
            Options::Cumsum { exclusive, reverse } => tflite::CumsumOptions::create(
                fbb,
                &tflite::CumsumOptionsArgs {
                    exclusive: *exclusive,
                    reverse: *reverse,
                },
            )
            .as_union_value(),
            Options::Resize {
                bilinear: true,
                align_corners,
                half_pixel_centers,
            } => tflite::ResizeBilinearOptions::create(
                fbb,
                &tflite::ResizeBilinearOptionsArgs {
                    align_corners: *align_corners,
                    half_pixel_centers: *half_pixel_centers,
                },
            )
            .as_union_value(),
            Options::Resize {
                align_corners,
                half_pixel_centers,
                ..
            } => tflite::ResizeNearestNeighborOptions::create(
                fbb,
                &tflite::ResizeNearestNeighborOptionsArgs {
                    align_corners: *align_corners,
                    half_pixel_centers: *half_pixel_centers,
                },
            )
            .as_union_value(),
            Options::BlockSize {
                to_depth: true,
                block_size,
            } => tflite::SpaceToDepthOptions::create(
                fbb,
                &tflite::SpaceToDepthOptionsArgs {
                    block_size: *block_size,
                },
            )
            .as_union_value(),
            Options::BlockSize { block_size, .. } => tflite::DepthToSpaceOptions::create(
                fbb,
                &tflite::DepthToSpaceOptionsArgs {
                    block_size: *block_size,
                },
            )
            .as_union_value(),
            Options::MirrorPad { symmetric } => tflite::MirrorPadOptions::create(
                fbb,
                &tflite::MirrorPadOptionsArgs {
                    mode: if *symmetric {
                        tflite::MirrorPadMode::SYMMETRIC
                    } else {
                        tflite::MirrorPadMode::REFLECT
                    },
                },
            )
            .as_union_value(),
        };
        (tag, Some(value))
    }
}
