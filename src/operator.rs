//! The one list of operators every front end maps onto: [`OperatorDesc`] mirrors `DML_OPERATOR_DESC` (a variant
//! per operator type, with that operator's fields), and [`Operator`] is any operator, validated and planned, run
//! with any number of inputs and outputs.
//!
//! Adding an operator: its file under `ops/` (validation, planning, its reference), a variant in
//! [`OperatorDesc`] and in [`Operator`] (the compiler then names every `match` that must handle it: here, the C
//! reader, the Python bindings, the bench and the fuzz generator).

use crate::{
    Cast, DepthSpaceOrder, DepthToSpace, Error, ExecOptions, Fill, Gather, GatherElements, GatherNd, Identity,
    ImageResize, Join, Normalize, OneHot, Padding, PaddingMode, Plan, ResizeFilter, RowKind, Scalar, ScaleBias,
    ScatterElements, ScatterNd, Slice, Slice1, SpaceToDepth, Split, TensorDesc, Tile,
};

/// An operator description: DirectML's `DML_OPERATOR_DESC` with the operator's own fields (Rust names of
/// DirectML's), plus Strider's fused [`Normalize`].
///
/// # Examples
///
/// ```
/// use strider::{DataType, OperatorDesc, TensorDesc};
/// let a = TensorDesc::new(DataType::Float32, &[2])?;
/// let out = TensorDesc::new(DataType::Float32, &[4])?;
/// let join = OperatorDesc::Join { inputs: vec![a.clone(), a], output: out, axis: 0 }.build()?;
/// assert_eq!(join.name(), "DML_OPERATOR_JOIN");
/// let (x, y) = ([1f32, 2.0], [3f32, 4.0]);
/// let mut z = [0f32; 4];
/// join.execute(&[bytemuck::cast_slice(&x), bytemuck::cast_slice(&y)], &mut [bytemuck::cast_slice_mut(&mut z)])?;
/// assert_eq!(z, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum OperatorDesc {
    /// `DML_OPERATOR_ELEMENT_WISE_IDENTITY` ([`Identity`]).
    ElementWiseIdentity {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `ScaleBias` (`None`: a plain copy).
        scale_bias: Option<ScaleBias>,
    },
    /// `DML_OPERATOR_CAST` ([`Cast`]).
    Cast {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
    },
    /// `DML_OPERATOR_SLICE` ([`Slice`]).
    Slice {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Offsets`.
        offsets: Vec<u32>,
        /// `Sizes`.
        sizes: Vec<u32>,
        /// `Strides`.
        strides: Vec<u32>,
    },
    /// `DML_OPERATOR_SLICE1` ([`Slice1`]).
    Slice1 {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `InputWindowOffsets`.
        window_offsets: Vec<u32>,
        /// `InputWindowSizes`.
        window_sizes: Vec<u32>,
        /// `InputWindowStrides`.
        window_strides: Vec<i32>,
    },
    /// Strider's fused preprocessing ([`Normalize`]).
    Normalize {
        /// The input tensor.
        input: TensorDesc,
        /// The output tensor.
        output: TensorDesc,
        /// The window's offsets.
        window_offsets: Vec<u32>,
        /// The window's sizes.
        window_sizes: Vec<u32>,
        /// The window's strides.
        window_strides: Vec<i32>,
        /// The output dimension that selects the scale and bias.
        channel_axis: Option<usize>,
        /// Factors (1 or one per channel).
        scale: Vec<f32>,
        /// Addends (1 or one per channel).
        bias: Vec<f32>,
    },
    /// Strider's preprocessing of images ([`Normalize::image`]: resize, center crop, flips, channel order and
    /// normalization in one pass), built into a [`Normalize`].
    Preprocess {
        /// The images, `{N, C, H, W}` or `{C, H, W}`, any strides.
        input: TensorDesc,
        /// The result, of the sizes the steps give, any type and strides.
        output: TensorDesc,
        /// The resize.
        resize: ImageResize,
        /// Its filter.
        filter: ResizeFilter,
        /// Pillow's antialiased filters, or OpenCV's sampled ones.
        antialias: bool,
        /// A center crop `[height, width]` after the resize.
        crop: Option<[u32; 2]>,
        /// Mirror left ↔ right.
        flip_horizontal: bool,
        /// Mirror top ↔ bottom.
        flip_vertical: bool,
        /// Reverse the channels (BGR ↔ RGB).
        reverse_channels: bool,
        /// Factors, 1 or one per output channel.
        scale: Vec<f32>,
        /// Addends, 1 or one per output channel.
        bias: Vec<f32>,
    },
    /// `DML_OPERATOR_PADDING1` ([`Padding`]; `DML_OPERATOR_PADDING` with its `FLOAT` value cast to the output's
    /// type).
    Padding {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `PaddingMode`.
        mode: PaddingMode,
        /// `PaddingValue` with its `PaddingValueDataType`.
        value: Scalar,
        /// `StartPadding`.
        start: Vec<u32>,
        /// `EndPadding`.
        end: Vec<u32>,
    },
    /// `DML_OPERATOR_JOIN` ([`Join`]).
    Join {
        /// `InputTensors`.
        inputs: Vec<TensorDesc>,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Axis`.
        axis: u32,
    },
    /// `DML_OPERATOR_SPLIT` ([`Split`]).
    Split {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensors`.
        outputs: Vec<TensorDesc>,
        /// `Axis`.
        axis: u32,
    },
    /// `DML_OPERATOR_TILE` ([`Tile`]).
    Tile {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Repeats`.
        repeats: Vec<u32>,
    },
    /// `DML_OPERATOR_DEPTH_TO_SPACE1` ([`DepthToSpace`]; the first version is [`DepthSpaceOrder::DepthColumnRow`]).
    DepthToSpace {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `BlockSize`.
        block_size: u32,
        /// `Order`.
        order: DepthSpaceOrder,
    },
    /// `DML_OPERATOR_SPACE_TO_DEPTH1` ([`SpaceToDepth`]).
    SpaceToDepth {
        /// `InputTensor`.
        input: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `BlockSize`.
        block_size: u32,
        /// `Order`.
        order: DepthSpaceOrder,
    },
    /// `DML_OPERATOR_FILL_VALUE_CONSTANT` ([`Fill::constant`]).
    FillValueConstant {
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Value` with its `ValueDataType`.
        value: Scalar,
    },
    /// `DML_OPERATOR_FILL_VALUE_SEQUENCE` ([`Fill::sequence`]).
    FillValueSequence {
        /// `OutputTensor`.
        output: TensorDesc,
        /// `ValueStart`.
        start: Scalar,
        /// `ValueDelta`.
        delta: Scalar,
    },
    /// `DML_OPERATOR_GATHER` ([`Gather`]); inputs: input, indices.
    Gather {
        /// `InputTensor`.
        input: TensorDesc,
        /// `IndicesTensor`.
        indices: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Axis`.
        axis: u32,
        /// `IndexDimensions`.
        index_dimensions: u32,
    },
    /// `DML_OPERATOR_GATHER_ELEMENTS` ([`GatherElements`]); inputs: input, indices.
    GatherElements {
        /// `InputTensor`.
        input: TensorDesc,
        /// `IndicesTensor`.
        indices: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Axis`.
        axis: u32,
    },
    /// `DML_OPERATOR_GATHER_ND1` ([`GatherNd`]; `DML_OPERATOR_GATHER_ND` is `batch_dimension_count` 0); inputs:
    /// input, indices.
    GatherNd {
        /// `InputTensor`.
        input: TensorDesc,
        /// `IndicesTensor`.
        indices: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `InputDimensionCount`.
        input_dimension_count: u32,
        /// `IndicesDimensionCount`.
        indices_dimension_count: u32,
        /// `BatchDimensionCount`.
        batch_dimension_count: u32,
    },
    /// `DML_OPERATOR_SCATTER_ELEMENTS` (alias `DML_OPERATOR_SCATTER`; [`ScatterElements`]); inputs: input,
    /// indices, updates.
    ScatterElements {
        /// `InputTensor`.
        input: TensorDesc,
        /// `IndicesTensor`.
        indices: TensorDesc,
        /// `UpdatesTensor`.
        updates: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Axis`.
        axis: u32,
    },
    /// `DML_OPERATOR_SCATTER_ND` ([`ScatterNd`]); inputs: input, indices, updates.
    ScatterNd {
        /// `InputTensor`.
        input: TensorDesc,
        /// `IndicesTensor`.
        indices: TensorDesc,
        /// `UpdatesTensor`.
        updates: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `InputDimensionCount`.
        input_dimension_count: u32,
        /// `IndicesDimensionCount`.
        indices_dimension_count: u32,
    },
    /// `DML_OPERATOR_ONE_HOT` ([`OneHot`]); inputs: indices, values.
    OneHot {
        /// `IndicesTensor`.
        indices: TensorDesc,
        /// `ValuesTensor`.
        values: TensorDesc,
        /// `OutputTensor`.
        output: TensorDesc,
        /// `Axis`.
        axis: u32,
    },
}

