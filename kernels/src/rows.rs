//! Row kernels and their selection. A chunk of a walk runs entirely inside one level dispatch: the kind and width
//! are matched once per chunk and the chosen row kernel inlines into the generated nest.
//!
//! Every kernel copies the bulk of a row through the level's [`Kern`] (whole registers) and finishes the tail
//! with the scalar element loop, so each row length is correct on every level.

use core::ptr;

use crate::exec::Chunk;
use crate::nest::Row;
use crate::plan::{RowKind, TableOffsets};
use crate::shuffle::{Planar, Shuffle, WideShuffle};
use crate::simd::{Body, Kern, lead_of};
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

/// The shuffle tables of a walk, widest first.
#[derive(Clone, Copy)]
pub(crate) struct Lanes<'a> {
    wide: Option<&'a WideShuffle>,
    narrow: Option<&'a Shuffle>,
}

/// Shuffle tables the row kernels can run on a level: the 64-byte VBMI lanes or the 16-byte `pshufb` lanes.
trait LaneTables {
    /// Output bytes of a lane.
    const LANE: usize;
    /// Whether level `K` runs these lanes.
    fn available<K: Kern>() -> bool;
    fn slack(&self) -> usize;
    /// Runs `lanes` lanes.
    ///
    /// # Safety
    ///
    /// As `Kern::shuffle_lanes` / `Kern::wide_lanes`, and `Self::available::<K>()`.
    unsafe fn run<K: Kern>(&self, kern: K, src: *const u8, step: isize, dst: *mut u8, dst_step: usize, lanes: usize);
}

impl LaneTables for WideShuffle {
    const LANE: usize = 64;

    fn available<K: Kern>() -> bool {
        K::WIDE
    }

    fn slack(&self) -> usize {
        self.slack
    }

    #[inline(always)]
    unsafe fn run<K: Kern>(&self, kern: K, src: *const u8, step: isize, dst: *mut u8, dst_step: usize, lanes: usize) {
        // SAFETY: forwarded contract (VBMI level).
        unsafe {
            match self.windows {
                1 => kern.wide_lanes::<1>(self, src, step, dst, dst_step, lanes),
                _ => kern.wide_lanes::<2>(self, src, step, dst, dst_step, lanes),
            }
        }
    }
}

impl LaneTables for Shuffle {
    const LANE: usize = 16;

    fn available<K: Kern>() -> bool {
        K::SHUFFLE
    }

    fn slack(&self) -> usize {
        self.slack
    }

    #[inline(always)]
    unsafe fn run<K: Kern>(&self, kern: K, src: *const u8, step: isize, dst: *mut u8, dst_step: usize, lanes: usize) {
        // SAFETY: forwarded contract (SSSE3 level).
        unsafe {
            match self.windows {
                1 => kern.shuffle_lanes::<1>(self, src, step, dst, dst_step, lanes),
                2 => kern.shuffle_lanes::<2>(self, src, step, dst, dst_step, lanes),
                3 => kern.shuffle_lanes::<3>(self, src, step, dst, dst_step, lanes),
                _ => kern.shuffle_lanes::<4>(self, src, step, dst, dst_step, lanes),
            }
        }
    }
}

/// Runs as many lanes of `t` as fit from element `from` of a row of `n` elements read with stride `k`; returns
/// the element after the last lane.
///
/// # Safety
///
/// As [`shuffled`].
#[inline(always)]
unsafe fn lanes_from<K: Kern, T: LaneTables, const N: usize>(
    kern: K,
    t: &T,
    src: *const u8,
    dst: *mut u8,
    from: usize,
    n: usize,
    k: isize,
) -> usize {
    if !T::available::<K>() || n < from + t.slack() {
        return from;
    }
    // Lane l starts at element from + l·E; the last one at most at n - slack. E = LANE / N (constant divisor).
    let elems = T::LANE / N;
    let lanes = (n - from - t.slack()) / elems + 1;
    let step = elems as isize * k * N as isize;
    let (sp, dp) = (src.wrapping_offset(from as isize * k * N as isize), dst.wrapping_add(from * N));
    // SAFETY: every lane starts at an element j ≤ n - slack, so its windows and store stay in the row (the tables'
    // slack); the level runs these lanes (checked above).
    unsafe { t.run(kern, sp, step, dp, elems * N, lanes) };
    from + lanes * elems
}

