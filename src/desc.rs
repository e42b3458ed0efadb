#![deny(clippy::arithmetic_side_effects)]
//! Tensor descriptions (`DML_BUFFER_TENSOR_DESC`) and the minimum buffer size (`DMLCalcBufferTensorSize`).

use core::fmt;
use core::ops::{BitOr, BitOrAssign};

use crate::{DataType, Error};

/// `DML_TENSOR_FLAGS`: hints about a tensor's buffer. None changes what the CPU does; they are kept so that a
/// description round-trips.
///
/// # Examples
///
/// ```
/// use strider::{DataType, TensorDesc, TensorFlags};
/// let t = TensorDesc::new(DataType::Float32, &[4])?.with_flags(TensorFlags::OWNED_BY_DML);
/// assert!(t.flags().contains(TensorFlags::OWNED_BY_DML));
/// assert_eq!(TensorFlags::from_bits(2), None); // unknown flags are refused
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TensorFlags(u32);

impl TensorFlags {
    /// `DML_TENSOR_FLAG_NONE`.
    pub const NONE: TensorFlags = TensorFlags(0);
    /// `DML_TENSOR_FLAG_OWNED_BY_DML`: on a GPU, the tensor's contents are owned by DirectML after initialization.
    pub const OWNED_BY_DML: TensorFlags = TensorFlags(1);

    /// Every flag DirectML defines.
    const KNOWN: u32 = 1;

