//! What a conversion fused into a move is, in the terms the levels' kernels take it (Normalize's vocabulary): the
//! types in and out ([`Norm`], [`NormType`], [`FloatNorm`], [`FusedConvert`]), the parameters of a block of pixels
//! ([`WindowPairs`]) and a run of rows walked in one call ([`RowRun`]). Plain data, below the levels: `arch`
//! implements these conversions, `rows` chooses them.

/// A run of rows a kernel walks in one call: `count` rows, each `in_step` / `out_step` bytes after the previous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowRun {
    pub(crate) count: usize,
    pub(crate) in_step: isize,
    pub(crate) out_step: isize,
}

/// The contiguous run a conversion moves in one call: `n` elements (or pixels, or blocks of pixels: the method
/// says) read from `src`, written to `dst`, non-temporally with `stream`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    pub(crate) src: *const u8,
    pub(crate) dst: *mut u8,
    pub(crate) n: usize,
    pub(crate) stream: bool,
}

/// The types of a normalization in registers: `from` in, `out` out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Norm {
    pub(crate) from: NormType,
    pub(crate) out: NormType,
}

impl Norm {
    /// Whether the input is `i8`.
    pub(crate) fn signed(self) -> bool {
        self.from == NormType::I8
    }

    /// Whether the input is a one-byte integer (the only inputs of the byte tables and fused deinterleaves).
    pub(crate) fn bytes(self) -> bool {
        self.from.width() == 1
    }

    /// Whether one-byte integers go into one-byte integers (what the unclamped byte kernels take, given parameters
    /// that pass [`byte_results_fit_i32`](crate::float::byte_results_fit_i32)).
    pub(crate) fn bytes_to_bytes(self) -> bool {
        self.bytes() && self.out.width() == 1
    }

    /// For one-byte integers into one-byte integers, whether the input and the output are `i8` (else `u8`): what
    /// a fixed-point form is made for ([`Periodic::new`](crate::tables::Periodic::new)).
    pub(crate) fn byte_signs(self) -> Option<(bool, bool)> {
        self.bytes_to_bytes().then_some((self.signed(), self.out == NormType::I8))
    }
}

/// A type of a normalization in registers. Inputs convert to f32 exactly; outputs are f32, f16 rounded to nearest
/// even, or a one-byte integer rounded to nearest even and saturated, NaN giving 0 (the casts' rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NormType {
    F32,
    F16,
    U8,
    I8,
}

impl NormType {
    /// Bytes per element.
    pub(crate) fn width(self) -> usize {
        match self {
            NormType::F32 => 4,
            NormType::F16 => 2,
            NormType::U8 | NormType::I8 => 1,
        }
    }

    /// The const-generic code of the type in the levels' kernels (`Norm16` implementations).
    pub(crate) const fn code(self) -> u8 {
        self as u8
    }
}

/// The conversion of a fused move of f32 pixels into planes: `x·scale + bias` per plane (`affine`) or the value as
/// is, into f16 (`f16`) or f32 planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FloatNorm {
    pub(crate) affine: bool,
    pub(crate) f16: bool,
}

/// The parameters of `Arch::convert_windows`: one pair for every element, or a pattern from its lane 0 (a block
/// of pixels is a whole number of its periods).
#[derive(Clone, Copy)]
pub(crate) enum WindowPairs<'a> {
    One(f32, f32),
    Pattern(&'a crate::tables::Periodic),
}

/// The conversion `Arch::deinterleave_convert` applies in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FusedConvert {
    /// One-byte integers normalized.
    Bytes(Norm),
    /// F32 cast to f16 or normalized.
    Floats(FloatNorm),
}

impl FusedConvert {
    /// Whether the conversion scales and offsets each plane with its parameters.
    pub(crate) fn affine(self) -> bool {
        match self {
            FusedConvert::Bytes(_) => true,
            FusedConvert::Floats(k) => k.affine,
        }
    }
}
