//! A check of the C interface for the fuzz crate (`strider-fuzz`'s `capi` target): an operator description is
//! written into DirectML's structs as a C program fills them, then broken as a careless one might (NULL fields,
//! wrong types and counts, unknown enum values, missing or short buffers, aliased outputs), and run through
//! `strider_operator_create` and `strider_operator_execute_bindings`. Unbroken, the C interface must give exactly
//! what the Rust API gives; broken, it must return an error and write nothing. Here because it calls the exported
//! functions (the C ABI's `unsafe` stays in this crate); compiled only with the `fuzzing` feature.

use core::ffi::c_void;

use strider_core::{ExecOptions, ImageResize, OperatorDesc, ResizeFilter, TensorDesc};

use crate::types::*;
use crate::{strider_operator_create, strider_operator_destroy, strider_operator_execute_bindings};

/// How to break a description or a call (all `None`: a faithful one).
#[derive(Clone, Debug, Default)]
pub struct Breakage {
    /// Another `DML_OPERATOR_DESC::Type`.
    pub operator_type: Option<u32>,
    /// `DML_OPERATOR_DESC::Desc` NULL.
    pub null_desc: bool,
    /// The k-th tensor pointer NULL.
    pub null_tensor: Option<usize>,
    /// The k-th tensor's `Type`.
    pub tensor_type: Option<(usize, u32)>,
    /// The k-th tensor's `DataType`.
    pub data_type: Option<(usize, u32)>,
    /// The k-th tensor's `DimensionCount` (its arrays always hold 9 values, so any count up to 9 is readable).
    pub dimension_count: Option<(usize, u32)>,
    /// The k-th tensor's `TotalTensorSizeInBytes`.
    pub total_size: Option<(usize, u64)>,
    /// The operator's own count (`DimensionCount`, `InputCount`, `OutputCount`, `RepeatsCount`), at most the
    /// arrays' 9 values or tensors given.
    pub count: Option<u32>,
    /// The operator's mode, order or value type field.
    pub enum_field: Option<u32>,
    /// The call's `input_count` / `output_count`.
    pub input_count: Option<u32>,
    pub output_count: Option<u32>,
    /// A binding's `Data` NULL: (output?, index).
    pub null_binding: Option<(bool, usize)>,
    /// A binding shortened by some bytes: (output?, index, bytes).
    pub short: Option<(bool, usize, u64)>,
    /// Output `k`'s binding pointing into input `i`'s buffer (`Some((k, Some(i)))`) or output `j`'s.
    pub alias: Option<(usize, usize, bool)>,
    /// `StriderExecuteOptions`.
    pub threads: u32,
    pub isa: u32,
}

/// A tensor written as DirectML's structs, its arrays always 9 values long.
struct CTensor {
    /// Kept alive: the buffer description points into them.
    #[allow(dead_code)]
    sizes: Box<[u32; 9]>,
    #[allow(dead_code)]
    strides: Option<Box<[u32; 9]>>,
    buffer: Box<StriderBufferTensorDesc>,
}

impl CTensor {
    fn new(t: &TensorDesc) -> CTensor {
        let mut sizes = Box::new([1u32; 9]);
        sizes[..t.rank()].copy_from_slice(t.sizes());
        let strides = t.explicit_strides().map(|s| {
            let mut b = Box::new([0u32; 9]);
            b[..s.len()].copy_from_slice(s);
            b
        });
        let buffer = Box::new(StriderBufferTensorDesc {
            DataType: t.data_type().dml_value(),
            Flags: t.flags().bits(),
            DimensionCount: t.rank() as u32,
            Sizes: sizes.as_ptr(),
            Strides: strides.as_ref().map_or(core::ptr::null(), |s| s.as_ptr()),
            TotalTensorSizeInBytes: t.total_tensor_size_in_bytes(),
            GuaranteedBaseOffsetAlignment: t.guaranteed_base_offset_alignment(),
        });
        CTensor { sizes, strides, buffer }
    }

    fn desc(&self) -> StriderTensorDesc {
        StriderTensorDesc { Type: STRIDER_TENSOR_TYPE_BUFFER, Desc: (&raw const *self.buffer).cast() }
    }
}

