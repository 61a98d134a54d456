//! Typed builtin options for the ops [`Options`] knows, validated; every other op gets
//! [`Options::None`] and is judged later, by lowering.
//!
//! When an op that has options carries none, the values are TFLite's: its parser leaves the
//! zero-initialised parameter struct untouched (so SOFTMAX gets beta 0, FULLY_CONNECTED no
//! activation). Where zero is not a usable value (strides, filter sizes, SVDF rank) the op is
//! refused as corrupt instead of failing later.

use tinyaot_schema::tflite::{self, ActivationFunctionType as Act, BuiltinOptions as Bo};

use crate::error::{Error, Result};
use crate::ir::{
    op_name, Activation, Conv2DOptions, DepthwiseConv2DOptions, FullyConnectedOptions, OpCode,
    OpKind, Options, Padding, Pool2DOptions, StridedSliceOptions, SvdfOptions,
};

/// Decodes the options of operator `index`.
pub(super) fn decode(index: usize, kind: &OpKind, op: &tflite::Operator<'_>) -> Result<Options> {
    let Some(code) = kind.code() else {
        return Ok(Options::None);
    };
    let ctx = Ctx { index, code, op };
    Ok(match code {
        OpCode::CONV_2D => {
            ctx.require(Bo::Conv2DOptions)?;
            let o = op.builtin_options_as_conv_2_doptions().or_corrupt(&ctx)?;
            Options::Conv2D(Conv2DOptions {
                padding: ctx.padding(o.padding())?,
                stride_w: ctx.positive("stride_w", o.stride_w())?,
                stride_h: ctx.positive("stride_h", o.stride_h())?,
                dilation_w: ctx.positive("dilation_w_factor", o.dilation_w_factor())?,
                dilation_h: ctx.positive("dilation_h_factor", o.dilation_h_factor())?,
                activation: ctx.activation(o.fused_activation_function())?,
            })
        }
        OpCode::DEPTHWISE_CONV_2D => {
            ctx.require(Bo::DepthwiseConv2DOptions)?;
            let o = op
                .builtin_options_as_depthwise_conv_2_doptions()
                .or_corrupt(&ctx)?;
            Options::DepthwiseConv2D(DepthwiseConv2DOptions {
                padding: ctx.padding(o.padding())?,
                stride_w: ctx.positive("stride_w", o.stride_w())?,
                stride_h: ctx.positive("stride_h", o.stride_h())?,
                depth_multiplier: ctx.non_negative("depth_multiplier", o.depth_multiplier())?,
                dilation_w: ctx.positive("dilation_w_factor", o.dilation_w_factor())?,
                dilation_h: ctx.positive("dilation_h_factor", o.dilation_h_factor())?,
                activation: ctx.activation(o.fused_activation_function())?,
            })
        }
        OpCode::AVERAGE_POOL_2D | OpCode::MAX_POOL_2D | OpCode::L2_POOL_2D => {
            ctx.require(Bo::Pool2DOptions)?;
            let o = op.builtin_options_as_pool_2_doptions().or_corrupt(&ctx)?;
            Options::Pool2D(Pool2DOptions {
                padding: ctx.padding(o.padding())?,
                stride_w: ctx.positive("stride_w", o.stride_w())?,
                stride_h: ctx.positive("stride_h", o.stride_h())?,
                filter_w: ctx.positive("filter_width", o.filter_width())?,
                filter_h: ctx.positive("filter_height", o.filter_height())?,
                activation: ctx.activation(o.fused_activation_function())?,
            })
        }
        OpCode::FULLY_CONNECTED => match ctx.optional(Bo::FullyConnectedOptions)? {
            false => Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            }),
            true => {
                let o = op
                    .builtin_options_as_fully_connected_options()
                    .or_corrupt(&ctx)?;
                let format = o.weights_format();
                if format.variant_name().is_none() {
                    return Err(ctx.corrupt(format!(
                        "weights_format {} is not a FullyConnectedOptionsWeightsFormat",
                        format.0
                    )));
                }
                Options::FullyConnected(FullyConnectedOptions {
                    activation: ctx.activation(o.fused_activation_function())?,
                    keep_num_dims: o.keep_num_dims(),
                    shuffled_weights: format != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT,
                })
            }
        },
        OpCode::SOFTMAX => Options::Softmax {
            beta: match ctx.optional(Bo::SoftmaxOptions)? {
                true => op
                    .builtin_options_as_softmax_options()
                    .map_or(0.0, |o| o.beta()),
                false => 0.0,
            },
        },
        OpCode::ADD => Options::Arithmetic {
            activation: match ctx.optional(Bo::AddOptions)? {
                true => ctx.activation_of(
                    op.builtin_options_as_add_options()
                        .map(|o| o.fused_activation_function()),
                )?,
                false => Activation::None,
            },
        },
        OpCode::SUB => Options::Arithmetic {
            activation: match ctx.optional(Bo::SubOptions)? {
                true => ctx.activation_of(
                    op.builtin_options_as_sub_options()
                        .map(|o| o.fused_activation_function()),
                )?,
                false => Activation::None,
            },
        },
        OpCode::MUL => Options::Arithmetic {
            activation: match ctx.optional(Bo::MulOptions)? {
                true => ctx.activation_of(
                    op.builtin_options_as_mul_options()
                        .map(|o| o.fused_activation_function()),
                )?,
                false => Activation::None,
            },
        },
        OpCode::DIV => Options::Arithmetic {
            activation: match ctx.optional(Bo::DivOptions)? {
                true => ctx.activation_of(
                    op.builtin_options_as_div_options()
                        .map(|o| o.fused_activation_function()),
                )?,
                false => Activation::None,
            },
        },
        OpCode::CONCATENATION => {
            ctx.optional(Bo::ConcatenationOptions)?;
            match op.builtin_options_as_concatenation_options() {
                Some(o) => Options::Concatenation {
                    axis: o.axis(),
                    activation: ctx.activation(o.fused_activation_function())?,
                },
                None => Options::Concatenation {
                    axis: 0,
                    activation: Activation::None,
                },
            }
        }
        OpCode::RESHAPE => {
            ctx.optional(Bo::ReshapeOptions)?;
            Options::Reshape {
                new_shape: op
                    .builtin_options_as_reshape_options()
                    .and_then(|o| o.new_shape())
                    .map(|v| v.iter().collect())
                    .unwrap_or_default(),
            }
        }
        OpCode::SQUEEZE => {
            ctx.optional(Bo::SqueezeOptions)?;
            Options::Squeeze {
                squeeze_dims: op
                    .builtin_options_as_squeeze_options()
                    .and_then(|o| o.squeeze_dims())
                    .map(|v| v.iter().collect())
                    .unwrap_or_default(),
            }
        }
        OpCode::STRIDED_SLICE => {
            ctx.optional(Bo::StridedSliceOptions)?;
            let o = op.builtin_options_as_strided_slice_options();
            Options::StridedSlice(StridedSliceOptions {
                begin_mask: o.map_or(0, |o| o.begin_mask()),
                end_mask: o.map_or(0, |o| o.end_mask()),
                ellipsis_mask: o.map_or(0, |o| o.ellipsis_mask()),
                new_axis_mask: o.map_or(0, |o| o.new_axis_mask()),
                shrink_axis_mask: o.map_or(0, |o| o.shrink_axis_mask()),
                offset: o.is_some_and(|o| o.offset()),
            })
        }
        // The other reducers share MEAN's ReducerOptions.
        OpCode::MEAN
        | OpCode::SUM
        | OpCode::REDUCE_PROD
        | OpCode::REDUCE_MAX
        | OpCode::REDUCE_MIN
        | OpCode::REDUCE_ANY
        | OpCode::REDUCE_ALL => {
            ctx.optional(Bo::ReducerOptions)?;
            Options::Reducer {
                keep_dims: op
                    .builtin_options_as_reducer_options()
                    .is_some_and(|o| o.keep_dims()),
            }
        }
        OpCode::LEAKY_RELU => {
            // Its lowering reads alpha from the FlatBuffer (`OpContext::tflite_operator`), the way
            // a new operator's options are read without a loader change.
            ctx.optional(Bo::LeakyReluOptions)?;
            Options::None
        }
        OpCode::SVDF => {
            ctx.require(Bo::SVDFOptions)?;
            let o = op.builtin_options_as_svdfoptions().or_corrupt(&ctx)?;
            Options::Svdf(SvdfOptions {
                rank: ctx.positive("rank", o.rank())?,
                activation: ctx.activation(o.fused_activation_function())?,
            })
        }
        _ => Options::None,
    })
}