/// Continues a contiguous-output row of `n` elements read with stride `k` elements from element `from`, through
/// the widest shuffle lanes the level has (64-byte VBMI lanes, then 16-byte `pshufb` lanes); returns the elements
/// done (the caller finishes the tail).
///
/// # Safety
///
/// The tables were built for `(N, k)`; the row's elements lie at `src + i·k·N` (readable, with every byte between
/// them) and `dst + i·N` (writable).
#[inline(always)]
unsafe fn shuffled<K: Kern, const N: usize>(
    kern: K,
    tables: Lanes<'_>,
    src: *const u8,
    dst: *mut u8,
    mut from: usize,
    n: usize,
    k: isize,
) -> usize {
    if let Some(s) = tables.wide {
        // SAFETY: forwarded contract.
        from = unsafe { lanes_from::<K, _, N>(kern, s, src, dst, from, n, k) };
    }
    if let Some(s) = tables.narrow {
        // SAFETY: forwarded contract.
        from = unsafe { lanes_from::<K, _, N>(kern, s, src, dst, from, n, k) };
    }
    from
}

/// Calls `f` for `count` rows stepping by `in_step` / `out_step` (the inlined kernels' `rows`).
#[inline(always)]
fn each_row(
    src: *const u8,
    dst: *mut u8,
    count: usize,
    in_step: isize,
    out_step: isize,
    mut f: impl FnMut(*const u8, *mut u8),
) {
    let (mut s, mut d) = (src, dst);
    for _ in 0..count {
        f(s, d);
        s = s.wrapping_offset(in_step);
        d = d.wrapping_offset(out_step);
    }
}

/// A short row contiguous in both operands: one inlined `memcpy` of a few bytes.
#[derive(Clone, Copy)]
pub(crate) struct ShortCopyRow {
    pub(crate) bytes: usize,
    pub(crate) width: usize,
}

impl Row for ShortCopyRow {
    #[inline(always)]
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        // SAFETY: each row's `bytes` bytes are in bounds in both operands (Row contract) and the operands are
        // distinct buffers.
        each_row(src, dst, count, in_step, out_step, |s, d| unsafe { ptr::copy_nonoverlapping(s, d, self.bytes) });
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        ShortCopyRow { bytes: len * self.width, ..self }
    }
}

/// A row contiguous in both operands, copied through the level's registers ([`Kern::copy`]).
#[derive(Clone, Copy)]
pub(crate) struct CopyBody<K> {
    kern: K,
    bytes: usize,
    width: usize,
    stream: bool,
}

impl<K: Kern> Body<K> for CopyBody<K> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        // SAFETY: the row's bytes are in bounds in both operands, which are distinct buffers (Row contract).
        unsafe { self.kern.copy(src, dst, self.bytes, self.stream) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        CopyBody { bytes: len * self.width, ..self }
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        lead_of::<1>(self.bytes, 1)
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
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        // SAFETY: every row is in bounds (Row contract).
        each_row(src, dst, count, in_step, out_step, |s, d| unsafe {
            elements::<N>(s, d, 0, self.len, self.in_stride, self.out_stride)
        });
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        StridedRow { len, ..self }
    }
}

/// A table row: one element per entry of (input, output) byte offsets.
#[derive(Clone, Copy)]
pub(crate) struct TableRow<'a, const N: usize> {
    table: &'a [(isize, isize)],
}

impl<const N: usize> Row for TableRow<'_, N> {
    #[inline(always)]
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        each_row(src, dst, count, in_step, out_step, |s, d| {
            for &(i, o) in self.table {
                // SAFETY: each entry is the offset of an element of the walk relative to its row base (Walk::new
                // built the table from the plan's dimensions), in bounds by the Row contract.
                unsafe {
                    let v = s.wrapping_offset(i).cast::<[u8; N]>().read_unaligned();
                    d.wrapping_offset(o).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        });
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        // Table rows are never split (the scheduler cuts only rows of other kinds into pieces).
        TableRow { table: &self.table[..len.min(self.table.len())] }
    }
}

/// A table row whose output is contiguous: only input offsets, sequential stores, unrolled by 4.
#[derive(Clone, Copy)]
pub(crate) struct GatherTableRow<'a, const N: usize> {
    table: &'a [isize],
}