/// Everything a written description points to, kept alive for the call.
#[derive(Default)]
struct Storage {
    tensors: Vec<CTensor>,
    descs: Vec<Box<[StriderTensorDesc]>>,
    // Boxed: a description holds pointers into these arrays, which must not move when the vector grows.
    #[allow(clippy::vec_box)]
    arrays_u32: Vec<Box<[u32; 9]>>,
    #[allow(clippy::vec_box)]
    arrays_i32: Vec<Box<[i32; 9]>>,
    floats: Vec<Box<[f32]>>,
    scale_bias: Option<Box<StriderScaleBias>>,
}

impl Storage {
    fn u32s(&mut self, v: &[u32]) -> *const u32 {
        let mut b = Box::new([0u32; 9]);
        b[..v.len().min(9)].copy_from_slice(&v[..v.len().min(9)]);
        let p = b.as_ptr();
        self.arrays_u32.push(b);
        p
    }

    /// `v` kept alive for the description, as its address.
    fn f32s(&mut self, v: &[f32]) -> *const f32 {
        let b: Box<[f32]> = v.into();
        let p = b.as_ptr();
        self.floats.push(b);
        p
    }

    fn i32s(&mut self, v: &[i32]) -> *const i32 {
        let mut b = Box::new([0i32; 9]);
        b[..v.len().min(9)].copy_from_slice(&v[..v.len().min(9)]);
        let p = b.as_ptr();
        self.arrays_i32.push(b);
        p
    }

    /// The tensors as an array of `StriderTensorDesc` structs (JOIN's inputs, SPLIT's outputs).
    fn tensor_array(&mut self, ts: &[TensorDesc]) -> *const StriderTensorDesc {
        let descs: Box<[StriderTensorDesc]> = ts
            .iter()
            .map(|t| {
                self.tensors.push(CTensor::new(t));
                self.tensors.last().map(CTensor::desc).unwrap_or(StriderTensorDesc { Type: 0, Desc: core::ptr::null() })
            })
            .collect();
        let p = descs.as_ptr();
        self.descs.push(descs);
        p
    }

    /// One tensor, as a pointer to its `StriderTensorDesc`.
    fn tensor(&mut self, t: &TensorDesc) -> *const StriderTensorDesc {
        self.tensor_array(core::slice::from_ref(t))
    }
}

/// A union holding the scalar's bytes.
fn union(bytes: [u8; 8]) -> StriderScalarUnion {
    StriderScalarUnion { Bytes: bytes }
}

