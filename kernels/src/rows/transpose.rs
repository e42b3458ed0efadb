//! 2-D transposes: the row (`J`, contiguous in the input) and the folded dimension (`I`, contiguous in the
//! output), through square register tiles (8×8, or 16×16 where a tile row fills a line) in cache-blocked sweeps.

use pulp::NullaryFnOnce;

use super::{Body, Rows, Runner};
use crate::arch::Arch;
use crate::strategy::TileWidth;

/// Transposes a block: `ni` input rows `si` bytes apart, each with `nj` contiguous `N`-byte elements, into `nj`
/// output rows `dj` bytes apart, each with `ni` contiguous elements. Edges through partial register tiles where
/// the level has them, else element by element.
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
    let t = tile_for::<A, N>(ni, si, dj);
    let wide = t > 8;
    let critical = |stride: isize| stride.unsigned_abs().is_multiple_of(crate::params::TRANSPOSE_CRITICAL_STRIDE);
    // (Input rows a critical stride apart are fine: the sweep reads t of them at a time.)
    let full = nj / t * t;
    let nit = ni / t * t;
    if critical(dj) {
        // PERF: output rows a critical stride apart share a few L1 sets, and the sweep below leaves hundreds of
        // partly written lines of them between its passes. Square blocks keep the lines a block touches few
        // enough to stay cached: within a block, t output rows at a time are written along i, reading t columns of
        // every input row of the block.
        let b = crate::params::TRANSPOSE_BLOCK;
        let mut jb = 0;
        while jb < full {
            let je = (jb + b).min(full);
            let mut ib = 0;
            while ib < nit {
                let ie = (ib + b).min(nit);
                let mut j = jb;
                while j < je {
                    let mut i = ib;
                    while i < ie {
                        let (s, d) = at(i, j);
                        // SAFETY: rows i..i+t, columns j..j+t are elements of the block (i + t ≤ nit ≤ ni,
                        // j + t ≤ full ≤ nj).
                        unsafe { if wide { a.tile::<N>(s, si, d, dj) } else { a.tile8::<N>(s, si, d, dj) } };
                        i += t;
                    }
                    j += t;
                }
                ib = ie;
            }
            // SAFETY: rows nit..ni, columns jb..je ≤ nj of the block.
            unsafe { rows_from::<A, N>(a, src, si, dst, dj, t, (nit, ni), (jb, je)) };
            jb = je;
        }
    } else {
        // PERF: two-level blocking. A super-block of columns is sized so that all its output rows (columns × ni
        // elements) stay in L2; inside it, t input rows at a time are swept across all its columns, so only t
        // input streams are live (sweeping all ni rows per column block kept 64 streams live for a 64-channel
        // NCHW → NHWC, more than the prefetchers follow), and the output lines, completed over the successive
        // passes, are still in L2 when the next pass returns to them.
        let sj = ((crate::params::TRANSPOSE_L2_BYTES / (ni * N).max(1)) / t * t).max(t);
        let mut j0 = 0;
        while j0 < full {
            let j1 = (j0 + sj).min(full);
            let mut i = 0;
            while i + t <= ni {
                let mut j = j0;
                while j < j1 {
                    let (s, d) = at(i, j);
                    // SAFETY: rows i..i+t, columns j..j+t are elements of the block (i + t ≤ ni, j + t ≤ full ≤ nj).
                    unsafe { if wide { a.tile::<N>(s, si, d, dj) } else { a.tile8::<N>(s, si, d, dj) } };
                    j += t;
                }
                i += t;
            }
            // SAFETY: rows i..ni, columns j0..j1 ≤ nj of the block.
            unsafe { rows_from::<A, N>(a, src, si, dst, dj, t, (i, ni), (j0, j1)) };
            j0 = j1;
        }
    }
    let mut i = 0;
    while full < nj && i < ni {
        let (s, d) = at(i, full);
        // SAFETY: rows i..min(ni, i + t) and columns full..nj are elements of the block.
        unsafe { corner::<A, N>(a, s, si, d, dj, (ni - i).min(t), nj - full) };
        i += t;
    }
}

/// The side of the tiles a block of `ni` input rows `si` bytes apart and output rows `dj` bytes apart goes through:
/// the level's wide tile (16 elements: a tile row is a whole 64-byte line) where every row starts at the same
/// offset in a line, so that no access splits across lines, and the block has that many rows; else 8.
///
/// PERF: 16×16 f32 tiles ran a 128×128 transpose in 1.6 µs against 2.4 µs with 8×8 and a 2048×2048 one in
/// 1.17–1.24 ms against 1.37–1.79 ms, but a 1000×1000 one (rows 4000 bytes apart) slowed from 130 to 180 µs on
/// split loads and stores, and a block of 8–15 rows pays a 16-row shuffle network for half a tile.
#[inline(always)]
pub(crate) fn tile_for<A: Arch, const N: usize>(ni: usize, si: isize, dj: isize) -> usize {
    let side = A::tile_side::<N>();
    let aligned = si.unsigned_abs().is_multiple_of(64) && dj.unsigned_abs().is_multiple_of(64);
    if side > 8 && ni >= side && aligned { side } else { 8 }
}

