//! Row kernels and their selection. A chunk of a walk runs entirely inside one level dispatch: the kind and width
//! are matched once per chunk and the chosen row kernel inlines into the generated nest.
//!
//! Every kernel copies the bulk of a row through the level's [`Kern`] (whole registers) and finishes the tail
//! with the scalar element loop, so each row length is correct on every level.

use core::ptr;

use crate::exec::Chunk;
use crate::nest::Row;
use crate::plan::RowKind;
use crate::shuffle::Shuffle;
use crate::simd::{Body, Kern};
use crate::width::WidthVisitor;

/// Copies elements `from..n` of a row one at a time.
///
/// # Safety
///
/// Elements `from..n` lie at `src + i·in_stride` (readable) and `dst + i·out_stride` (writable), in bounds.
#[inline(always)]
unsafe fn elements<const N: usize>(
    src: *const u8,
    dst: *mut u8,
    from: usize,
    n: usize,
    in_stride: isize,
    out_stride: isize,
) {
    let mut s = src.wrapping_offset(from as isize * in_stride);
    let mut d = dst.wrapping_offset(from as isize * out_stride);
    for _ in from..n {
        // SAFETY: element i of the row, in bounds by this function's contract; unaligned accesses.
        unsafe { d.cast::<[u8; N]>().write_unaligned(s.cast::<[u8; N]>().read_unaligned()) };
        s = s.wrapping_offset(in_stride);
        d = d.wrapping_offset(out_stride);
    }
}

/// Runs as many shuffle lanes as fit in a contiguous-output row of `n` elements read with stride `k` elements;
/// returns the elements done.
///
/// # Safety
///
/// `K::SHUFFLE`; `s` was built for `(N, k)`; the row's elements lie at `src + i·k·N` (readable, with every byte
/// between them) and `dst + i·N` (writable).
#[inline(always)]
unsafe fn shuffled<K: Kern, const N: usize>(
    kern: K,
    s: &Shuffle,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    k: isize,
) -> usize {
    if n < s.slack {
        return 0;
    }
    // Lane l starts at element l·E; the last one at most at n - slack. E = 16 / N is a constant divisor.
    let elems = 16 / N;
    debug_assert_eq!(elems, s.elems);
    let lanes = (n - s.slack) / elems + 1;
    let step = elems as isize * k * N as isize;
    // SAFETY: every lane starts at an element j ≤ n - slack, so its windows and store stay in the row
    // (Shuffle::slack); the level has SSSE3 (caller checked K::SHUFFLE).
    unsafe {
        match s.windows {
            1 => kern.shuffle_lanes::<1>(s, src, step, dst, elems * N, lanes),
            2 => kern.shuffle_lanes::<2>(s, src, step, dst, elems * N, lanes),
            3 => kern.shuffle_lanes::<3>(s, src, step, dst, elems * N, lanes),
            _ => kern.shuffle_lanes::<4>(s, src, step, dst, elems * N, lanes),
        }
    }
    lanes * elems
}

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
        // SAFETY: the whole row is in bounds (Row contract).
        unsafe { elements::<N>(src, dst, 0, self.len, self.in_stride, self.out_stride) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        StridedRow { len, ..self }
    }
}

/// Output contiguous, input stride −1 element.
#[derive(Clone, Copy)]
pub(crate) struct ReverseRow<'a, K, const N: usize> {
    kern: K,
    len: usize,
    shuffle: Option<&'a Shuffle>,
}

impl<K: Kern, const N: usize> Body<K> for ReverseRow<'_, K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let n = self.len;
        // SAFETY: the row's elements lie at src - i·N and dst + i·N, in bounds (Row contract).
        let mut done = unsafe { self.kern.reverse::<N>(src, dst, n) };
        if done == 0
            && K::SHUFFLE
            && let Some(s) = self.shuffle
        {
            // SAFETY: as above; the tables were built for (N, -1) and the level has SSSE3.
            done = unsafe { shuffled::<K, N>(self.kern, s, src, dst, n, -1) };
        }
        // SAFETY: as above.
        unsafe { elements::<N>(src, dst, done, n, -(N as isize), N as isize) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        ReverseRow { len, ..self }
    }
}

/// Output contiguous, input stride `stride` elements (|stride| ≥ 2).
#[derive(Clone, Copy)]
pub(crate) struct GatherRow<'a, K, const N: usize> {
    kern: K,
    len: usize,
    stride: isize,
    shuffle: Option<&'a Shuffle>,
}