/// The description written as DirectML's structs: (operator type, the struct's bytes, its storage).
fn write(desc: &OperatorDesc, st: &mut Storage) -> Option<(u32, Vec<u8>)> {
    fn bytes<T: Copy>(v: T) -> Vec<u8> {
        // SAFETY: any `T: Copy` is readable as its bytes (padding bytes are copied, never interpreted as values).
        unsafe { core::slice::from_raw_parts((&raw const v).cast::<u8>(), core::mem::size_of::<T>()) }.to_vec()
    }
    Some(match desc {
        OperatorDesc::ElementWiseIdentity { input, output, scale_bias } => {
            let sb = scale_bias.map(|s| Box::new(StriderScaleBias { Scale: s.scale, Bias: s.bias }));
            let p = sb.as_ref().map_or(core::ptr::null(), |b| &raw const **b);
            st.scale_bias = sb;
            let o = StriderElementWiseIdentityOperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                ScaleBias: p,
            };
            (STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY, bytes(o))
        }
        OperatorDesc::Cast { input, output } => {
            let o = StriderCastOperatorDesc { InputTensor: st.tensor(input), OutputTensor: st.tensor(output) };
            (STRIDER_OPERATOR_CAST, bytes(o))
        }
        OperatorDesc::Slice { input, output, offsets, sizes, strides } => {
            let o = StriderSliceOperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                DimensionCount: offsets.len() as u32,
                Offsets: st.u32s(offsets),
                Sizes: st.u32s(sizes),
                Strides: st.u32s(strides),
            };
            (STRIDER_OPERATOR_SLICE, bytes(o))
        }
        OperatorDesc::Slice1 { input, output, window_offsets, window_sizes, window_strides } => {
            let o = StriderSlice1OperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                DimensionCount: window_offsets.len() as u32,
                InputWindowOffsets: st.u32s(window_offsets),
                InputWindowSizes: st.u32s(window_sizes),
                InputWindowStrides: st.i32s(window_strides),
            };
            (STRIDER_OPERATOR_SLICE1, bytes(o))
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
        } => {
            let o = StriderNormalizeOperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                DimensionCount: window_offsets.len() as u32,
                InputWindowOffsets: st.u32s(window_offsets),
                InputWindowSizes: st.u32s(window_sizes),
                InputWindowStrides: st.i32s(window_strides),
                ChannelAxis: channel_axis.map_or(-1, |a| i32::try_from(a).unwrap_or(i32::MAX)),
                ScaleCount: scale.len() as u32,
                Scale: st.f32s(scale),
                BiasCount: bias.len() as u32,
                Bias: st.f32s(bias),
            };
            (STRIDER_OPERATOR_NORMALIZE, bytes(o))
        }
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
            let (mode, h, w, pad) = match *resize {
                ImageResize::None => (STRIDER_RESIZE_NONE, 0, 0, 0.0),
                ImageResize::Stretch { height, width } => (STRIDER_RESIZE_STRETCH, height, width, 0.0),
                ImageResize::Shorter(s) => (STRIDER_RESIZE_SHORTER, s, 0, 0.0),
                ImageResize::Letterbox { height, width, pad } => (STRIDER_RESIZE_LETTERBOX, height, width, pad),
            };
            let flags = [
                (*flip_horizontal, STRIDER_PREPROCESS_FLIP_HORIZONTAL),
                (*flip_vertical, STRIDER_PREPROCESS_FLIP_VERTICAL),
                (*reverse_channels, STRIDER_PREPROCESS_REVERSE_CHANNELS),
                (!*antialias, STRIDER_PREPROCESS_SAMPLED),
            ];
            let o = StriderPreprocessOperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                Resize: mode,
                ResizeHeight: h,
                ResizeWidth: w,
                Filter: match filter {
                    ResizeFilter::Nearest => STRIDER_FILTER_NEAREST,
                    ResizeFilter::Bilinear => STRIDER_FILTER_BILINEAR,
                    ResizeFilter::Bicubic => STRIDER_FILTER_BICUBIC,
                    _ => STRIDER_FILTER_AREA,
                },
                PadValue: pad,
                CropHeight: crop.map_or(0, |c| c[0]),
                CropWidth: crop.map_or(0, |c| c[1]),
                Flags: flags.iter().filter(|f| f.0).fold(0, |a, f| a | f.1),
                ScaleCount: scale.len() as u32,
                Scale: st.f32s(scale),
                BiasCount: bias.len() as u32,
                Bias: st.f32s(bias),
            };
            (STRIDER_OPERATOR_PREPROCESS, bytes(o))
        }
        OperatorDesc::Padding { input, output, mode, value, start, end } => {
            let o = StriderPadding1OperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                PaddingMode: mode.dml_value(),
                PaddingValueDataType: value.data_type().dml_value(),
                PaddingValue: union(value.to_union()),
                DimensionCount: start.len() as u32,
                StartPadding: st.u32s(start),
                EndPadding: st.u32s(end),
            };
            (STRIDER_OPERATOR_PADDING1, bytes(o))
        }
        OperatorDesc::Join { inputs, output, axis } => {
            let o = StriderJoinOperatorDesc {
                InputCount: inputs.len() as u32,
                InputTensors: st.tensor_array(inputs),
                OutputTensor: st.tensor(output),
                Axis: *axis,
            };
            (STRIDER_OPERATOR_JOIN, bytes(o))
        }
        OperatorDesc::Split { input, outputs, axis } => {
            let o = StriderSplitOperatorDesc {
                InputTensor: st.tensor(input),
                OutputCount: outputs.len() as u32,
                OutputTensors: st.tensor_array(outputs),
                Axis: *axis,
            };
            (STRIDER_OPERATOR_SPLIT, bytes(o))
        }
        OperatorDesc::Tile { input, output, repeats } => {
            let o = StriderTileOperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                RepeatsCount: repeats.len() as u32,
                Repeats: st.u32s(repeats),
            };
            (STRIDER_OPERATOR_TILE, bytes(o))
        }
        OperatorDesc::DepthToSpace { input, output, block_size, order }
        | OperatorDesc::SpaceToDepth { input, output, block_size, order } => {
            let o = StriderSpaceToDepth1OperatorDesc {
                InputTensor: st.tensor(input),
                OutputTensor: st.tensor(output),
                BlockSize: *block_size,
                Order: order.dml_value(),
            };
            let ty = if matches!(desc, OperatorDesc::DepthToSpace { .. }) {
                STRIDER_OPERATOR_DEPTH_TO_SPACE1
            } else {
                STRIDER_OPERATOR_SPACE_TO_DEPTH1
            };
            (ty, bytes(o))
        }
        OperatorDesc::FillValueConstant { output, value } => {
            let o = StriderFillValueConstantOperatorDesc {
                OutputTensor: st.tensor(output),
                ValueDataType: value.data_type().dml_value(),
                Value: union(value.to_union()),
            };
            (STRIDER_OPERATOR_FILL_VALUE_CONSTANT, bytes(o))
        }
        OperatorDesc::FillValueSequence { output, start, delta } => {
            // DirectML's struct has one value type for both: a description the C interface cannot express is
            // skipped (the Rust API takes f64 starts for float outputs).
            if start.data_type() != delta.data_type() || start.data_type() != output.data_type() {
                return None;
            }
            let o = StriderFillValueSequenceOperatorDesc {
                OutputTensor: st.tensor(output),
                ValueDataType: start.data_type().dml_value(),
                ValueStart: union(start.to_union()),
                ValueDelta: union(delta.to_union()),
            };
            (STRIDER_OPERATOR_FILL_VALUE_SEQUENCE, bytes(o))
        }
        OperatorDesc::Gather { input, indices, output, axis, index_dimensions } => {
            let o = StriderGatherOperatorDesc {
                InputTensor: st.tensor(input),
                IndicesTensor: st.tensor(indices),
                OutputTensor: st.tensor(output),
                Axis: *axis,
                IndexDimensions: *index_dimensions,
            };
            (STRIDER_OPERATOR_GATHER, bytes(o))
        }
        OperatorDesc::GatherElements { input, indices, output, axis } => {
            let o = StriderGatherElementsOperatorDesc {
                InputTensor: st.tensor(input),
                IndicesTensor: st.tensor(indices),
                OutputTensor: st.tensor(output),
                Axis: *axis,
            };
            (STRIDER_OPERATOR_GATHER_ELEMENTS, bytes(o))
        }
        OperatorDesc::GatherNd {
            input,
            indices,
            output,
            input_dimension_count,
            indices_dimension_count,
            batch_dimension_count,
        } => {
            let o = StriderGatherNd1OperatorDesc {
                InputTensor: st.tensor(input),
                IndicesTensor: st.tensor(indices),
                OutputTensor: st.tensor(output),
                InputDimensionCount: *input_dimension_count,
                IndicesDimensionCount: *indices_dimension_count,
                BatchDimensionCount: *batch_dimension_count,
            };
            (STRIDER_OPERATOR_GATHER_ND1, bytes(o))
        }
        OperatorDesc::ScatterElements { input, indices, updates, output, axis } => {
            let o = StriderScatterOperatorDesc {
                InputTensor: st.tensor(input),
                IndicesTensor: st.tensor(indices),
                UpdatesTensor: st.tensor(updates),
                OutputTensor: st.tensor(output),
                Axis: *axis,
            };
            (STRIDER_OPERATOR_SCATTER_ELEMENTS, bytes(o))
        }
        OperatorDesc::ScatterNd { input, indices, updates, output, input_dimension_count, indices_dimension_count } => {
            let o = StriderScatterNdOperatorDesc {
                InputTensor: st.tensor(input),
                IndicesTensor: st.tensor(indices),
                UpdatesTensor: st.tensor(updates),
                OutputTensor: st.tensor(output),
                InputDimensionCount: *input_dimension_count,
                IndicesDimensionCount: *indices_dimension_count,
            };
            (STRIDER_OPERATOR_SCATTER_ND, bytes(o))
        }
        OperatorDesc::OneHot { indices, values, output, axis } => {
            let o = StriderOneHotOperatorDesc {
                IndicesTensor: st.tensor(indices),
                ValuesTensor: st.tensor(values),
                OutputTensor: st.tensor(output),
                Axis: *axis,
            };
            (STRIDER_OPERATOR_ONE_HOT, bytes(o))
        }
        _ => return None,
    })
}

