//! `DML_SLICE1`'s window: its validation against the tensors, and the input steps it gives each output dimension.
//! Shared by [`Slice1`](crate::Slice1) and [`Normalize`](crate::Normalize).

use crate::Error;
use crate::desc::{MAX_RANK, TensorDesc};

/// A window validated against its input and output: per dimension, an offset, a size and a non-zero stride.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    rank: usize,
    offsets: [u32; MAX_RANK],
    sizes: [u32; MAX_RANK],
    strides: [i32; MAX_RANK],
    /// Input element step of each output dimension (window stride × input stride).
    in_strides: [i64; MAX_RANK],
    /// Input element offset of output coordinate 0.
    in_base: u64,
}

impl Window {
    /// Validates a window; the caller has checked that the three arrays have the tensors' rank.
    ///
    /// Each dimension's window must be non-empty, inside the input, with a non-zero stride, and the output size at
    /// most `1 + (size − 1) / |stride|`, so that every element read lies inside the window.
    pub(crate) fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        offsets: &[u32],
        sizes: &[u32],
        strides: &[i32],
    ) -> Result<Window, Error> {
        let rank = input.rank();
        let mut w = Window {
            rank,
            offsets: [0; MAX_RANK],
            sizes: [0; MAX_RANK],
            strides: [0; MAX_RANK],
            in_strides: [0; MAX_RANK],
            in_base: 0,
        };
        let steps = input.signed_strides();
        let mut start_coord = vec![0u32; rank];
        for dim in 0..rank {
            let (offset, size, stride) = (offsets[dim], sizes[dim], strides[dim]);
            let input_size = input.sizes()[dim];
            if size == 0 {
                return Err(Error::EmptyWindow { dim });
            }
            let end = u64::from(offset).saturating_add(u64::from(size)); // u32 + u32 fits
            if end > u64::from(input_size) {
                return Err(Error::WindowOutOfBounds { dim, offset, size, end, input_size });
            }
            if stride == 0 {
                return Err(Error::ZeroWindowStride { dim });
            }
            // size ≥ 1 and stride ≠ 0 here
            let max = u64::from(size.saturating_sub(1)).checked_div(u64::from(stride.unsigned_abs())).unwrap_or(0);
            let max = max.saturating_add(1);
            let output_size = output.sizes()[dim];
            if u64::from(output_size) > max {
                return Err(Error::OutputSizeOutOfRange {
                    dim,
                    output_size,
                    max,
                    window_size: size,
                    window_stride: i64::from(stride),
                });
            }
            // The first element read; every later one stays inside the window because output_size ≤ max.
            let start = if stride < 0 { end.saturating_sub(1) } else { u64::from(offset) };
            start_coord[dim] = start as u32; // below the input's size
            // An i32 times a (signed) u32 fits i64.
            w.in_strides[dim] = i64::from(stride).saturating_mul(steps[dim]);
        }
        // The first element read: inside the input, so its offset fits.
        w.in_base = input.offset_of(&start_coord).unwrap_or(0);
        w.offsets[..rank].copy_from_slice(offsets);
        w.sizes[..rank].copy_from_slice(sizes);
        w.strides[..rank].copy_from_slice(strides);
        Ok(w)
    }

    /// Input element step of each output dimension.
    pub(crate) fn in_strides(&self) -> &[i64] {
        &self.in_strides[..self.rank]
    }

    /// Input element offset of output coordinate 0.
    pub(crate) fn in_base(&self) -> u64 {
        self.in_base
    }

    pub(crate) fn offsets(&self) -> &[u32] {
        &self.offsets[..self.rank]
    }

    pub(crate) fn sizes(&self) -> &[u32] {
        &self.sizes[..self.rank]
    }

    pub(crate) fn strides(&self) -> &[i32] {
        &self.strides[..self.rank]
    }

    /// The spec's formula, for the reference executions: the input element offset of output coordinate `c`,
    /// `Σ (startᵢ + window_stridesᵢ·cᵢ)·input_stridesᵢ` with `startᵢ` the window's first or last index.
    pub(crate) fn reference_offset(&self, input: &TensorDesc, c: &[u32]) -> i64 {
        // The input coordinate: inside the input for every output coordinate (validation); i64 keeps the steps exact.
        let coord: Option<Vec<u32>> = (0..self.rank)
            .map(|i| {
                let s = i64::from(self.strides[i]);
                let last = i64::from(self.sizes[i]).saturating_sub(1);
                let start = i64::from(self.offsets[i]).saturating_add(if s < 0 { last } else { 0 });
                u32::try_from(start.saturating_add(s.saturating_mul(i64::from(c[i])))).ok()
            })
            .collect();
        coord.and_then(|x| input.offset_of(&x)).and_then(|o| i64::try_from(o).ok()).unwrap_or(-1)
    }
}