impl<const N: usize> Row for GatherTableRow<'_, N> {
    #[inline(always)]
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        let t = self.table;
        let copy = |s: *const u8, d: *mut u8, j: usize| {
            // SAFETY: entry j is the input offset of element j of a table row, whose output is element j of the
            // row's contiguous output run; both in bounds by the Row contract (Walk::new built the table).
            unsafe {
                let v = s.wrapping_offset(*t.get_unchecked(j)).cast::<[u8; N]>().read_unaligned();
                d.add(j * N).cast::<[u8; N]>().write_unaligned(v);
            }
        };
        let (mut s, mut d) = (src, dst);
        let mut r = 0;
        // PERF: two rows per pass over the table: twice the independent loads in flight per offset read (the
        // rank-8 public case went from 1.28 to ~1.0 µs).
        while r + 2 <= count {
            let (s2, d2) = (s.wrapping_offset(in_step), d.wrapping_offset(out_step));
            for j in 0..t.len() {
                copy(s, d, j);
                copy(s2, d2, j);
            }
            s = s2.wrapping_offset(in_step);
            d = d2.wrapping_offset(out_step);
            r += 2;
        }
        if r < count {
            for j in 0..t.len() {
                copy(s, d, j);
            }
        }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        GatherTableRow { table: &self.table[..len.min(self.table.len())] }
    }
}

/// Elements to copy one by one before `dst` is 64-byte aligned, when `stream` is asked for and possible (the
/// output must be aligned to whole elements); `None` means regular stores.
#[inline(always)]
fn stream_head<const N: usize>(dst: *mut u8, n: usize, stream: bool) -> Option<usize> {
    let mis = dst as usize & 63;
    if !stream || !N.is_power_of_two() || !mis.is_multiple_of(N) {
        return None;
    }
    let head = ((64 - mis) & 63) / N;
    (head < n).then_some(head)
}

/// Output contiguous, input stride −1 element.
#[derive(Clone, Copy)]
pub(crate) struct ReverseRow<'a, K, const N: usize> {
    kern: K,
    len: usize,
    lanes: Lanes<'a>,
    stream: bool,
}

impl<K: Kern, const N: usize> Body<K> for ReverseRow<'_, K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let n = self.len;
        let mut done = 0;
        if let Some(head) = stream_head::<N>(dst, n, self.stream) {
            // SAFETY: the row's elements lie at src - i·N and dst + i·N, in bounds (Row contract); after `head`
            // elements dst is 64-byte aligned, as streaming stores need.
            unsafe {
                elements::<N>(src, dst, 0, head, -(N as isize), N as isize);
                let (s, d) = (src.wrapping_sub(head * N), dst.add(head * N));
                done = head + self.kern.reverse::<N>(s, d, n - head, true);
            }
        }
        if done == 0 {
            // SAFETY: the row's elements lie at src - i·N and dst + i·N, in bounds (Row contract).
            done = unsafe { self.kern.reverse::<N>(src, dst, n, false) };
        }
        if done == 0 {
            // SAFETY: as above; the tables were built for (N, -1).
            done = unsafe { shuffled::<K, N>(self.kern, self.lanes, src, dst, 0, n, -1) };
        }
        // SAFETY: as above.
        unsafe { elements::<N>(src, dst, done, n, -(N as isize), N as isize) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        ReverseRow { len, ..self }
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        lead_of::<N>(self.len, -1)
    }
}

/// Output contiguous, input stride `stride` elements (|stride| ≥ 2).
#[derive(Clone, Copy)]
pub(crate) struct GatherRow<'a, K, const N: usize> {
    kern: K,
    len: usize,
    stride: isize,
    lanes: Lanes<'a>,
    stream: bool,
}

impl<K: Kern, const N: usize> Body<K> for GatherRow<'_, K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let (n, k) = (self.len, self.stride);
        let mut done = 0;
        if k == 2 || k == -2 {
            let step = k * N as isize;
            if let Some(head) = stream_head::<N>(dst, n, self.stream) {
                // SAFETY: the row's elements lie at src + i·k·N (every byte between them is in the input buffer,
                // which spans the whole walk) and dst + i·N (Row contract); after `head` elements dst is 64-byte
                // aligned, as streaming stores need.
                unsafe {
                    elements::<N>(src, dst, 0, head, step, N as isize);
                    let (s, d) = (src.wrapping_offset(head as isize * step), dst.add(head * N));
                    done = head + self.kern.gather2::<N>(s, d, n - head, k < 0, true);
                }
            }
            if done == 0 {
                // SAFETY: as above, with regular stores.
                done = unsafe { self.kern.gather2::<N>(src, dst, n, k < 0, false) };
            }
        }
        // SAFETY: as above; the tables were built for (N, k). Continues after the register kernel's prefix.
        done = unsafe { shuffled::<K, N>(self.kern, self.lanes, src, dst, done, n, k) };
        // SAFETY: as above.
        unsafe { elements::<N>(src, dst, done, n, k * N as isize, N as isize) }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        GatherRow { len, ..self }
    }

    #[inline(always)]
    fn streams(&self) -> bool {
        self.stream
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        lead_of::<N>(self.len, self.stride)
    }
}

