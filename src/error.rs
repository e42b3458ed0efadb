//! The one error type of the crate.

use core::fmt;

use crate::{DataType, Isa};

/// Which operand of an operator an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operand {
    /// The input tensor (of an operator with one).
    Input,
    /// The output tensor (of an operator with one).
    Output,
    /// Input `i` of an operator with a list of them (`DML_JOIN`'s `InputTensors[i]`).
    InputAt(usize),
    /// Output `k` of an operator with a list of them (`DML_SPLIT`'s `OutputTensors[k]`).
    OutputAt(usize),
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Input => f.write_str("input"),
            Operand::Output => f.write_str("output"),
            Operand::InputAt(i) => write!(f, "input {i}"),
            Operand::OutputAt(k) => write!(f, "output {k}"),
        }
    }
}

/// Everything that can go wrong, each variant carrying the values needed to understand it. Validation happens
/// when a descriptor or operator is constructed; `execute` only checks buffers.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Error, TensorDesc};
/// let err = TensorDesc::new(DataType::Float32, &[2, 0, 3]).unwrap_err();
/// assert_eq!(err, Error::ZeroSize { dim: 1 });
/// assert_eq!(err.to_string(), "size of dimension 1 is 0; every size must be at least 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tensor's dimension count is outside 1..=8.
    #[error("a tensor has {rank} dimensions; DirectML tensors have 1 to 8")]
    InvalidRank {
        /// The dimension count given.
        rank: usize,
    },
    /// Strides were given, but not one per dimension.
    #[error("a tensor with {sizes} sizes was given {strides} strides; there must be one stride per dimension")]
    StrideCount {
        /// Number of sizes.
        sizes: usize,
        /// Number of strides.
        strides: usize,
    },
    /// A size is 0.
    #[error("size of dimension {dim} is 0; every size must be at least 1")]
    ZeroSize {
        /// The dimension.
        dim: usize,
    },
    /// The packed strides of the sizes do not fit DirectML's 32-bit strides.
    #[error(
        "the packed stride of dimension {dim} for sizes {sizes:?} would be {stride}, which does not fit the 32-bit \
         strides of a DirectML tensor"
    )]
    PackedStrideOverflow {
        /// The dimension whose stride overflows.
        dim: usize,
        /// The sizes.
        sizes: Vec<u32>,
        /// The stride it would need.
        stride: u64,
    },
    /// The bytes a tensor addresses overflow 64-bit arithmetic or the address space.
    #[error(
        "a {data_type} tensor with sizes {sizes:?} and strides {strides:?} addresses more bytes than the address \
         space holds"
    )]
    SizeOverflow {
        /// The element type.
        data_type: DataType,
        /// The sizes.
        sizes: Vec<u32>,
        /// The strides (packed ones when none were given).
        strides: Vec<u64>,
    },
    /// Input and output ranks differ.
    #[error("the input has {} but the output has {output}; they must be equal", dimensions(*.input))]
    RankMismatch {
        /// Input rank.
        input: usize,
        /// Output rank.
        output: usize,
    },
    /// Input and output data types differ.
    #[error("the input is {input} but the output is {output}; the data types must be equal")]
    DataTypeMismatch {
        /// Input data type.
        input: DataType,
        /// Output data type.
        output: DataType,
    },
    /// An operator argument array does not have one entry per dimension.
    #[error("{argument} has {len} entries but the tensors have {}", dimensions(*.rank))]
    ArgumentLength {
        /// The argument's name (`window_offsets`, …).
        argument: &'static str,
        /// Entries given.
        len: usize,
        /// The tensors' rank.
        rank: usize,
    },
    /// A window size is 0.
    #[error("the window size of dimension {dim} is 0; windows must not be empty")]
    EmptyWindow {
        /// The dimension.
        dim: usize,
    },
    /// A window reaches beyond the input.
    #[error(
        "the window of dimension {dim} (offset {offset} + size {size} = {end}) extends beyond the input size \
         {input_size}"
    )]
    WindowOutOfBounds {
        /// The dimension.
        dim: usize,
        /// Window offset.
        offset: u32,
        /// Window size.
        size: u32,
        /// `offset + size`, computed without wrapping.
        end: u64,
        /// The input's size in this dimension.
        input_size: u32,
    },
    /// A window stride is 0.
    #[error("the window stride of dimension {dim} is 0; window strides must be non-zero")]
    ZeroWindowStride {
        /// The dimension.
        dim: usize,
    },
    /// A window stride does not fit DirectML's 32-bit signed window strides (a builder's step above
    /// 2147483647).
    #[error(
        "the window stride of dimension {dim} would be {stride}; DML_SLICE1 window strides are 32-bit signed \
         integers, at most 2147483647 in magnitude"
    )]
    WindowStrideOutOfRange {
        /// The dimension.
        dim: usize,
        /// The step asked for.
        stride: u64,
    },
    /// An output size is larger than the window can fill.
    #[error(
        "the output size {output_size} of dimension {dim} exceeds the {max} element(s) the window can copy \
         (1 + (window size {window_size} - 1) / |window stride {window_stride}|)"
    )]
    OutputSizeOutOfRange {
        /// The dimension.
        dim: usize,
        /// The output's size in this dimension.
        output_size: u32,
        /// The largest allowed output size.
        max: u64,
        /// Window size.
        window_size: u32,
        /// Window stride.
        window_stride: i64,
    },
    /// The output sizes do not equal the sizes the operator produces.
    #[error(
        "the output size of dimension {dim} is {output_size} but the operator produces {expected} (sizes are always in \
         logical order, N, C, H, W for images, whatever the layout: TensorDesc::nhwc takes them in that order too)"
    )]
    OutputSizeMismatch {
        /// The dimension.
        dim: usize,
        /// The output tensor's size.
        output_size: u32,
        /// The size the operator produces.
        expected: u32,
    },
    /// A DML_SLICE stride is 0.
    #[error("the slice stride of dimension {dim} is 0; DML_SLICE strides must be at least 1")]
    ZeroSliceStride {
        /// The dimension.
        dim: usize,
    },
    /// The last element a DML_SLICE reads lies beyond the input.
    #[error(
        "the slice of dimension {dim} reads up to index {last} (offset {offset} + (size {size} - 1) × stride \
         {stride}), beyond the input size {input_size}"
    )]
    SliceOutOfBounds {
        /// The dimension.
        dim: usize,
        /// Slice offset.
        offset: u32,
        /// Slice size (the output's size).
        size: u32,
        /// Slice stride.
        stride: u32,
        /// The index of the last element read, computed without wrapping.
        last: u64,
        /// The input's size in this dimension.
        input_size: u32,
    },
    /// A layout helper was given a dimension order that is not a permutation of the dimensions.
    #[error("{order:?} is not a permutation of the {rank} dimensions")]
    InvalidPermutation {
        /// The order given.
        order: Vec<usize>,
        /// The tensor's rank.
        rank: usize,
    },
    /// Rank promotion to fewer dimensions than the tensor has.
    #[error("cannot promote a tensor of {rank} dimensions to {target}: promotion only adds leading dimensions")]
    RankPromotion {
        /// The tensor's rank.
        rank: usize,
        /// The rank asked for.
        target: usize,
    },
    /// Two output coordinates address the same element.
    #[error(
        "the output strides {strides:?} make coordinates {first:?} and {second:?} address the same element; an \
         output must not overlap itself"
    )]
    OverlappingOutput {
        /// The output strides.
        strides: Vec<u32>,
        /// One coordinate.
        first: Vec<u64>,
        /// Another coordinate at the same element.
        second: Vec<u64>,
    },
    /// The overlap check gave up on an exotic output layout.
    #[error(
        "could not prove within the search budget that output sizes {sizes:?} with strides {strides:?} never \
         address one element twice"
    )]
    OverlapUndecided {
        /// The output sizes.
        sizes: Vec<u32>,
        /// The output strides.
        strides: Vec<u32>,
    },
    /// A buffer is shorter than the bytes its tensor addresses.
    #[error(
        "the {operand} buffer holds {actual} bytes ({}) but its {data_type} tensor addresses {required} bytes ({})",
        elements(*.actual as u64, *.data_type),
        elements(*.required, *.data_type)
    )]
    BufferTooSmall {
        /// Which buffer.
        operand: Operand,
        /// The tensor's element type.
        data_type: DataType,
        /// Bytes the tensor addresses (the total size when the tensor sets one).
        required: u64,
        /// Bytes the buffer holds.
        actual: usize,
    },
    /// `TotalTensorSizeInBytes` is 0 or below the tensor's minimum buffer size.
    #[error(
        "TotalTensorSizeInBytes {given} is below the {minimum} bytes the tensor needs (DMLCalcBufferTensorSize); it \
         must be at least that"
    )]
    InvalidTotalTensorSize {
        /// The size given.
        given: u64,
        /// `DMLCalcBufferTensorSize` of the tensor.
        minimum: u64,
    },
    /// `GuaranteedBaseOffsetAlignment` is neither 0 nor a power of two at least the element size.
    #[error(
        "GuaranteedBaseOffsetAlignment {alignment} must be 0 or a power of two of at least the element size \
         ({element_size} bytes)"
    )]
    InvalidAlignment {
        /// The alignment given.
        alignment: u32,
        /// Bytes per element of the tensor.
        element_size: usize,
    },
    /// A buffer's address does not honour its tensor's `GuaranteedBaseOffsetAlignment`.
    #[error(
        "the {operand} buffer at address {address:#x} is not aligned to the {alignment} bytes its tensor guarantees"
    )]
    MisalignedBuffer {
        /// Which buffer.
        operand: Operand,
        /// The guaranteed alignment.
        alignment: u32,
        /// The buffer's address.
        address: usize,
    },
    /// An operator does not accept this data type.
    #[error("{operator} does not accept {data_type} tensors; it takes {accepted}")]
    UnsupportedDataType {
        /// The operator (`DML_SCALE_BIAS`, …).
        operator: &'static str,
        /// The data type given.
        data_type: DataType,
        /// What it accepts, in words.
        accepted: &'static str,
    },
    /// In-place execution of an operator whose input and output do not address the same elements in the same
    /// order.
    #[error(
        "cannot run in place: dimension {dim} has input stride {input_stride} but output stride {output_stride}; \
         in-place execution needs input and output to address the same elements in the same order"
    )]
    NotInPlace {
        /// The first dimension whose strides differ.
        dim: usize,
        /// The input's stride there.
        input_stride: u32,
        /// The output's stride there.
        output_stride: u32,
    },
    /// A normalization's channel axis is not a dimension of the output.
    #[error("channel axis {axis} is not a dimension of the {rank}-dimensional output")]
    ChannelAxisOutOfRange {
        /// The axis given.
        axis: usize,
        /// The tensors' rank.
        rank: usize,
    },
    /// A normalization's scale or bias has neither one value nor one per channel.
    #[error("{argument} has {len} values; it must have 1{}", per_channel(*.channels))]
    ParameterLength {
        /// `scale` or `bias`.
        argument: &'static str,
        /// Values given.
        len: usize,
        /// The output's size along the channel axis (`None` without a channel axis: only 1 value is accepted).
        channels: Option<u32>,
    },
    /// A normalization's scale or bias value is infinite or NaN.
    #[error("{argument}[{index}] is {}; scale and bias values must be finite", f32::from_bits(*.bits))]
    NonFiniteParameter {
        /// `scale` or `bias`.
        argument: &'static str,
        /// The index of the value.
        index: usize,
        /// The value's bits (`f32::to_bits`; kept as bits so that errors compare with `==`).
        bits: u32,
    },
    /// A normalization's standard deviation is 0 (its scale would be infinite).
    #[error("std[{index}] is 0; a normalization divides by it")]
    ZeroStd {
        /// The index of the value.
        index: usize,
    },
    /// A typed execution of a two-type operator used an element type of another data type for one operand.
    #[error("typed execution with {actual} {operand} elements on an operator whose {operand} is {expected}")]
    TypedOperandMismatch {
        /// Which operand.
        operand: Operand,
        /// The operand's data type.
        expected: DataType,
        /// The data type of the Rust element type used.
        actual: DataType,
    },
    /// A typed execution used an element type of another data type.
    #[error("typed execution with {actual} elements on an operator over {expected}")]
    ElementTypeMismatch {
        /// The operator's data type.
        expected: DataType,
        /// The data type of the Rust element type used.
        actual: DataType,
    },
    /// A data type name was not recognized.
    #[error(
        "unknown data type {name:?}: expected a DirectML name (FLOAT32, FLOAT16, INT32, …, UINT8) or a short name \
         (f32, f16, i32, …, u8)"
    )]
    UnknownDataType {
        /// The name given.
        name: String,
    },
    /// A forced instruction set is not available on this CPU.
    #[error("instruction set {isa} is not available on this CPU")]
    IsaUnavailable {
        /// The instruction set asked for.
        isa: Isa,
    },
    /// A thread count outside 1..=[`MAX_THREADS`](crate::MAX_THREADS).
    #[error("{threads} threads asked for; a thread count must be 1 to {max}")]
    InvalidThreadCount {
        /// The count given.
        threads: usize,
        /// The most accepted.
        max: usize,
    },
    /// An operator was given another number of buffers than it has tensors of that kind.
    #[error("{actual} {operand} buffer(s) given; the operator has {expected} {operand} tensor(s)")]
    OperandCount {
        /// `"input"` or `"output"`.
        operand: &'static str,
        /// Tensors the operator has.
        expected: usize,
        /// Buffers given.
        actual: usize,
    },
    /// A list of tensors that must not be empty is (`DML_JOIN`'s inputs, `DML_SPLIT`'s outputs).
    #[error("{argument} is empty; the operator needs at least one tensor there")]
    EmptyTensorList {
        /// The list.
        argument: &'static str,
    },
    /// An operand's rank differs from the others'.
    #[error("the {operand} tensor has {} but the operator's other tensors have {expected}", dimensions(*.rank))]
    OperandRankMismatch {
        /// The operand.
        operand: Operand,
        /// Its rank.
        rank: usize,
        /// The rank of the others.
        expected: usize,
    },
    /// An operand's data type differs from the others'.
    #[error("the {operand} tensor is {data_type} but the operator's other tensors are {expected}; they must be equal")]
    OperandDataTypeMismatch {
        /// The operand.
        operand: Operand,
        /// Its type.
        data_type: DataType,
        /// The type of the others.
        expected: DataType,
    },
    /// An operator's tensors must have a given rank (`DML_DEPTH_TO_SPACE`'s are 4-dimensional).
    #[error("{operator} takes {expected}-dimensional tensors, not {rank}-dimensional ones")]
    UnsupportedRank {
        /// The operator.
        operator: &'static str,
        /// The rank given.
        rank: usize,
        /// The rank it takes.
        expected: usize,
    },
    /// An axis argument is not a dimension of the tensors.
    #[error("axis {axis} is not a dimension of the {rank}-dimensional tensors (0 to {})", rank.saturating_sub(1))]
    AxisOutOfRange {
        /// The axis given.
        axis: u32,
        /// The tensors' rank.
        rank: usize,
    },
    /// An operand's size in a dimension is not the one the operator needs there.
    #[error("the {operand} tensor has size {size} in dimension {dim} but {expected} is needed ({why})")]
    OperandSizeMismatch {
        /// The operand.
        operand: Operand,
        /// The dimension.
        dim: usize,
        /// Its size there.
        size: u32,
        /// The size needed (computed without overflow).
        expected: u64,
        /// Where that size comes from, in words.
        why: &'static str,
    },
    /// The sizes of a list of tensors along the axis do not add up to the size of the one tensor.
    #[error(
        "the {list} sizes along axis {axis} add up to {sum} but the {operand} tensor has {size}; they must be equal"
    )]
    AxisSizeSum {
        /// The list (`"input"`, `"output"`).
        list: &'static str,
        /// The axis.
        axis: usize,
        /// Their sum.
        sum: u64,
        /// The single operand.
        operand: Operand,
        /// Its size along the axis.
        size: u32,
    },
    /// A block size of 0.
    #[error("the block size is 0; it must be at least 1")]
    ZeroBlockSize,
    /// A size the block size (or its square, for channels) must divide.
    #[error(
        "block size {block_size}: the {operand} tensor's size {size} in dimension {dim} is not a multiple of {divisor}"
    )]
    BlockSizeNotDivisor {
        /// The block size.
        block_size: u32,
        /// The operand.
        operand: Operand,
        /// The dimension.
        dim: usize,
        /// Its size there.
        size: u32,
        /// What must divide it: the block size (rows, columns) or its square (channels).
        divisor: u64,
    },
    /// A scalar argument's data type differs from the output's.
    #[error("{argument} is {data_type} but the output is {expected}; they must be equal")]
    ScalarDataTypeMismatch {
        /// The argument (`value`, `start`, `delta`).
        argument: &'static str,
        /// Its type.
        data_type: DataType,
        /// The output's type.
        expected: DataType,
    },
    /// A repeat count of 0.
    #[error("repeats[{dim}] is 0; every repeat must be at least 1")]
    ZeroRepeat {
        /// The dimension.
        dim: usize,
    },
    /// Reflection padding of a dimension with one element (nothing to mirror).
    #[error(
        "REFLECTION padding of dimension {dim} ({start} before, {end} after) mirrors a dimension of size 1, which has \
         nothing to mirror; use EDGE or SYMMETRIC there"
    )]
    ReflectionOfSingleElement {
        /// The dimension.
        dim: usize,
        /// Padding before.
        start: u32,
        /// Padding after.
        end: u32,
    },
    /// Buffers of one call that must not overlap do (the C interface's outputs, or an output and an input).
    #[error(
        "the {first} buffer ({first_bytes} bytes at {first_address:#x}) and the {second} buffer ({second_bytes} bytes at {second_address:#x}) overlap"
    )]
    OverlappingBuffers {
        /// One operand.
        first: Operand,
        /// Its address.
        first_address: usize,
        /// Its length.
        first_bytes: usize,
        /// The other.
        second: Operand,
        /// Its address.
        second_address: usize,
        /// Its length.
        second_bytes: usize,
    },
    /// A dimension argument is not a dimension of the tensor.
    #[error("{argument} {dim} is not a dimension of the {rank}-dimensional tensor")]
    DimensionOutOfRange {
        /// What the dimension is for.
        argument: &'static str,
        /// The dimension given.
        dim: usize,
        /// The tensor's rank.
        rank: usize,
    },
    /// An index outside the dimension it addresses (found by `execute`, which then writes nothing).
    #[error(
        "index {value} at coordinate {coordinate:?} of the indices (input {input}) is outside a dimension of size \
         {size}; valid indices are 0 to {} (and -{size} to -1 for signed types, counted from the end)",
        size.saturating_sub(1)
    )]
    IndexOutOfRange {
        /// The input holding the indices.
        input: usize,
        /// The coordinate of the index in the indices tensor.
        coordinate: Vec<u32>,
        /// The index.
        value: i128,
        /// The size of the dimension it addresses.
        size: u64,
    },
    /// An operand's sizes are not the ones the operator needs.
    #[error("the {operand} tensor has sizes {sizes:?} but {expected:?} is needed ({why})")]
    ShapeMismatch {
        /// The operand.
        operand: Operand,
        /// Its sizes.
        sizes: Vec<u32>,
        /// The sizes needed.
        expected: Vec<u64>,
        /// Where they come from, in words.
        why: &'static str,
    },
    /// An operator's count or dimension argument outside its range.
    #[error("{argument} is {value}; it must be {min} to {max}")]
    ArgumentOutOfRange {
        /// The argument (`IndexDimensions`, `BatchDimensionCount`, …).
        argument: &'static str,
        /// The value given.
        value: u64,
        /// The smallest value accepted.
        min: u64,
        /// The largest value accepted.
        max: u64,
    },
    /// Two requests of a builder that cannot be combined.
    #[error("{first} cannot be combined with {second}")]
    Incompatible {
        /// The one asked for first in the builder's order of steps.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
    /// A bug in Strider: a validated operator could not be planned or run.
    #[error("internal error in strider (please report it): {detail}")]
    Internal {
        /// What went wrong.
        detail: String,
    },
}

/// The rest of [`Error::ParameterLength`]'s message.
fn per_channel(channels: Option<u32>) -> String {
    match channels {
        Some(c) if c > 1 => format!(" or {c}, one per index of the channel axis"),
        Some(_) => " (the channel axis has size 1)".to_owned(),
        None => " when there is no channel axis".to_owned(),
    }
}

/// `n dimensions`, or `1 dimension`.
pub(crate) fn dimensions(n: usize) -> String {
    match n {
        1 => "1 dimension".to_owned(),
        n => format!("{n} dimensions"),
    }
}

/// `bytes` counted in elements of `data_type`, for [`Error::BufferTooSmall`]'s message.
fn elements(bytes: u64, data_type: DataType) -> String {
    let size = core::num::NonZeroU64::new(data_type.size_in_bytes() as u64).unwrap_or(core::num::NonZeroU64::MIN);
    let (count, rest) = (bytes / size, bytes % size);
    match rest {
        0 => format!("{count} elements"),
        1 => format!("{count} elements and 1 byte"),
        rest => format!("{count} elements and {rest} bytes"),
    }
}