impl OperatorDesc {
    /// Validates and plans the operator.
    ///
    /// # Errors
    ///
    /// The operator's own (see its type).
    pub fn build(&self) -> Result<Operator, Error> {
        Ok(match self {
            OperatorDesc::ElementWiseIdentity { input, output, scale_bias } => Operator::Identity(match scale_bias {
                None => Identity::new(input, output)?,
                Some(sb) => Identity::with_scale_bias(input, output, *sb)?,
            }),
            OperatorDesc::Cast { input, output } => Operator::Cast(Cast::new(input, output)?),
            OperatorDesc::Slice { input, output, offsets, sizes, strides } => {
                Operator::Slice(Slice::new(input, output, offsets, sizes, strides)?)
            }
            OperatorDesc::Slice1 { input, output, window_offsets, window_sizes, window_strides } => {
                Operator::Slice1(Slice1::new(input, output, window_offsets, window_sizes, window_strides)?)
            }
            OperatorDesc::Normalize {
                input,
                output,
                window_offsets,
                window_sizes,
                window_strides,
                channel_axis,
                scale,
                bias,
            } => Operator::Normalize(Normalize::new(
                input,
                output,
                window_offsets,
                window_sizes,
                window_strides,
                *channel_axis,
                scale,
                bias,
            )?),
            OperatorDesc::Preprocess {
                input,
                output,
                resize,
                filter,
                antialias,
                crop,
                flip_horizontal,
                flip_vertical,
                reverse_channels,
                scale,
                bias,
            } => {
                let b = Normalize::image(input).resize_by(*resize, *filter).antialias(*antialias);
                let b = match crop {
                    Some([h, w]) => b.center_crop(*h, *w),
                    None => b,
                };
                let b = if *flip_horizontal { b.flip_horizontal() } else { b };
                let b = if *flip_vertical { b.flip_vertical() } else { b };
                let b = if *reverse_channels { b.reverse_channels() } else { b };
                Operator::Normalize(b.scale_bias(scale, bias).output_tensor(output).build()?)
            }
            OperatorDesc::Padding { input, output, mode, value, start, end } => {
                Operator::Padding(Padding::new(input, output, *mode, *value, start, end)?)
            }
            OperatorDesc::Join { inputs, output, axis } => Operator::Join(Join::new(inputs, output, *axis)?),
            OperatorDesc::Split { input, outputs, axis } => Operator::Split(Split::new(input, outputs, *axis)?),
            OperatorDesc::Tile { input, output, repeats } => Operator::Tile(Tile::new(input, output, repeats)?),
            OperatorDesc::DepthToSpace { input, output, block_size, order } => {
                Operator::DepthToSpace(DepthToSpace::new(input, output, *block_size, *order)?)
            }
            OperatorDesc::SpaceToDepth { input, output, block_size, order } => {
                Operator::SpaceToDepth(SpaceToDepth::new(input, output, *block_size, *order)?)
            }
            OperatorDesc::FillValueConstant { output, value } => Operator::Fill(Fill::constant(output, *value)?),
            OperatorDesc::FillValueSequence { output, start, delta } => {
                Operator::Fill(Fill::sequence(output, *start, *delta)?)
            }
            OperatorDesc::Gather { input, indices, output, axis, index_dimensions } => {
                Operator::Gather(Gather::new(input, indices, output, *axis, *index_dimensions)?)
            }
            OperatorDesc::GatherElements { input, indices, output, axis } => {
                Operator::GatherElements(GatherElements::new(input, indices, output, *axis)?)
            }
            OperatorDesc::GatherNd {
                input,
                indices,
                output,
                input_dimension_count,
                indices_dimension_count,
                batch_dimension_count,
            } => Operator::GatherNd(GatherNd::new(
                input,
                indices,
                output,
                *input_dimension_count,
                *indices_dimension_count,
                *batch_dimension_count,
            )?),
            OperatorDesc::ScatterElements { input, indices, updates, output, axis } => {
                Operator::ScatterElements(ScatterElements::new(input, indices, updates, output, *axis)?)
            }
            OperatorDesc::ScatterNd {
                input,
                indices,
                updates,
                output,
                input_dimension_count,
                indices_dimension_count,
            } => Operator::ScatterNd(ScatterNd::new(
                input,
                indices,
                updates,
                output,
                *input_dimension_count,
                *indices_dimension_count,
            )?),
            OperatorDesc::OneHot { indices, values, output, axis } => {
                Operator::OneHot(OneHot::new(indices, values, output, *axis)?)
            }
        })
    }