    /// The flags as DirectML's bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The flags of DirectML's bits, or `None` when an unknown bit is set.
    pub const fn from_bits(bits: u32) -> Option<TensorFlags> {
        if bits & !Self::KNOWN == 0 { Some(TensorFlags(bits)) } else { None }
    }

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: TensorFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for TensorFlags {
    type Output = TensorFlags;
    fn bitor(self, rhs: TensorFlags) -> TensorFlags {
        TensorFlags(self.0 | rhs.0)
    }
}

impl BitOrAssign for TensorFlags {
    fn bitor_assign(&mut self, rhs: TensorFlags) {
        self.0 |= rhs.0;
    }
}

/// DirectML's largest tensor rank.
pub const MAX_RANK: usize = 8;

/// A tensor's data type, sizes and strides: mirror of `DML_BUFFER_TENSOR_DESC`.
///
/// Element `c` (a coordinate vector, `0 ≤ cᵢ < sizesᵢ`) lives at element offset `Σ cᵢ·stridesᵢ` of the buffer.
/// Strides are unsigned and counted in elements; without explicit strides the tensor is packed row-major. A stride
/// of 0 broadcasts a dimension, larger strides pad, and a permutation of the packed strides describes another
/// layout (NHWC data under NCHW-ordered sizes). See the crate documentation's "Memory layout".
///
/// # Examples
///
/// ```
/// use strider::{DataType, TensorDesc};
/// // DHW 2×2×3, packed.
/// let t = TensorDesc::new(DataType::Uint8, &[2, 2, 3])?;
/// assert_eq!(t.strides(), &[6, 3, 1]);
/// assert_eq!(t.min_buffer_size_in_bytes(), 12);
/// // 2×3 rows padded to 5 elements: the last element sits at offset 5 + 2 = 7.
/// let padded = TensorDesc::with_strides(DataType::Float32, &[2, 3], &[5, 1])?;
/// assert_eq!(padded.addressed_bytes(), 32);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone)]
pub struct TensorDesc {
    data_type: DataType,
    rank: u8,
    sizes: [u32; MAX_RANK],
    /// Explicit strides, or the packed ones.
    strides: [u32; MAX_RANK],
    explicit: bool,
    addressed: u64,
    min_size: u64,
    /// `TotalTensorSizeInBytes` when the caller set it.
    total_size: Option<u64>,
    /// `GuaranteedBaseOffsetAlignment` (0: unknown).
    alignment: u32,
    flags: TensorFlags,
    /// Dimensions read backwards (bit `d`): element `c` lives where `c` with `cᵈ` mirrored (`sizesᵈ − 1 − cᵈ`)
    /// would — NumPy's negative strides, over the same elements.
    reversed: u8,
}

fn check_shape(sizes: &[u32], strides: Option<&[u32]>) -> Result<(), Error> {
    if sizes.is_empty() || sizes.len() > MAX_RANK {
        return Err(Error::InvalidRank { rank: sizes.len() });
    }
    if let Some(s) = strides
        && s.len() != sizes.len()
    {
        return Err(Error::StrideCount { sizes: sizes.len(), strides: s.len() });
    }
    if let Some(dim) = sizes.iter().position(|&n| n == 0) {
        return Err(Error::ZeroSize { dim });
    }
    Ok(())
}

/// Bytes from the buffer start through the last byte of the last element: `(Σ (sizesᵢ − 1)·stridesᵢ + 1) · size`,
/// or `Π sizes · size` when packed. Checked in 64 bits; `None` on overflow.
fn addressed_bytes(data_type: DataType, sizes: &[u32], strides: Option<&[u32]>) -> Option<u64> {
    let elements = match strides {
        None => sizes.iter().try_fold(1u64, |acc, &n| acc.checked_mul(u64::from(n)))?,
        Some(strides) => sizes
            .iter()
            .zip(strides)
            .try_fold(0u64, |acc, (&n, &s)| acc.checked_add(u64::from(n.checked_sub(1)?).checked_mul(u64::from(s))?))?
            .checked_add(1)?,
    };
    elements.checked_mul(data_type.size_in_bytes() as u64)
}

fn overflow(data_type: DataType, sizes: &[u32], strides: Option<&[u32]>) -> Error {
    let strides = match strides {
        Some(s) => s.iter().map(|&s| u64::from(s)).collect(),
        None => {
            // Packed strides in u64, saturating (only used to describe the error).
            let mut out = vec![0u64; sizes.len()];
            let mut acc = 1u64;
            for (o, &n) in out.iter_mut().zip(sizes).rev() {
                *o = acc;
                acc = acc.saturating_mul(u64::from(n));
            }
            out
        }
    };
    Error::SizeOverflow { data_type, sizes: sizes.to_vec(), strides }
}

/// The minimum buffer size in bytes of a tensor: DirectML's `DMLCalcBufferTensorSize`, computed in checked 64-bit
/// arithmetic.
///
/// Packed (`strides == None`): `Π sizes · elementSize`; strided: `(Σ (sizesᵢ − 1)·stridesᵢ + 1) · elementSize`; then
/// rounded up to a multiple of 4.
///
/// # Errors
///
/// [`Error::InvalidRank`], [`Error::StrideCount`], [`Error::ZeroSize`] for malformed shapes and
/// [`Error::SizeOverflow`] when the size does not fit in 64 bits.
///
/// # Examples
///
/// ```
/// use strider::{calc_buffer_tensor_size, DataType};
/// // Broadcast: a 2×3 view of 3 elements.
/// assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[2, 3], Some(&[0, 1]))?, 4); // 3 bytes, rounded up to 4
/// assert_eq!(calc_buffer_tensor_size(DataType::Float16, &[1, 1, 3, 5], None)?, 32);
/// # Ok::<(), strider::Error>(())
/// ```
pub fn calc_buffer_tensor_size(data_type: DataType, sizes: &[u32], strides: Option<&[u32]>) -> Result<u64, Error> {
    check_shape(sizes, strides)?;
    let bytes = addressed_bytes(data_type, sizes, strides).ok_or_else(|| overflow(data_type, sizes, strides))?;
    round_up_4(bytes).ok_or_else(|| overflow(data_type, sizes, strides))
}

fn round_up_4(bytes: u64) -> Option<u64> {
    Some(bytes.checked_add(3)? & !3)
}

impl TensorDesc {
    /// A packed (row-major) tensor.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRank`] unless 1 to 8 sizes are given, [`Error::ZeroSize`] for a size of 0,
    /// [`Error::PackedStrideOverflow`] when a packed stride does not fit in `u32`, and [`Error::SizeOverflow`]
    /// when the tensor addresses more bytes than the address space holds.
    pub fn new(data_type: DataType, sizes: &[u32]) -> Result<TensorDesc, Error> {
        Self::build(data_type, sizes, None)
    }

    /// A tensor with explicit strides (in elements).
    ///
    /// # Errors
    ///
    /// As [`TensorDesc::new`], and [`Error::StrideCount`] when `strides` does not have one entry per size.
    pub fn with_strides(data_type: DataType, sizes: &[u32], strides: &[u32]) -> Result<TensorDesc, Error> {
        Self::build(data_type, sizes, Some(strides))
    }

