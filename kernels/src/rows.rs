//! Row kernels and their selection. A chunk of a walk runs entirely inside one `pulp` dispatch: the kind and width
//! are matched once per chunk and the chosen row kernel inlines into the generated nest.

use core::ptr;

use pulp::Simd;

use crate::exec::Chunk;
use crate::nest::Row;
use crate::plan::RowKind;
use crate::width::WidthVisitor;

/// Both operands contiguous: one `memcpy` per row.
#[derive(Clone, Copy)]
pub(crate) struct CopyRow {
    pub(crate) bytes: usize,
    pub(crate) width: usize,
}

impl Row for CopyRow {
    #[inline(always)]
    unsafe fn row(&self, src: *const u8, dst: *mut u8) {
        // SAFETY: the row's `bytes` bytes are in bounds in both operands (Row contract) and the operands are
        // distinct buffers.
        unsafe { ptr::copy_nonoverlapping(src, dst, self.bytes) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        CopyRow { bytes: len * self.width, ..self }
    }
}

/// Any strides: one unaligned `N`-byte load and store per element.
#[derive(Clone, Copy)]
pub(crate) struct StridedRow<const N: usize> {
    pub(crate) len: usize,
    pub(crate) in_stride: isize,
    pub(crate) out_stride: isize,
}

impl<const N: usize> Row for StridedRow<N> {
    #[inline(always)]
    unsafe fn row(&self, src: *const u8, dst: *mut u8) {
        let (mut s, mut d) = (src, dst);
        for _ in 0..self.len {
            // SAFETY: element i of the row lies at src + i·in_stride / dst + i·out_stride, in bounds by the Row
            // contract; unaligned accesses need no alignment.
            unsafe { d.cast::<[u8; N]>().write_unaligned(s.cast::<[u8; N]>().read_unaligned()) };
            s = s.wrapping_offset(self.in_stride);
            d = d.wrapping_offset(self.out_stride);
        }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        StridedRow { len, ..self }
    }
}

struct Strided<'a> {
    chunk: Chunk<'a>,
}

impl WidthVisitor for Strided<'_> {
    type Output = ();

    #[inline(always)]
    fn visit<const N: usize>(self) {
        let w = self.chunk.walk;
        self.chunk.drive(StridedRow::<N> { len: w.row_len, in_stride: w.row_in_stride, out_stride: w.row_out_stride })
    }
}

/// Runs one chunk with the row kernel of the walk's kind and width, compiled for `S`.
#[inline(always)]
pub(crate) fn run_chunk<S: Simd>(_simd: S, chunk: Chunk<'_>) {
    let w = chunk.walk;
    match w.kind {
        RowKind::Copy => chunk.drive(CopyRow { bytes: w.row_len * w.width.bytes(), width: w.width.bytes() }),
        _ => w.width.visit(Strided { chunk }),
    }
}