/// Output contiguous, input stride 0: the same element `len` times.
#[derive(Clone, Copy)]
pub(crate) struct BroadcastRow<const N: usize> {
    len: usize,
}

impl<const N: usize> Row for BroadcastRow<N> {
    #[inline(always)]
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        // SAFETY: every row is in bounds (Row contract).
        each_row(src, dst, count, in_step, out_step, |s, d| unsafe { self.row(s, d) });
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        BroadcastRow { len }
    }
}

impl<const N: usize> BroadcastRow<N> {
    /// # Safety
    ///
    /// One readable element at `src`, `len` writable elements at `dst`.
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
}

/// A 2-D transpose: the row is the input-contiguous dimension `J` (`len` elements, output stride `dj` bytes); the
/// folded dimension `I` (`ni` elements, input stride `si`) is contiguous in the output. Column blocks of one input
/// cache line, 8×8 register tiles inside; edges element by element.
#[derive(Clone, Copy)]
pub(crate) struct TransposeBody<K, const N: usize> {
    kern: K,
    ni: usize,
    si: isize,
    len: usize,
    dj: isize,
}

impl<K: Kern, const N: usize> Body<K> for TransposeBody<K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let (ni, n, si, dj, w) = (self.ni, self.len, self.si, self.dj, N as isize);
        let at = |i: usize, j: usize| {
            (
                src.wrapping_offset(i as isize * si + j as isize * w),
                dst.wrapping_offset(i as isize * w + j as isize * dj),
            )
        };
        let copy = |i: usize, j: usize| {
            let (s, d) = at(i, j);
            // SAFETY: element (i, j) of the block, in bounds by the Row contract.
            unsafe { d.cast::<[u8; N]>().write_unaligned(s.cast::<[u8; N]>().read_unaligned()) }
        };
        // PERF: two-level blocking. A super-block of columns is sized so that all its output rows
        // (columns × ni elements) stay in L2; inside it, 8 input rows at a time are swept across all its columns, so
        // only 8 input streams are live (sweeping all ni rows per column block kept 64 streams live for a
        // 64-channel NCHW → NHWC, more than the prefetchers follow), and the output lines, completed over the
        // successive 8-row passes, are still in L2 when the next pass returns to them.
        let sj = ((crate::params::TRANSPOSE_L2_BYTES / (ni * N)) / 8 * 8).max(8);
        let full = n / 8 * 8;
        let mut j0 = 0;
        while j0 < full {
            let j1 = (j0 + sj).min(full);
            let mut i = 0;
            while i + 8 <= ni {
                let mut j = j0;
                while j < j1 {
                    let (s, d) = at(i, j);
                    // SAFETY: rows i..i+8, columns j..j+8 are elements of the block (i + 8 ≤ ni, j + 8 ≤ full ≤ n),
                    // in bounds by the Row contract.
                    unsafe { self.kern.tile8::<N>(s, si, d, dj) };
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
        for jj in full..n {
            for ii in 0..ni {
                copy(ii, jj);
            }
        }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        TransposeBody { len, ..self }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        (0, 0)
    }
}

/// Planes into pixels: the row is the pixel dimension (`len` pixels); the folded dimension is the `planes`
/// planes, `ps` bytes apart in the input; output pixels are contiguous.
#[derive(Clone, Copy)]
pub(crate) struct InterleaveBody<'a, K, const N: usize> {
    kern: K,
    planes: usize,
    ps: isize,
    len: usize,
    tables: &'a Planar,
}