    /// DirectML's name of the operator type (`DML_OPERATOR_JOIN`, …; `STRIDER_OPERATOR_NORMALIZE` for Strider's
    /// own).
    pub fn name(&self) -> &'static str {
        match self {
            OperatorDesc::ElementWiseIdentity { .. } => "DML_OPERATOR_ELEMENT_WISE_IDENTITY",
            OperatorDesc::Cast { .. } => "DML_OPERATOR_CAST",
            OperatorDesc::Slice { .. } => "DML_OPERATOR_SLICE",
            OperatorDesc::Slice1 { .. } => "DML_OPERATOR_SLICE1",
            OperatorDesc::Normalize { .. } => "STRIDER_OPERATOR_NORMALIZE",
            OperatorDesc::Preprocess { .. } => "STRIDER_OPERATOR_PREPROCESS",
            OperatorDesc::Padding { .. } => "DML_OPERATOR_PADDING1",
            OperatorDesc::Join { .. } => "DML_OPERATOR_JOIN",
            OperatorDesc::Split { .. } => "DML_OPERATOR_SPLIT",
            OperatorDesc::Tile { .. } => "DML_OPERATOR_TILE",
            OperatorDesc::DepthToSpace { .. } => "DML_OPERATOR_DEPTH_TO_SPACE1",
            OperatorDesc::SpaceToDepth { .. } => "DML_OPERATOR_SPACE_TO_DEPTH1",
            OperatorDesc::FillValueConstant { .. } => "DML_OPERATOR_FILL_VALUE_CONSTANT",
            OperatorDesc::FillValueSequence { .. } => "DML_OPERATOR_FILL_VALUE_SEQUENCE",
            OperatorDesc::Gather { .. } => "DML_OPERATOR_GATHER",
            OperatorDesc::GatherElements { .. } => "DML_OPERATOR_GATHER_ELEMENTS",
            OperatorDesc::GatherNd { .. } => "DML_OPERATOR_GATHER_ND1",
            OperatorDesc::ScatterElements { .. } => "DML_OPERATOR_SCATTER_ELEMENTS",
            OperatorDesc::ScatterNd { .. } => "DML_OPERATOR_SCATTER_ND",
            OperatorDesc::OneHot { .. } => "DML_OPERATOR_ONE_HOT",
        }
    }
}