    fn build(data_type: DataType, sizes: &[u32], strides: Option<&[u32]>) -> Result<TensorDesc, Error> {
        check_shape(sizes, strides)?;
        let rank = sizes.len();
        let mut desc = TensorDesc {
            data_type,
            rank: rank as u8,
            sizes: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            explicit: strides.is_some(),
            addressed: 0,
            min_size: 0,
            total_size: None,
            alignment: 0,
            flags: TensorFlags::NONE,
            reversed: 0,
        };
        desc.sizes[..rank].copy_from_slice(sizes);
        match strides {
            Some(s) => desc.strides[..rank].copy_from_slice(s),
            None => {
                let mut acc = 1u64;
                for dim in (0..rank).rev() {
                    desc.strides[dim] = u32::try_from(acc).map_err(|_| Error::PackedStrideOverflow {
                        dim,
                        sizes: sizes.to_vec(),
                        stride: acc,
                    })?;
                    // sizes ≤ u32::MAX and acc ≤ u32::MAX here, so the product fits in u64.
                    acc = acc.saturating_mul(u64::from(sizes[dim]));
                }
            }
        }
        let err = || overflow(data_type, sizes, strides);
        desc.addressed = addressed_bytes(data_type, sizes, strides).ok_or_else(err)?;
        // No buffer can be larger than isize::MAX bytes, and kernels compute byte offsets in isize.
        if desc.addressed > isize::MAX as u64 {
            return Err(err());
        }
        desc.min_size = round_up_4(desc.addressed).ok_or_else(err)?;
        Ok(desc)
    }

    /// A packed tensor whose dimensions are laid out in memory in `order` (outermost first): `order` lists every
    /// dimension once; the last one listed is contiguous. Sizes stay in logical order.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidPermutation`] unless `order` is a permutation of `0..sizes.len()`; otherwise as
    /// [`TensorDesc::with_strides`], and [`Error::PackedStrideOverflow`] when a stride does not fit in `u32`.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, TensorDesc};
    /// // sizes {N, C, H, W} stored as N, H, W, C: packed NHWC
    /// let t = TensorDesc::permuted(DataType::Float32, &[1, 1, 3, 5], &[0, 2, 3, 1])?;
    /// assert_eq!(t.strides(), &[15, 1, 5, 1]);
    /// assert!(t.is_packed());
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn permuted(data_type: DataType, sizes: &[u32], order: &[usize]) -> Result<TensorDesc, Error> {
        check_shape(sizes, None)?;
        let rank = sizes.len();
        let mut seen = [false; MAX_RANK];
        if order.len() != rank || order.iter().any(|&d| d >= rank || std::mem::replace(&mut seen[d], true)) {
            return Err(Error::InvalidPermutation { order: order.to_vec(), rank });
        }
        let mut strides = vec![0u32; rank];
        let mut acc = 1u64;
        for &dim in order.iter().rev() {
            strides[dim] = u32::try_from(acc).map_err(|_| Error::PackedStrideOverflow {
                dim,
                sizes: sizes.to_vec(),
                stride: acc,
            })?;
            acc = acc.saturating_mul(u64::from(sizes[dim])); // both ≤ u32::MAX: fits
        }
        Self::with_strides(data_type, sizes, &strides)
    }

    /// Packed NCHW of sizes `{N, C, H, W}` (implicit strides).
    ///
    /// # Errors
    ///
    /// As [`TensorDesc::new`].
    pub fn nchw(data_type: DataType, sizes: [u32; 4]) -> Result<TensorDesc, Error> {
        Self::new(data_type, &sizes)
    }

    /// Packed NHWC under NCHW-ordered sizes `{N, C, H, W}`: strides `{H·W·C, 1, W·C, C}`.
    ///
    /// # Errors
    ///
    /// As [`TensorDesc::permuted`].
    pub fn nhwc(data_type: DataType, sizes: [u32; 4]) -> Result<TensorDesc, Error> {
        Self::permuted(data_type, &sizes, &[0, 2, 3, 1])
    }

    /// Packed NCDHW of sizes `{N, C, D, H, W}` (implicit strides).
    ///
    /// # Errors
    ///
    /// As [`TensorDesc::new`].
    pub fn ncdhw(data_type: DataType, sizes: [u32; 5]) -> Result<TensorDesc, Error> {
        Self::new(data_type, &sizes)
    }

    /// Packed NDHWC under NCDHW-ordered sizes `{N, C, D, H, W}`: strides `{D·H·W·C, 1, H·W·C, W·C, C}`.
    ///
    /// # Errors
    ///
    /// As [`TensorDesc::permuted`].
    pub fn ndhwc(data_type: DataType, sizes: [u32; 5]) -> Result<TensorDesc, Error> {
        Self::permuted(data_type, &sizes, &[0, 2, 3, 4, 1])
    }