impl<K: Kern, const N: usize> Body<K> for GatherRow<'_, K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let (n, k) = (self.len, self.stride);
        let mut done = 0;
        if k == 2 || k == -2 {
            // SAFETY: the row's elements lie at src + i·k·N (every byte between them is in the input buffer, which
            // spans the whole walk) and dst + i·N (Row contract).
            done = unsafe { self.kern.gather2::<N>(src, dst, n, k < 0) };
        }
        if done == 0
            && K::SHUFFLE
            && let Some(s) = self.shuffle
        {
            // SAFETY: as above; the tables were built for (N, k) and the level has SSSE3.
            done = unsafe { shuffled::<K, N>(self.kern, s, src, dst, n, k) };
        }
        // SAFETY: as above.
        unsafe { elements::<N>(src, dst, done, n, k * N as isize, N as isize) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        GatherRow { len, ..self }
    }
}

/// Output contiguous, input stride 0: the same element `len` times.
#[derive(Clone, Copy)]
pub(crate) struct BroadcastRow<const N: usize> {
    len: usize,
}

impl<const N: usize> Row for BroadcastRow<N> {
    #[inline(always)]
    unsafe fn row(&self, src: *const u8, dst: *mut u8) {
        let n = self.len;
        if N == 1 {
            // SAFETY: one readable byte at src, n writable bytes at dst (Row contract).
            unsafe { ptr::write_bytes(dst, *src, n) };
            return;
        }
        if n <= 8 {
            // SAFETY: as above, element by element.
            unsafe { elements::<N>(src, dst, 0, n, 0, N as isize) };
            return;
        }
        // PERF: write one element, then double the filled prefix with memcpy: log2(n) calls, each reading what was
        // just written (hot in L1), for any element width.
        // SAFETY: dst..dst+n·N is the row's output (Row contract); each copy goes from the filled prefix to the
        // bytes right after it, never overlapping and never past the row.
        unsafe {
            dst.cast::<[u8; N]>().write_unaligned(src.cast::<[u8; N]>().read_unaligned());
            let total = n * N;
            let mut filled = N;
            while filled < total {
                let c = filled.min(total - filled);
                ptr::copy_nonoverlapping(dst, dst.add(filled), c);
                filled += c;
            }
        }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        BroadcastRow { len }
    }
}

/// A SIMD row body run out of line, compiled for the level of `K` ([`Kern::far`]).
#[derive(Clone, Copy)]
struct Far<K, B> {
    kern: K,
    body: B,
}

impl<K: Kern, B: Body<K>> Row for Far<K, B> {
    #[inline(always)]
    unsafe fn row(&self, src: *const u8, dst: *mut u8) {
        // SAFETY: Row contract forwarded; `kern` is the token of the level the chunk was dispatched to.
        unsafe { self.kern.far(&self.body, src, dst) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        Far { body: self.body.with_len(len), ..self }
    }
}

/// Rows shorter than this many bytes use the inlined scalar kernel: registers would hardly engage, and the
/// call of an out-of-line SIMD body would cost more than the copy.
const SHORT_ROW_BYTES: usize = 64;

/// Builds the row kernel of `N`-byte elements for the chunk's walk and drives the chunk with it.
struct Select<'a, K> {
    kern: K,
    chunk: Chunk<'a>,
}

impl<K: Kern> WidthVisitor for Select<'_, K> {
    type Output = ();

    #[inline(always)]
    fn visit<const N: usize>(self) {
        let (kern, chunk) = (self.kern, self.chunk);
        let w = chunk.walk;
        let len = w.row_len;
        let short = len * N < SHORT_ROW_BYTES;
        match w.kind {
            RowKind::Reverse if !short => {
                chunk.drive(Far { kern, body: ReverseRow::<K, N> { kern, len, shuffle: w.shuffle.as_ref() } })
            }
            RowKind::Gather { stride } if !short => {
                chunk.drive(Far { kern, body: GatherRow::<K, N> { kern, len, stride, shuffle: w.shuffle.as_ref() } })
            }
            RowKind::Broadcast => chunk.drive(BroadcastRow::<N> { len }),
            _ => chunk.drive(StridedRow::<N> { len, in_stride: w.row_in_stride, out_stride: w.row_out_stride }),
        }
    }
}

/// Runs one chunk with the row kernel of the walk's kind and width, compiled for the level of `kern`.
#[inline(always)]
pub(crate) fn run_chunk<K: Kern>(kern: K, chunk: Chunk<'_>) {
    let w = chunk.walk;
    match w.kind {
        RowKind::Copy => chunk.drive(CopyRow { bytes: w.row_len * w.width.bytes(), width: w.width.bytes() }),
        _ => w.width.visit(Select { kern, chunk }),
    }
}