/// Any operator, validated and planned: run it with its inputs and outputs as lists of buffers, in the order its
/// description lists its tensors.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Operator {
    /// [`Identity`].
    Identity(Identity),
    /// [`Cast`].
    Cast(Cast),
    /// [`Slice`].
    Slice(Slice),
    /// [`Slice1`].
    Slice1(Slice1),
    /// [`Normalize`].
    Normalize(Normalize),
    /// [`Padding`].
    Padding(Padding),
    /// [`Join`].
    Join(Join),
    /// [`Split`].
    Split(Split),
    /// [`Tile`].
    Tile(Tile),
    /// [`DepthToSpace`].
    DepthToSpace(DepthToSpace),
    /// [`SpaceToDepth`].
    SpaceToDepth(SpaceToDepth),
    /// [`Fill`] (constant or sequence).
    Fill(Fill),
    /// [`Gather`].
    Gather(Gather),
    /// [`GatherElements`].
    GatherElements(GatherElements),
    /// [`GatherNd`].
    GatherNd(GatherNd),
    /// [`ScatterElements`].
    ScatterElements(ScatterElements),
    /// [`ScatterNd`].
    ScatterNd(ScatterNd),
    /// [`OneHot`].
    OneHot(OneHot),
}

/// `$e` with `$o` bound to the operator of any variant.
macro_rules! each {
    ($op:expr, $o:ident => $e:expr) => {
        match $op {
            Operator::Identity($o) => $e,
            Operator::Cast($o) => $e,
            Operator::Slice($o) => $e,
            Operator::Slice1($o) => $e,
            Operator::Normalize($o) => $e,
            Operator::Padding($o) => $e,
            Operator::Join($o) => $e,
            Operator::Split($o) => $e,
            Operator::Tile($o) => $e,
            Operator::DepthToSpace($o) => $e,
            Operator::SpaceToDepth($o) => $e,
            Operator::Fill($o) => $e,
            Operator::Gather($o) => $e,
            Operator::GatherElements($o) => $e,
            Operator::GatherNd($o) => $e,
            Operator::ScatterElements($o) => $e,
            Operator::ScatterNd($o) => $e,
            Operator::OneHot($o) => $e,
        }
    };
}