/// The tensors of a description.
fn tensors_of(desc: &OperatorDesc) -> Vec<&TensorDesc> {
    match desc {
        OperatorDesc::Join { inputs, output, .. } => inputs.iter().chain([output]).collect(),
        OperatorDesc::Split { input, outputs, .. } => [input].into_iter().chain(outputs).collect(),
        OperatorDesc::FillValueConstant { output, .. } | OperatorDesc::FillValueSequence { output, .. } => vec![output],
        OperatorDesc::ElementWiseIdentity { input, output, .. }
        | OperatorDesc::Cast { input, output }
        | OperatorDesc::Slice { input, output, .. }
        | OperatorDesc::Slice1 { input, output, .. }
        | OperatorDesc::Normalize { input, output, .. }
        | OperatorDesc::Preprocess { input, output, .. }
        | OperatorDesc::Padding { input, output, .. }
        | OperatorDesc::Tile { input, output, .. }
        | OperatorDesc::DepthToSpace { input, output, .. }
        | OperatorDesc::SpaceToDepth { input, output, .. } => vec![input, output],
        OperatorDesc::Gather { input, indices, output, .. }
        | OperatorDesc::GatherElements { input, indices, output, .. }
        | OperatorDesc::GatherNd { input, indices, output, .. } => vec![input, indices, output],
        OperatorDesc::ScatterElements { input, indices, updates, output, .. }
        | OperatorDesc::ScatterNd { input, indices, updates, output, .. } => vec![input, indices, updates, output],
        OperatorDesc::OneHot { indices, values, output, .. } => vec![indices, values, output],
        _ => Vec::new(),
    }
}