/// The operator being decoded, for checks and messages that name it.
struct Ctx<'a, 'm> {
    index: usize,
    code: OpCode,
    op: &'a tflite::Operator<'m>,
}

impl Ctx<'_, '_> {
    fn corrupt(&self, what: String) -> Error {
        Error::Corrupt {
            detail: format!("operator {} ({}): {what}", self.index, op_name(self.code)),
        }
    }

    /// True when the op carries `expected` options, false when it carries none; an options table
    /// of another type is corruption (TFLite would silently ignore it).
    fn optional(&self, expected: Bo) -> Result<bool> {
        let found = self.op.builtin_options_type();
        if found == Bo::NONE {
            Ok(false)
        } else if found == expected {
            Ok(true)
        } else {
            Err(self.corrupt(format!(
                "carries {} but expects {}",
                name_of(found),
                name_of(expected)
            )))
        }
    }

    /// Like [`Ctx::optional`], for ops whose options have no usable default.
    fn require(&self, expected: Bo) -> Result<()> {
        if self.optional(expected)? {
            Ok(())
        } else {
            Err(self.corrupt(format!("has no {}", name_of(expected))))
        }
    }

    fn padding(&self, p: tflite::Padding) -> Result<Padding> {
        padding_from(p).ok_or_else(|| {
            self.corrupt(format!("padding {} is neither SAME (0) nor VALID (1)", p.0))
        })
    }