/// The single buffer of a one-buffer list (the references of single-operand operators).
fn one<'a, T: ?Sized>(list: &'a [&'a T], operand: &'static str) -> Result<&'a T, Error> {
    match list {
        [x] => Ok(x),
        _ => Err(Error::OperandCount { operand, expected: 1, actual: list.len() }),
    }
}

impl Operator {
    /// DirectML's name of the operator type.
    pub fn name(&self) -> &'static str {
        match self {
            Operator::Identity(_) => "DML_OPERATOR_ELEMENT_WISE_IDENTITY",
            Operator::Cast(_) => "DML_OPERATOR_CAST",
            Operator::Slice(_) => "DML_OPERATOR_SLICE",
            Operator::Slice1(_) => "DML_OPERATOR_SLICE1",
            Operator::Normalize(_) => "STRIDER_OPERATOR_NORMALIZE",
            Operator::Padding(_) => "DML_OPERATOR_PADDING1",
            Operator::Join(_) => "DML_OPERATOR_JOIN",
            Operator::Split(_) => "DML_OPERATOR_SPLIT",
            Operator::Tile(_) => "DML_OPERATOR_TILE",
            Operator::DepthToSpace(_) => "DML_OPERATOR_DEPTH_TO_SPACE1",
            Operator::SpaceToDepth(_) => "DML_OPERATOR_SPACE_TO_DEPTH1",
            Operator::Fill(_) => "DML_OPERATOR_FILL_VALUE",
            Operator::Gather(_) => "DML_OPERATOR_GATHER",
            Operator::GatherElements(_) => "DML_OPERATOR_GATHER_ELEMENTS",
            Operator::GatherNd(_) => "DML_OPERATOR_GATHER_ND1",
            Operator::ScatterElements(_) => "DML_OPERATOR_SCATTER_ELEMENTS",
            Operator::ScatterNd(_) => "DML_OPERATOR_SCATTER_ND",
            Operator::OneHot(_) => "DML_OPERATOR_ONE_HOT",
        }
    }

    /// The input tensors, in order (none for a fill).
    pub fn inputs(&self) -> &[TensorDesc] {
        each!(self, o => o.engine().inputs())
    }

    /// The output tensors, in order.
    pub fn outputs(&self) -> &[TensorDesc] {
        each!(self, o => o.engine().outputs())
    }

    /// Runs the operator: one buffer per input and per output, in the order of [`Operator::inputs`] and
    /// [`Operator::outputs`].
    ///
    /// # Errors
    ///
    /// [`Error::OperandCount`] for another number of buffers; [`Error::BufferTooSmall`],
    /// [`Error::MisalignedBuffer`] for a buffer its tensor does not fit; nothing is written then.
    pub fn execute(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        self.execute_with(inputs, outputs, &ExecOptions::default())
    }

    /// [`Operator::execute`] with explicit options.
    ///
    /// # Errors
    ///
    /// As [`Operator::execute`], and [`Error::IsaUnavailable`] when `opts` forces an instruction set this CPU
    /// lacks.
    pub fn execute_with(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]], opts: &ExecOptions) -> Result<(), Error> {
        each!(self, o => o.engine().execute_many(inputs, outputs, opts))
    }

    /// The same result by the operator's slowest, most obvious method (its `execute_reference`).
    ///
    /// # Errors
    ///
    /// As [`Operator::execute`].
    pub fn execute_reference(&self, inputs: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), Error> {
        // The buffer checks first, so that every variant reports counts the same way.
        each!(self, o => o.engine().check_many(inputs, outputs))?;
        match self {
            Operator::Join(o) => o.execute_reference(inputs, one_mut(outputs)?),
            Operator::Split(o) => o.execute_reference(one(inputs, "input")?, outputs),
            Operator::Fill(o) => o.execute_reference(one_mut(outputs)?),
            Operator::Identity(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Cast(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Slice(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Slice1(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Normalize(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Padding(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Tile(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::DepthToSpace(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::SpaceToDepth(o) => o.execute_reference(one(inputs, "input")?, one_mut(outputs)?),
            Operator::Gather(o) => o.execute_reference(inputs[0], inputs[1], one_mut(outputs)?),
            Operator::GatherElements(o) => o.execute_reference(inputs[0], inputs[1], one_mut(outputs)?),
            Operator::GatherNd(o) => o.execute_reference(inputs[0], inputs[1], one_mut(outputs)?),
            Operator::ScatterElements(o) => o.execute_reference(inputs[0], inputs[1], inputs[2], one_mut(outputs)?),
            Operator::ScatterNd(o) => o.execute_reference(inputs[0], inputs[1], inputs[2], one_mut(outputs)?),
            Operator::OneHot(o) => o.execute_reference(inputs[0], inputs[1], one_mut(outputs)?),
        }
    }

    /// The plan of the operator's largest move.
    pub fn plan(&self) -> &Plan {
        each!(self, o => o.engine().plan())
    }

    /// The row kernel of the operator's largest move.
    pub fn row_kind(&self) -> RowKind {
        each!(self, o => o.engine().row_kind())
    }

    /// How the operator runs, in words: each move with its plan and row kernel, one per line.
    pub fn explain(&self) -> String {
        each!(self, o => o.engine().explain())
    }
}

/// The single output buffer of a one-output list.
fn one_mut<'a>(list: &'a mut [&mut [u8]]) -> Result<&'a mut [u8], Error> {
    let actual = list.len();
    match list {
        [x] => Ok(x),
        _ => Err(Error::OperandCount { operand: "output", expected: 1, actual }),
    }
}