/// Transposes rows `i0..i1` (fewer than `t`), columns `j0..j1` of the block of [`transpose_block`], `t` columns at
/// a time.
///
/// # Safety
///
/// The rows and columns are in the block, as in [`transpose_block`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn rows_from<A: Arch, const N: usize>(
    a: A,
    src: *const u8,
    si: isize,
    dst: *mut u8,
    dj: isize,
    t: usize,
    (i0, i1): (usize, usize),
    (j0, j1): (usize, usize),
) {
    let mut j = j0;
    while i0 < i1 && j < j1 {
        let s = src.wrapping_offset(i0 as isize * si + (j * N) as isize);
        let d = dst.wrapping_offset((i0 * N) as isize + j as isize * dj);
        // SAFETY: rows i0..i1, columns j..min(j1, j + t) of the block (contract).
        unsafe { corner::<A, N>(a, s, si, d, dj, i1 - i0, (j1 - j).min(t)) };
        j += t;
    }
}

/// Transposes `rows × cols` elements (each at most 16) of a block laid out as in [`transpose_block`]: whole 8×8
/// tiles where they fit, the rest through [`part`].
///
/// # Safety
///
/// The `rows × cols` elements are in bounds of the block, as in [`transpose_block`].
#[inline(always)]
unsafe fn corner<A: Arch, const N: usize>(
    a: A,
    src: *const u8,
    si: isize,
    dst: *mut u8,
    dj: isize,
    rows: usize,
    cols: usize,
) {
    let at = |i: usize, j: usize| {
        (
            src.wrapping_offset(i as isize * si + (j * N) as isize),
            dst.wrapping_offset((i * N) as isize + j as isize * dj),
        )
    };
    let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
    for i in (0..r8).step_by(8) {
        for j in (0..c8).step_by(8) {
            let (s, d) = at(i, j);
            // SAFETY: rows i..i+8 ≤ rows, columns j..j+8 ≤ cols of the corner (contract).
            unsafe { a.tile8::<N>(s, si, d, dj) };
        }
    }
    if c8 < cols {
        let (s, d) = at(0, c8);
        // SAFETY: rows 0..rows, columns c8..cols of the corner.
        unsafe { part::<A, N>(a, s, si, d, dj, rows, cols - c8) };
    }
    if r8 < rows && c8 > 0 {
        let (s, d) = at(r8, 0);
        // SAFETY: rows r8..rows, columns 0..c8 of the corner.
        unsafe { part::<A, N>(a, s, si, d, dj, rows - r8, c8) };
    }
}

/// Transposes `rows × cols` elements (each at most the level's tile side) of a block laid out as in
/// [`transpose_block`]: a partial register tile where the level has one, else one element at a time.
///
/// PERF: this and [`rows_from`] are functions, not closures: a closure the compiler keeps out of line is compiled
/// without the level's target features, and the tile's intrinsics become calls (partial tiles ran 6–25× slower).
///
/// # Safety
///
/// The `rows × cols` elements are in bounds of the block, as in [`transpose_block`].
#[inline(always)]
unsafe fn part<A: Arch, const N: usize>(
    a: A,
    src: *const u8,
    si: isize,
    dst: *mut u8,
    dj: isize,
    rows: usize,
    cols: usize,
) {
    // SAFETY: forwarded contract.
    if unsafe { a.tile_part::<N>(src, si, dst, dj, rows, cols) } {
        return;
    }
    for i in 0..rows as isize {
        for j in 0..cols as isize {
            // SAFETY: element (i, j) of the corner, in bounds by the contract.
            unsafe {
                let v = src.wrapping_offset(i * si + j * N as isize).cast::<[u8; N]>().read_unaligned();
                dst.wrapping_offset(i * N as isize + j * dj).cast::<[u8; N]>().write_unaligned(v);
            }
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::tile_for;
    use crate::arch::{Scalar, V3, V4, V4Vbmi};

    /// Pins which blocks go through 16×16 tiles (a level property: no CPU feature is needed to ask).
    #[test]
    fn wide_tiles_for_line_aligned_blocks_of_four_byte_elements() {
        // The public f32 NCHW → NHWC with 64 channels (64 input rows 256 KiB apart, output rows 256 bytes apart)
        // and the 2048×2048 transpose.
        assert_eq!(tile_for::<V4, 4>(64, 262_144, 256), 16);
        assert_eq!(tile_for::<V4Vbmi, 4>(2048, 8192, 8192), 16);
        assert_eq!(tile_for::<V4, 4>(16, -64, 64), 16);
        // Rows that split lines, too few rows, other widths, levels without 64-byte registers.
        assert_eq!(tile_for::<V4, 4>(1000, 4000, 4000), 8);
        assert_eq!(tile_for::<V4, 4>(64, 262_144, 96), 8);
        assert_eq!(tile_for::<V4, 4>(15, 4096, 4096), 8);
        assert_eq!(tile_for::<V4, 2>(64, 4096, 4096), 8);
        assert_eq!(tile_for::<V4, 8>(64, 4096, 4096), 8);
        assert_eq!(tile_for::<V3, 4>(64, 4096, 4096), 8);
        assert_eq!(tile_for::<Scalar, 4>(64, 4096, 4096), 8);
    }
}