    fn activation(&self, a: Act) -> Result<Activation> {
        activation_from(a).ok_or_else(|| {
            self.corrupt(format!(
                "fused activation {} is not an ActivationFunctionType (0..=5)",
                a.0
            ))
        })
    }

    fn activation_of(&self, a: Option<Act>) -> Result<Activation> {
        a.map_or(Ok(Activation::None), |a| self.activation(a))
    }

    /// A count or factor that must be at least 1.
    fn positive(&self, field: &str, v: i32) -> Result<usize> {
        match usize::try_from(v) {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(self.corrupt(format!(
                "{field} is {v}; it must be at least 1 ({})",
                why_positive(field)
            ))),
        }
    }

    /// A value that may be 0 but not negative.
    fn non_negative(&self, field: &str, v: i32) -> Result<usize> {
        usize::try_from(v)
            .map_err(|_| self.corrupt(format!("{field} is {v}; it must not be negative")))
    }
}

/// What TFLM does with a value [`Ctx::positive`] refuses, for the message: no refusal of TFLM's,
/// so these are refused as corrupt rather than on one of `Grounds`' three grounds.
fn why_positive(field: &str) -> &'static str {
    match field {
        "rank" => "TFLM's PrepareSvdf takes num_filters % rank: a division by zero",
        "filter_width" | "filter_height" => {
            "TFLM pools over no taps: MAX_POOL_2D writes the activation minimum, AVERAGE_POOL_2D \
             leaves its output unwritten"
        }
        _ => {
            "TFLM's padding.h refuses it in ComputePaddingHeightWidthChecked, an error \
             ComputePaddingHeightWidth ignores: all paddings become 0 and the kernel loops with \
             it, every output along the axis reading the window at the image's origin (a stride \
             of 0) or every tap the same pixel (a dilation of 0); older TFLM divided by the \
             stride in ComputeOutSize"
        }
    }
}

/// `Some(table)`, or corruption: after [`Ctx::require`] succeeded the table is present (the
/// verifier checks union type and value agree), so this only turns an impossible case into an error.
trait OrCorrupt<T> {
    fn or_corrupt(self, ctx: &Ctx<'_, '_>) -> Result<T>;
}

impl<T> OrCorrupt<T> for Option<T> {
    fn or_corrupt(self, ctx: &Ctx<'_, '_>) -> Result<T> {
        self.ok_or_else(|| ctx.corrupt("options table missing".to_string()))
    }
}

fn name_of(b: Bo) -> String {
    match b.variant_name() {
        Some(n) => n.to_string(),
        None => format!("BuiltinOptions({})", b.0),
    }
}

/// A FlatBuffer padding as [`Padding`]; `None` for a value that is neither SAME nor VALID.
pub(crate) fn padding_from(p: tflite::Padding) -> Option<Padding> {
    match p {
        tflite::Padding::SAME => Some(Padding::Same),
        tflite::Padding::VALID => Some(Padding::Valid),
        _ => None,
    }
}

/// A FlatBuffer fused activation as [`Activation`]; `None` outside ActivationFunctionType.
pub(crate) fn activation_from(a: Act) -> Option<Activation> {
    Some(match a {
        Act::NONE => Activation::None,
        Act::RELU => Activation::Relu,
        Act::RELU_N1_TO_1 => Activation::ReluN1To1,
        Act::RELU6 => Activation::Relu6,
        Act::TANH => Activation::Tanh,
        Act::SIGN_BIT => Activation::SignBit,
        _ => return None,
    })
}