    /// A column-major (`WH`) 2-D tensor of sizes `{rows, columns}`: strides `{1, rows}`.
    ///
    /// # Errors
    ///
    /// As [`TensorDesc::permuted`].
    pub fn column_major(data_type: DataType, sizes: [u32; 2]) -> Result<TensorDesc, Error> {
        Self::permuted(data_type, &sizes, &[1, 0])
    }

    /// The same tensor with leading dimensions of size 1 added up to `rank` dimensions, as DirectML operators that
    /// need 4-D or 5-D tensors expect (an `HW` tensor becomes `{1, 1, H, W}`). A packed tensor stays implicitly
    /// packed; explicit strides get leading strides spanning the whole tensor.
    ///
    /// # Errors
    ///
    /// [`Error::RankPromotion`] when `rank` is below the current rank; [`Error::InvalidRank`] above 8.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, TensorDesc};
    /// let hw = TensorDesc::new(DataType::Float16, &[3, 5])?.promote(4)?;
    /// assert_eq!((hw.sizes(), hw.strides()), (&[1, 1, 3, 5][..], &[15, 15, 5, 1][..]));
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn promote(&self, rank: usize) -> Result<TensorDesc, Error> {
        if rank < self.rank() {
            return Err(Error::RankPromotion { rank: self.rank(), target: rank });
        }
        if rank > MAX_RANK {
            return Err(Error::InvalidRank { rank });
        }
        let lead = rank.saturating_sub(self.rank()); // rank ≥ self.rank() checked above
        let mut sizes = vec![1u32; lead];
        sizes.extend_from_slice(self.sizes());
        let keep = |mut t: TensorDesc| {
            // Leading 1s address the same bytes: the buffer's description carries over, and the reversed
            // dimensions move with theirs (lead < 8: a shift within u16).
            (t.total_size, t.alignment, t.flags) = (self.total_size, self.alignment, self.flags);
            t.reversed = (u16::from(self.reversed).checked_shl(lead as u32).unwrap_or(0) & 0xFF) as u8;
            t
        };
        if !self.explicit {
            return Self::new(self.data_type, &sizes).map(keep);
        }
        // A size-1 dimension's stride is never multiplied by a non-zero coordinate; give it the span of the
        // tensor (what packed strides would be) when that fits, else 0.
        let span = u64::from(self.strides()[0]).saturating_mul(u64::from(self.sizes()[0])); // u32 × u32 fits
        let mut strides = vec![u32::try_from(span).unwrap_or(0); lead];
        strides.extend_from_slice(self.strides());
        Self::with_strides(self.data_type, &sizes, &strides).map(keep)
    }

    /// Whether the tensor is *packed* in the spec's sense: its elements fill exactly the bytes it addresses, each at
    /// its own offset (any dimension order: packed NHWC is packed; padding, broadcasting and overlap are not).
    pub fn is_packed(&self) -> bool {
        let width = self.data_type.size_in_bytes() as u64;
        if self.element_count().checked_mul(width) != Some(self.addressed) {
            return false;
        }
        let sizes: Vec<u64> = self.sizes().iter().map(|&n| u64::from(n)).collect();
        let strides: Vec<i64> = self.strides().iter().map(|&s| i64::from(s)).collect();
        strider_kernels::find_overlap(&sizes, &strides) == strider_kernels::Overlap::Disjoint
    }

    /// Whether the strides are the packed row-major ones (dimensions of size 1 may have any stride).
    pub fn is_row_major_packed(&self) -> bool {
        let mut acc = 1u64;
        for (&n, &s) in self.sizes().iter().zip(self.strides()).rev() {
            if n != 1 && u64::from(s) != acc {
                return false;
            }
            acc = acc.saturating_mul(u64::from(n));
        }
        true
    }

    /// The dimensions that broadcast: stride 0 over more than one element.
    pub fn broadcast_dims(&self) -> Vec<usize> {
        (0..self.rank()).filter(|&d| self.strides()[d] == 0 && self.sizes()[d] > 1).collect()
    }

    /// Whether any dimension broadcasts.
    pub fn is_broadcast(&self) -> bool {
        !self.broadcast_dims().is_empty()
    }

    /// The distance in bytes between consecutive rows (the stride of the second-to-last dimension): the row pitch
    /// of a padded image. `None` for 1-D tensors.
    pub fn row_pitch_bytes(&self) -> Option<u64> {
        let r = self.rank();
        (r >= 2).then(|| {
            u64::from(self.strides()[r.saturating_sub(2)]).saturating_mul(self.data_type.size_in_bytes() as u64)
        })
    }