/// The bytes a buffer of `t` needs through the C interface: its `TotalTensorSizeInBytes` as written (DirectML's
/// rounded minimum when the Rust description set none).
fn c_bytes(t: &TensorDesc) -> u64 {
    t.total_tensor_size_in_bytes().max(t.required_buffer_bytes())
}

/// Largest buffers the check allocates.
const MAX_BYTES: u64 = 1 << 20;
const SENTINEL: u8 = 0x5A;

/// Runs the check (see the module documentation). Panics on a finding.
pub fn check(desc: &OperatorDesc, broken: &Breakage, seed: u8) {
    // DirectML's structs cannot say that a dimension is reversed (Strider's extension for NumPy's negative strides).
    if tensors_of(desc).iter().any(|t| !t.reversed_dims().is_empty()) {
        return;
    }
    let mut st = Storage::default();
    let Some((mut ty, mut body)) = write(desc, &mut st) else { return };
    // Whether the description was actually broken (a breakage that does not apply leaves it faithful). A
    // description whose per-dimension arrays differ in length is not: the struct has one `DimensionCount` for all of
    // them, so C reads each with the first one's length (fuzzing found start [0] with end [] read as end [0]).
    let same = |lens: &[usize]| lens.windows(2).all(|w| w[0] == w[1]);
    let mut faithful = match desc {
        OperatorDesc::Padding { start, end, .. } => same(&[start.len(), end.len()]),
        OperatorDesc::Slice { offsets, sizes, strides, .. } => same(&[offsets.len(), sizes.len(), strides.len()]),
        OperatorDesc::Slice1 { window_offsets, window_sizes, window_strides, .. }
        | OperatorDesc::Normalize { window_offsets, window_sizes, window_strides, .. } => {
            same(&[window_offsets.len(), window_sizes.len(), window_strides.len()])
        }
        _ => true,
    };
    // Break the description: the tensors (all in `st.tensors`, in the order the struct lists them).
    let n = st.tensors.len();
    // Tensor 0 broken: the struct's first tensor pointer NULL; another: a DimensionCount of 0.
    let null_first = broken.null_tensor == Some(0);
    faithful &= !null_first;
    if let Some(k) = broken.null_tensor.filter(|&k| k > 0 && k < n) {
        st.tensors[k].buffer.DimensionCount = 0;
        faithful = false;
    }
    if let Some((k, v)) = broken.tensor_type.filter(|(k, _)| *k < n) {
        for descs in &mut st.descs {
            if let Some(d) = descs.iter_mut().find(|d| d.Desc == (&raw const *st.tensors[k].buffer).cast()) {
                faithful &= d.Type == v;
                d.Type = v;
            }
        }
    }
    if let Some((k, v)) = broken.data_type.filter(|(k, _)| *k < n) {
        faithful &= st.tensors[k].buffer.DataType == v;
        st.tensors[k].buffer.DataType = v;
    }
    if let Some((k, v)) = broken.dimension_count.filter(|(k, _)| *k < n) {
        faithful &= st.tensors[k].buffer.DimensionCount == v.min(9);
        st.tensors[k].buffer.DimensionCount = v.min(9);
    }
    if let Some((k, v)) = broken.total_size.filter(|(k, _)| *k < n) {
        faithful &= st.tensors[k].buffer.TotalTensorSizeInBytes == v;
        st.tensors[k].buffer.TotalTensorSizeInBytes = v;
    }
    // The operator's own fields: counts and enums sit at offsets of its struct.
    let set_u32 = |body: &mut Vec<u8>, offset: usize, v: u32| body[offset..][..4].copy_from_slice(&v.to_le_bytes());
    let (count_at, enum_at, max_count) = match ty {
        STRIDER_OPERATOR_SLICE | STRIDER_OPERATOR_SLICE1 | STRIDER_OPERATOR_NORMALIZE => (Some(16), None, 9),
        STRIDER_OPERATOR_TILE => (Some(16), None, 9),
        STRIDER_OPERATOR_PADDING1 => (Some(32), Some(16), 9),
        STRIDER_OPERATOR_JOIN => (Some(0), None, st.descs.first().map_or(0, |d| d.len() as u32)),
        STRIDER_OPERATOR_SPLIT => (Some(8), None, st.descs.get(1).map_or(0, |d| d.len() as u32)),
        STRIDER_OPERATOR_DEPTH_TO_SPACE1 | STRIDER_OPERATOR_SPACE_TO_DEPTH1 => (None, Some(20), 0),
        STRIDER_OPERATOR_FILL_VALUE_CONSTANT | STRIDER_OPERATOR_FILL_VALUE_SEQUENCE => (None, Some(8), 0),
        _ => (None, None, 0),
    };
    let get_u32 = |body: &[u8], at: usize| u32::from_le_bytes(body[at..][..4].try_into().expect("4 bytes"));
    if let (Some(at), Some(v)) = (count_at, broken.count) {
        faithful &= get_u32(&body, at) == v.min(max_count);
        set_u32(&mut body, at, v.min(max_count));
    }
    if let (Some(at), Some(v)) = (enum_at, broken.enum_field) {
        faithful &= get_u32(&body, at) == v;
        set_u32(&mut body, at, v);
    }
    if null_first {
        // JOIN's first pointer is its input array (at 8); every other struct starts with a tensor pointer.
        let at = if ty == STRIDER_OPERATOR_JOIN { 16 } else { 0 };
        body[at..][..8].fill(0);
    }
    // Only an unknown type: a known one would make the reader read this struct as another (the caller's
    // contract forbids that, and nothing can check it).
    let known = [
        STRIDER_OPERATOR_ELEMENT_WISE_IDENTITY,
        STRIDER_OPERATOR_SLICE,
        STRIDER_OPERATOR_CAST,
        STRIDER_OPERATOR_SPLIT,
        STRIDER_OPERATOR_JOIN,
        STRIDER_OPERATOR_PADDING,
        STRIDER_OPERATOR_SPACE_TO_DEPTH,
        STRIDER_OPERATOR_DEPTH_TO_SPACE,
        STRIDER_OPERATOR_TILE,
        STRIDER_OPERATOR_FILL_VALUE_CONSTANT,
        STRIDER_OPERATOR_FILL_VALUE_SEQUENCE,
        STRIDER_OPERATOR_SLICE1,
        STRIDER_OPERATOR_DEPTH_TO_SPACE1,
        STRIDER_OPERATOR_SPACE_TO_DEPTH1,
        STRIDER_OPERATOR_PADDING1,
        STRIDER_OPERATOR_NORMALIZE,
        STRIDER_OPERATOR_GATHER,
        STRIDER_OPERATOR_SCATTER_ELEMENTS,
        STRIDER_OPERATOR_ONE_HOT,
        STRIDER_OPERATOR_GATHER_ELEMENTS,
        STRIDER_OPERATOR_GATHER_ND,
        STRIDER_OPERATOR_SCATTER_ND,
        STRIDER_OPERATOR_GATHER_ND1,
    ];
    if let Some(t) = broken.operator_type.filter(|t| !known.contains(t)) {
        ty = t;
        faithful = false;
    }
    faithful &= !broken.null_desc;
    // The struct's bytes, aligned for its pointers.
    let mut aligned = vec![0u64; body.len().div_ceil(8)];
    // SAFETY: `aligned` holds at least `body.len()` bytes.
    unsafe { core::ptr::copy_nonoverlapping(body.as_ptr(), aligned.as_mut_ptr().cast::<u8>(), body.len()) };
    let op_desc = StriderOperatorDesc {
        Type: ty,
        Desc: if broken.null_desc { core::ptr::null() } else { aligned.as_ptr().cast::<c_void>() },
    };
    let mut op: *mut crate::StriderOperator = core::ptr::null_mut();
    // SAFETY: the description and everything it points to is alive and consistent with its counts: arrays hold 9
    // values, tensor arrays the count written (a broken count is at most that); a broken Type is an unknown one,
    // refused before its struct is read.
    let status = unsafe { strider_operator_create(&op_desc, &mut op) };
    let rust = desc.build();
    if faithful {
        assert_eq!(status == StriderStatus::STRIDER_OK, rust.is_ok(), "{desc:?}: C create {status:?}, Rust {rust:?}");
    }
    if status != StriderStatus::STRIDER_OK {
        assert!(op.is_null(), "a failed create left an operator");
        return;
    }
    let Ok(rust) = rust else {
        // A broken description that still made a valid operator (e.g. a type changed to an equal one): fine, but
        // then it runs on its own tensors below only if they match the Rust ones; skip.
        // SAFETY: `op` came from `strider_operator_create`.
        unsafe { strider_operator_destroy(op) };
        return;
    };
    let (ins, outs) = (rust.inputs().to_vec(), rust.outputs().to_vec());
    if ins.iter().chain(&outs).any(|t| c_bytes(t) > MAX_BYTES) || !faithful {
        // (A broken description that still built — a count or type changed to an equivalent — is not run: its
        // tensors are not the Rust description's.)
        // SAFETY: as above.
        unsafe { strider_operator_destroy(op) };
        return;
    }
    // Index tensors of the index operators hold small indices (negative ones too), so that most runs are valid.
    let index_input = match ty {
        STRIDER_OPERATOR_ONE_HOT => Some(0),
        STRIDER_OPERATOR_GATHER
        | STRIDER_OPERATOR_GATHER_ELEMENTS
        | STRIDER_OPERATOR_GATHER_ND1
        | STRIDER_OPERATOR_SCATTER_ELEMENTS
        | STRIDER_OPERATOR_SCATTER_ND => Some(1),
        _ => None,
    };
    let fill = |k: usize, n: u64| -> Vec<u8> {
        if Some(k) == index_input {
            let w = ins[k].data_type().size_in_bytes().max(1);
            return (0..n as usize)
                .map(|i| {
                    let k = i.checked_div(w).unwrap_or(0) as i64;
                    let v =
                        k.wrapping_mul(3).wrapping_add(i64::from(seed)).rem_euclid(4).wrapping_sub(i64::from(seed & 1));
                    v.to_le_bytes()[i.checked_rem(w).unwrap_or(0).min(7)]
                })
                .collect();
        }
        (0..n as usize).map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed ^ k as u8)).collect()
    };
    let mut in_bufs: Vec<Vec<u8>> = ins.iter().enumerate().map(|(k, t)| fill(k, c_bytes(t))).collect();
    let mut out_bufs: Vec<Vec<u8>> = outs.iter().map(|t| vec![SENTINEL; c_bytes(t) as usize]).collect();
    let mut bind = |b: &mut Vec<u8>| StriderBufferBinding { Data: b.as_mut_ptr().cast(), SizeInBytes: b.len() as u64 };
    let mut in_bind: Vec<StriderBufferBinding> = in_bufs.iter_mut().map(&mut bind).collect();
    let mut out_bind: Vec<StriderBufferBinding> = out_bufs.iter_mut().map(&mut bind).collect();
    let mut call_broken = false;
    if let Some((output, k, bytes)) = broken.short {
        let list = if output { &mut out_bind } else { &mut in_bind };
        if let Some(b) = list.get_mut(k) {
            b.SizeInBytes = b.SizeInBytes.saturating_sub(bytes.max(1));
            call_broken = true;
        }
    }
    if let Some((output, k)) = broken.null_binding {
        let list = if output { &mut out_bind } else { &mut in_bind };
        if let Some(b) = list.get_mut(k) {
            b.Data = core::ptr::null_mut();
            call_broken = true;
        }
    }
    if let Some((k, other, from_input)) = broken.alias
        && k < out_bind.len()
    {
        let source = if from_input { in_bind.get(other) } else { out_bind.get(other).filter(|_| other != k) };
        if let Some(&s) = source {
            // Within the other buffer: the output is no longer than it (or refused for its length first).
            out_bind[k].Data = s.Data;
            out_bind[k].SizeInBytes = out_bind[k].SizeInBytes.min(s.SizeInBytes);
            call_broken = true;
        }
    }
    let in_count = broken.input_count.map_or(in_bind.len() as u32, |c| c.min(in_bind.len() as u32));
    let out_count = broken.output_count.map_or(out_bind.len() as u32, |c| c.min(out_bind.len() as u32));
    call_broken |= in_count as usize != in_bind.len() || out_count as usize != out_bind.len();
    let options = StriderExecuteOptions { Threads: broken.threads % 4, Isa: broken.isa % 6 };
    let snapshot: Vec<Vec<u8>> = out_bufs.clone();
    let inputs_before: Vec<Vec<u8>> = in_bufs.clone();
    // SAFETY: every binding points into a live buffer of at least its length (broken ones are shorter, NULL, or
    // alias another live buffer within its length); the counts are at most the bindings given.
    let status = unsafe {
        strider_operator_execute_bindings(op, in_bind.as_ptr(), in_count, out_bind.as_ptr(), out_count, &options)
    };
    // SAFETY: `op` came from `strider_operator_create`.
    unsafe { strider_operator_destroy(op) };
    // What the Rust API gives for these buffers: an invalid index fails both.
    let mut want: Vec<Vec<u8>> = outs.iter().map(|t| vec![SENTINEL; c_bytes(t) as usize]).collect();
    let rust_result = {
        let in_slices: Vec<&[u8]> = inputs_before.iter().map(Vec::as_slice).collect();
        let mut want_slices: Vec<&mut [u8]> = want.iter_mut().map(Vec::as_mut_slice).collect();
        rust.execute_with(&in_slices, &mut want_slices, &ExecOptions::sequential())
    };
    let bad_index = matches!(rust_result, Err(strider_core::Error::IndexOutOfRange { .. }));
    if status != StriderStatus::STRIDER_OK {
        assert!(
            call_broken || bad_index || options.Isa >= 2 || options.Threads > 0,
            "a faithful call failed: {status:?} ({desc:?})"
        );
        assert!(out_bufs == snapshot && in_bufs == inputs_before, "a failed call wrote ({desc:?})");
        return;
    }
    assert!(!call_broken || broken.alias.is_some(), "a broken call succeeded: {broken:?} ({desc:?})");
    if call_broken {
        return; // an alias of an input another output never reads can be valid; the bytes are not compared
    }
    assert!(!bad_index, "the C interface ran what the Rust API refused ({desc:?})");
    rust_result.expect("the Rust operator runs");
    assert!(out_bufs == want, "the C interface's result differs from the Rust API's ({desc:?})");
    in_bufs.clear();
}