impl<K: Kern, const N: usize> Body<K> for InterleaveBody<'_, K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let (p, n) = (self.planes, self.len);
        // SAFETY: plane i holds n readable elements at src + i·ps and dst n·p writable elements (Row contract).
        let done = unsafe { self.kern.interleave::<N>(self.tables, p, src, self.ps, dst, n) };
        for j in done..n {
            for c in 0..p {
                // SAFETY: element j of plane c and its output, in bounds as above.
                unsafe {
                    let v = src.wrapping_offset(c as isize * self.ps).add(j * N).cast::<[u8; N]>().read_unaligned();
                    dst.add((j * p + c) * N).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        InterleaveBody { len, ..self }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        (0, 0)
    }
}

/// Pixels into planes: the row is the pixel dimension (`len` contiguous pixels of `planes` elements); the folded
/// dimension is the planes, `ps` bytes apart in the output.
#[derive(Clone, Copy)]
pub(crate) struct DeinterleaveBody<'a, K, const N: usize> {
    kern: K,
    planes: usize,
    ps: isize,
    len: usize,
    tables: &'a Planar,
}

impl<K: Kern, const N: usize> Body<K> for DeinterleaveBody<'_, K, N> {
    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8) {
        let (p, n) = (self.planes, self.len);
        // SAFETY: n·p readable elements at src, n writable elements of plane i at dst + i·ps (Row contract).
        let done = unsafe { self.kern.deinterleave::<N>(self.tables, p, src, dst, self.ps, n) };
        for j in done..n {
            for c in 0..p {
                // SAFETY: element c of pixel j and its output, in bounds as above.
                unsafe {
                    let v = src.add((j * p + c) * N).cast::<[u8; N]>().read_unaligned();
                    dst.wrapping_offset(c as isize * self.ps).add(j * N).cast::<[u8; N]>().write_unaligned(v);
                }
            }
        }
    }

    #[inline(always)]
    fn with_len(self, len: usize) -> Self {
        DeinterleaveBody { len, ..self }
    }

    #[inline(always)]
    fn lead(&self) -> (isize, isize) {
        (0, 0)
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
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        // SAFETY: Row contract forwarded; `kern` is the token of the level the chunk was dispatched to.
        unsafe { self.kern.far(&self.body, src, dst, count, in_step, out_step) }
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
        let lanes = Lanes { wide: w.wide.as_ref(), narrow: w.shuffle.as_ref() };
        match w.kind {
            RowKind::Reverse if !short => {
                chunk.drive(Far { kern, body: ReverseRow::<K, N> { kern, len, lanes, stream: chunk.stream } })
            }
            RowKind::Gather { stride } if !short => {
                chunk.drive(Far { kern, body: GatherRow::<K, N> { kern, len, stride, lanes, stream: chunk.stream } })
            }
            RowKind::Broadcast => chunk.drive(BroadcastRow::<N> { len }),
            RowKind::Transpose { rows } => chunk.drive(Far {
                kern,
                body: TransposeBody::<K, N> { kern, ni: rows, si: w.fold.in_stride, len, dj: w.row_out_stride },
            }),
            // Walk::new refuses the planar kinds without their tables (Walk::consistent), so these always match.
            RowKind::Interleave { planes } if let Some(tables) = &w.planar => chunk
                .drive(Far { kern, body: InterleaveBody::<K, N> { kern, planes, ps: w.fold.in_stride, len, tables } }),
            RowKind::Deinterleave { planes } if let Some(tables) = &w.planar => chunk.drive(Far {
                kern,
                body: DeinterleaveBody::<K, N> { kern, planes, ps: w.fold.out_stride, len, tables },
            }),
            RowKind::Table { .. } if let Some(TableOffsets::Inputs(t)) = &w.table => {
                chunk.drive(GatherTableRow::<N> { table: t })
            }
            RowKind::Table { .. } if let Some(TableOffsets::Pairs(t)) = &w.table => {
                chunk.drive(TableRow::<N> { table: t })
            }
            _ => chunk.drive(StridedRow::<N> { len, in_stride: w.row_in_stride, out_stride: w.row_out_stride }),
        }
    }
}

/// Runs one chunk with the row kernel of the walk's kind and width, compiled for the level of `kern`.
#[inline(always)]
pub(crate) fn run_chunk<K: Kern>(kern: K, chunk: Chunk<'_>) {
    let w = chunk.walk;
    let (width, bytes) = (w.width.bytes(), w.row_len * w.width.bytes());
    match w.kind {
        RowKind::Copy if bytes < SHORT_ROW_BYTES => chunk.drive(ShortCopyRow { bytes, width }),
        RowKind::Copy => chunk.drive(Far { kern, body: CopyBody { kern, bytes, width, stream: chunk.stream } }),
        _ => w.width.visit(Select { kern, chunk }),
    }
}