    /// The element data type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The number of dimensions (`DimensionCount`).
    pub fn rank(&self) -> usize {
        usize::from(self.rank)
    }

    /// The sizes, outermost first.
    pub fn sizes(&self) -> &[u32] {
        &self.sizes[..self.rank()]
    }

    /// The strides in elements: the explicit ones, or the packed row-major strides when none were given.
    pub fn strides(&self) -> &[u32] {
        &self.strides[..self.rank()]
    }

    /// The strides as given at construction (`None` for a packed tensor built by [`TensorDesc::new`]).
    pub fn explicit_strides(&self) -> Option<&[u32]> {
        self.explicit.then(|| self.strides())
    }

    /// The number of logical elements, `Π sizes`.
    pub fn element_count(&self) -> u64 {
        // ≤ 2^256 in principle, but every tensor that validated addresses ≤ isize::MAX bytes *or* broadcasts;
        // saturate rather than overflow for broadcast views of astronomically many elements.
        self.sizes().iter().fold(1u64, |acc, &n| acc.saturating_mul(u64::from(n)))
    }

    /// `DMLCalcBufferTensorSize`: the bytes from the buffer start through the last element, rounded up to a
    /// multiple of 4.
    pub fn min_buffer_size_in_bytes(&self) -> u64 {
        self.min_size
    }

    /// The bytes the tensor addresses (through the last byte of its last element, not rounded): the least buffer
    /// length `execute` accepts for it when no total size was set.
    pub fn addressed_bytes(&self) -> u64 {
        self.addressed
    }

    /// The same tensor with `TotalTensorSizeInBytes` set: the size of the buffer the caller provides, at least
    /// [`TensorDesc::min_buffer_size_in_bytes`]. `execute` then requires buffers of at least this size.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTotalTensorSize`] for 0 or a size below the minimum.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, TensorDesc};
    /// let t = TensorDesc::new(DataType::Uint8, &[3])?;
    /// assert_eq!(t.total_tensor_size_in_bytes(), 4); // DMLCalcBufferTensorSize when not set
    /// assert_eq!(t.clone().with_total_tensor_size_in_bytes(64)?.total_tensor_size_in_bytes(), 64);
    /// assert!(t.with_total_tensor_size_in_bytes(3).is_err());
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn with_total_tensor_size_in_bytes(mut self, bytes: u64) -> Result<TensorDesc, Error> {
        if bytes == 0 || bytes < self.min_size {
            return Err(Error::InvalidTotalTensorSize { given: bytes, minimum: self.min_size });
        }
        self.total_size = Some(bytes);
        Ok(self)
    }

    /// The same tensor with `GuaranteedBaseOffsetAlignment` set: 0 (unknown) or a power of two at least the
    /// element size. `execute` checks that the buffer's address honours it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidAlignment`] for another value.
    pub fn with_guaranteed_base_offset_alignment(mut self, alignment: u32) -> Result<TensorDesc, Error> {
        let size = self.data_type.size_in_bytes();
        if alignment != 0 && (!alignment.is_power_of_two() || (alignment as usize) < size) {
            return Err(Error::InvalidAlignment { alignment, element_size: size });
        }
        self.alignment = alignment;
        Ok(self)
    }

    /// The same tensor with `flags`.
    pub fn with_flags(mut self, flags: TensorFlags) -> TensorDesc {
        self.flags = flags;
        self
    }

    /// `TotalTensorSizeInBytes`: the value set by [`TensorDesc::with_total_tensor_size_in_bytes`], or else
    /// [`TensorDesc::min_buffer_size_in_bytes`] (`DMLCalcBufferTensorSize`).
    pub fn total_tensor_size_in_bytes(&self) -> u64 {
        self.total_size.unwrap_or(self.min_size)
    }

    /// Whether `TotalTensorSizeInBytes` was set explicitly.
    pub fn has_total_tensor_size(&self) -> bool {
        self.total_size.is_some()
    }

    /// `GuaranteedBaseOffsetAlignment` (0: unknown).
    pub fn guaranteed_base_offset_alignment(&self) -> u32 {
        self.alignment
    }

    /// `Flags`.
    pub fn flags(&self) -> TensorFlags {
        self.flags
    }

    /// The least buffer length `execute` accepts: the total size when it was set, the addressed bytes otherwise.
    pub fn required_buffer_bytes(&self) -> u64 {
        self.total_size.unwrap_or(self.addressed)
    }

