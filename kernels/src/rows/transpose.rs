//! 2-D transposes: the row (`J`, contiguous in the input) and the folded dimension (`I`, contiguous in the
//! output), through 8×8 register tiles in cache-blocked sweeps.

use pulp::NullaryFnOnce;

use super::{Body, Rows, Runner};
use crate::arch::Arch;
use crate::strategy::TileWidth;

/// Transposes a block: `ni` input rows `si` bytes apart, each with `nj` contiguous `N`-byte elements, into `nj`
/// output rows `dj` bytes apart, each with `ni` contiguous elements. Edges element by element.
///
/// # Safety
///
/// Every element (i, j) of the block is readable at `src + i·si + j·N` and writable at `dst + i·N + j·dj`, the
/// output elements distinct and not overlapping the input.
#[inline(always)]
pub(crate) unsafe fn transpose_block<A: Arch, const N: usize>(
    a: A,
    src: *const u8,
    si: isize,
    dst: *mut u8,
    dj: isize,
    ni: usize,
    nj: usize,
) {
    let w = N as isize;
    let at = |i: usize, j: usize| {
        (src.wrapping_offset(i as isize * si + j as isize * w), dst.wrapping_offset(i as isize * w + j as isize * dj))
    };
    let copy = |i: usize, j: usize| {
        let (s, d) = at(i, j);
        // SAFETY: element (i, j) of the block, in bounds by the contract.
        unsafe { d.cast::<[u8; N]>().write_unaligned(s.cast::<[u8; N]>().read_unaligned()) }
    };
    let critical = |stride: isize| stride.unsigned_abs().is_multiple_of(crate::params::TRANSPOSE_CRITICAL_STRIDE);
    // (Input rows a critical stride apart are fine: the sweep reads 8 of them at a time.)
    let full = nj / 8 * 8;
    let ni8 = ni / 8 * 8;
    if critical(dj) {
        // PERF: output rows a critical stride apart share a few L1 sets, and the sweep below leaves hundreds of
        // half-written lines of them between its 8-row passes. Square blocks keep the lines a block touches few
        // enough to stay cached: within a block, 8 output rows at a time are written along i, reading 8 columns of
        // every input row of the block.
        let b = crate::params::TRANSPOSE_BLOCK;
        let mut jb = 0;
        while jb < full {
            let je = (jb + b).min(full);
            let mut ib = 0;
            while ib < ni8 {
                let ie = (ib + b).min(ni8);
                let mut j = jb;
                while j < je {
                    let mut i = ib;
                    while i < ie {
                        let (s, d) = at(i, j);
                        // SAFETY: rows i..i+8, columns j..j+8 are elements of the block (i + 8 ≤ ni8 ≤ ni,
                        // j + 8 ≤ full ≤ nj).
                        unsafe { a.tile8::<N>(s, si, d, dj) };
                        i += 8;
                    }
                    j += 8;
                }
                ib = ie;
            }
            for ii in ni8..ni {
                for jj in jb..je {
                    copy(ii, jj);
                }
            }
            jb = je;
        }
    } else {
        // PERF: two-level blocking. A super-block of columns is sized so that all its output rows (columns × ni
        // elements) stay in L2; inside it, 8 input rows at a time are swept across all its columns, so only 8
        // input streams are live (sweeping all ni rows per column block kept 64 streams live for a 64-channel
        // NCHW → NHWC, more than the prefetchers follow), and the output lines, completed over the successive
        // 8-row passes, are still in L2 when the next pass returns to them.
        let sj = ((crate::params::TRANSPOSE_L2_BYTES / (ni * N).max(1)) / 8 * 8).max(8);
        let mut j0 = 0;
        while j0 < full {
            let j1 = (j0 + sj).min(full);
            let mut i = 0;
            while i + 8 <= ni {
                let mut j = j0;
                while j < j1 {
                    let (s, d) = at(i, j);
                    // SAFETY: rows i..i+8, columns j..j+8 are elements of the block (i + 8 ≤ ni, j + 8 ≤ full ≤ nj).
                    unsafe { a.tile8::<N>(s, si, d, dj) };
                    j += 8;
                }
                i += 8;
            }
            for ii in i..ni {
                for jj in j0..j1 {
                    copy(ii, jj);
                }
            }
            j0 = j1;
        }
    }
    for jj in full..nj {
        for ii in 0..ni {
            copy(ii, jj);
        }
    }
}

/// The transposing row kernel: a row is a block of `ni` × `len`.
#[derive(Clone, Copy)]
pub(crate) struct TransposeBody<A, const N: usize> {
    a: A,
    ni: usize,
    si: isize,
    dj: isize,
    len: usize,
}

impl<A: Arch, const N: usize> Body for TransposeBody<A, N> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        // SAFETY: the row's block is in bounds (Rows contract).
        unsafe { transpose_block::<A, N>(self.a, src, self.si, dst, self.dj, self.ni, len) }
    }
}

/// Builds the transposing row kernel of tile width `tile`.
pub(super) fn build<A: Arch>(
    a: A,
    tile: TileWidth,
    ni: usize,
    si: isize,
    dj: isize,
    len: usize,
    f: &mut dyn FnMut(&dyn Rows),
) {
    match tile {
        TileWidth::W1 => f(&Runner(TransposeBody::<A, 1> { a, ni, si, dj, len })),
        TileWidth::W2 => f(&Runner(TransposeBody::<A, 2> { a, ni, si, dj, len })),
        TileWidth::W4 => f(&Runner(TransposeBody::<A, 4> { a, ni, si, dj, len })),
        TileWidth::W8 => f(&Runner(TransposeBody::<A, 8> { a, ni, si, dj, len })),
        TileWidth::W16 => f(&Runner(TransposeBody::<A, 16> { a, ni, si, dj, len })),
    }
}

/// A transpose of one block compiled for a level: `(src, si, dst, dj, ni, nj)` as [`transpose_block`].
pub(crate) type BlockFn = unsafe fn(*const u8, isize, *mut u8, isize, usize, usize);

/// The [`BlockFn`] of tile width `tile` at level `A`.
pub(crate) fn block_fn<A: Arch>(tile: TileWidth) -> BlockFn {
    struct Job<A, const N: usize>(A, *const u8, isize, *mut u8, isize, usize, usize);
    impl<A: Arch, const N: usize> NullaryFnOnce for Job<A, N> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(a, src, si, dst, dj, ni, nj) = self;
            // SAFETY: forwarded from the BlockFn contract.
            unsafe { transpose_block::<A, N>(a, src, si, dst, dj, ni, nj) }
        }
    }
    /// # Safety
    ///
    /// As [`transpose_block`], on a CPU running level `A`.
    unsafe fn entry<A: Arch, const N: usize>(src: *const u8, si: isize, dst: *mut u8, dj: isize, ni: usize, nj: usize) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job::<A, N>(a, src, si, dst, dj, ni, nj))
    }
    match tile {
        TileWidth::W1 => entry::<A, 1>,
        TileWidth::W2 => entry::<A, 2>,
        TileWidth::W4 => entry::<A, 4>,
        TileWidth::W8 => entry::<A, 8>,
        TileWidth::W16 => entry::<A, 16>,
    }
}