    /// The same elements with the dimensions `dims` read backwards: element `c` is the one the tensor without them
    /// holds at `c` with each of those coordinates mirrored (`sizes − 1 − c`) — NumPy's negative strides (a view
    /// `x[:, ::-1]`), which DirectML's unsigned strides cannot express. Every operator reads and writes such
    /// tensors in their logical order; the buffer and its required size are unchanged.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionOutOfRange`] for a dimension the tensor does not have.
    ///
    /// # Examples
    ///
    /// ```
    /// use strider::{DataType, Identity, TensorDesc};
    /// let t = TensorDesc::new(DataType::Uint8, &[2, 3])?;
    /// let mirrored = t.clone().with_reversed_dims(&[1])?; // each row read right to left
    /// let mut y = [0u8; 6];
    /// Identity::new(&mirrored, &t)?.execute(&[1, 2, 3, 4, 5, 6], &mut y)?;
    /// assert_eq!(y, [3, 2, 1, 6, 5, 4]);
    /// # Ok::<(), strider::Error>(())
    /// ```
    pub fn with_reversed_dims(mut self, dims: &[usize]) -> Result<TensorDesc, Error> {
        for &dim in dims {
            if dim >= self.rank() {
                return Err(Error::DimensionOutOfRange { argument: "reversed dimension", dim, rank: self.rank() });
            }
            self.reversed |= 1 << dim;
        }
        Ok(self)
    }

    /// The dimensions read backwards ([`TensorDesc::with_reversed_dims`]), in increasing order.
    pub fn reversed_dims(&self) -> Vec<usize> {
        (0..self.rank()).filter(|&d| self.is_reversed(d)).collect()
    }

    /// Whether dimension `dim` is read backwards.
    pub fn is_reversed(&self, dim: usize) -> bool {
        dim < MAX_RANK && self.reversed & (1 << dim) != 0
    }

    /// The element step of each dimension: the stride, negated where the dimension is reversed.
    pub(crate) fn signed_strides(&self) -> Vec<i64> {
        let s = self.strides().iter().map(|&s| i64::from(s));
        s.enumerate().map(|(d, s)| if self.is_reversed(d) { s.wrapping_neg() } else { s }).collect()
    }

    /// The element offset of coordinate `c` in checked arithmetic (reversed dimensions counted from their far end).
    pub(crate) fn offset_of(&self, c: &[u32]) -> Option<u64> {
        let mut offset = 0u64;
        for (d, ((&x, &n), &s)) in c.iter().zip(self.sizes()).zip(self.strides()).enumerate() {
            let x = if self.is_reversed(d) { n.checked_sub(1)?.checked_sub(x)? } else { x };
            offset = offset.checked_add(u64::from(x).checked_mul(u64::from(s))?)?;
        }
        Some(offset)
    }

    /// The element offset of coordinate 0.
    pub(crate) fn origin(&self) -> u64 {
        // Within the addressed extent, which was computed in checked arithmetic.
        self.offset_of(&vec![0; self.rank()]).unwrap_or(0)
    }
}

impl PartialEq for TensorDesc {
    /// Two descriptions are equal when they describe the same layout: a packed tensor equals the same sizes with
    /// explicit packed strides. Total size, alignment and flags describe the buffer, not the layout, and are not
    /// compared.
    fn eq(&self, other: &Self) -> bool {
        self.data_type == other.data_type
            && self.sizes() == other.sizes()
            && self.strides() == other.strides()
            && self.reversed == other.reversed
    }
}

impl Eq for TensorDesc {}

impl core::hash::Hash for TensorDesc {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.data_type, self.sizes(), self.strides(), self.reversed).hash(state);
    }
}

impl fmt::Debug for TensorDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorDesc")
            .field("data_type", &self.data_type)
            .field("sizes", &self.sizes())
            .field("strides", &self.strides())
            .field("explicit_strides", &self.explicit)
            .field("total_tensor_size_in_bytes", &self.total_size)
            .field("guaranteed_base_offset_alignment", &self.alignment)
            .field("flags", &self.flags)
            .field("reversed_dims", &self.reversed_dims())
            .finish()
    }
}

impl fmt::Display for TensorDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} sizes {:?} strides {:?}", self.data_type, self.sizes(), self.strides())?;
        if !self.explicit {
            f.write_str(" (packed)")?;
        }
        if self.reversed != 0 {
            write!(f, " reversed {:?}", self.reversed_dims())?;
        }
        Ok(())
    }
}
