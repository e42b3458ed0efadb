//! Row kernels: one file per kind, each a [`Body`] generic over the level and the element width, wrapped into a
//! type-erased [`Rows`] that the loop nests call once per run of rows. Conversions compose these kernels with a
//! staging buffer ([`staged`]).
//!
//! Every body moves the bulk of a row through the level's registers and finishes the tail with scalar code, so
//! each row length is correct on every level.

use pulp::NullaryFnOnce;

use crate::arch::Arch;
pub(crate) use crate::arch::prefetch;
use crate::plan::ElementOp;
use crate::strategy::{Lanes, Movement, Strategy, TileWidth};
use crate::tables::{Planar, TableLanes};
use crate::width::{Width, WidthVisitor};

/// The `Body` items every body with fields `a` (the level) and `len` (the row's length) shares.
macro_rules! body_fields {
    () => {
        type A = A;

        #[inline(always)]
        fn arch(&self) -> A {
            self.a
        }

        #[inline(always)]
        fn len(&self) -> usize {
            self.len
        }
    };
}

mod broadcast;
mod copy;
mod gather;
mod planar;
mod reverse;
mod sequence;
mod staged;
pub(crate) use staged::fence;
mod strided;
mod swap;
mod table;
mod transpose;

pub(crate) use transpose::Stores;

#[cfg(feature = "selftest")]
pub(crate) use reverse::shuffled;

/// A row kernel, type-erased: what the generated nests call.
///
/// # Safety (of calling the methods)
///
/// Every element the call moves — `count` rows of the kernel's length, or the first `len` elements of one row,
/// with the strides, folded dimension or table the kernel was built for — lies inside readable input and writable
/// output memory, and, for a kernel that reads parameters, its `(scale, bias)` pair inside the parameter table
/// (`aux` points at the pair of the row's first element); output elements do not overlap each other or any input
/// byte (a kernel built for in-place execution may read and write the very same elements).
pub(crate) trait Rows: Sync {
    /// Moves `count` rows; row `r` starts at `src + r·in_step` / `dst + r·out_step` / `aux + r·aux_step`.
    ///
    /// # Safety
    ///
    /// See the trait.
    #[allow(clippy::too_many_arguments)]
    unsafe fn rows(
        &self,
        src: *const u8,
        dst: *mut u8,
        aux: *const u8,
        count: usize,
        in_step: isize,
        out_step: isize,
        aux_step: isize,
    );

    /// Moves the first `len` elements (at most the row's length) of the row starting at `src` / `dst` / `aux`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn span(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize);
}

/// A row kernel generic over the level: moves `len` elements of one row.
pub(crate) trait Body: Copy + Sync {
    /// The level.
    type A: Arch;

    /// The level's token.
    fn arch(&self) -> Self::A;

    /// The row's length in elements.
    fn len(&self) -> usize;

    /// Moves the first `len` elements of the row at `src` / `dst`.
    ///
    /// # Safety
    ///
    /// As [`Rows::span`]; runs inside the level's target features.
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize);

    /// The input bytes `[a, b)`, relative to a row's `src`, that the body reads first (at most
    /// [`params::PREFETCH_BYTES`](crate::params::PREFETCH_BYTES)): the next row's are prefetched while this one is
    /// moved.
    fn lead(&self) -> (isize, isize) {
        (0, 0)
    }

    /// Whether the body issues non-temporal stores (a run then ends with a store fence).
    fn streams(&self) -> bool {
        false
    }

    /// Moves the first `len` elements of `count` rows `in_step` / `out_step` bytes apart at once, or nothing and
    /// returns `false` (the run then goes row by row; the default, which the compiler folds away).
    ///
    /// # Safety
    ///
    /// As [`Rows::rows`]; runs inside the level's target features.
    #[inline(always)]
    unsafe fn run_many(
        &self,
        _src: *const u8,
        _dst: *mut u8,
        _count: usize,
        _in_step: isize,
        _out_step: isize,
        _len: usize,
    ) -> bool {
        false
    }

    /// Whether runs should go through [`Body::run2`], two rows at a time.
    const PAIRED: bool = false;

    /// Moves the first `len` elements of two rows, interleaving their work.
    ///
    /// # Safety
    ///
    /// As [`Body::run`] for both rows.
    #[inline(always)]
    unsafe fn run2(&self, s0: *const u8, d0: *mut u8, s1: *const u8, d1: *mut u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe {
            self.run(s0, d0, len);
            self.run(s1, d1, len);
        }
    }
}

/// How many rows ahead of the one being moved a run prefetches, for rows whose lead is `lead` bytes and which
/// start `in_step` bytes apart: [`params::PREFETCH_ROWS`](crate::params::PREFETCH_ROWS) for short rows that jump,
/// else one — when the rows are long (the lead is the whole
/// [`params::PREFETCH_BYTES`](crate::params::PREFETCH_BYTES)) or follow each other closely enough for the hardware
/// prefetchers.
#[inline(always)]
pub(crate) fn rows_ahead(lead: usize, in_step: isize) -> usize {
    use crate::params::{PREFETCH_BYTES, PREFETCH_GAP, PREFETCH_ROWS};
    let adjacent = in_step.unsigned_abs() <= lead.saturating_add(PREFETCH_GAP);
    if lead == 0 || lead >= PREFETCH_BYTES || adjacent { 1 } else { PREFETCH_ROWS }
}

/// The lead `[a, b)` of a row reading `n` elements of `N` bytes with stride `k` elements from `src`: forward from
/// the first element, or downward from it when `k < 0`.
#[inline(always)]
pub(crate) fn lead_of<const N: usize>(n: usize, k: isize) -> (isize, isize) {
    lead_bytes(n, k.saturating_mul(N as isize), N)
}

/// [`lead_of`] for elements of `width` bytes `stride` bytes apart.
#[inline(always)]
pub(crate) fn lead_bytes(n: usize, stride: isize, width: usize) -> (isize, isize) {
    // Unsigned and saturating: a one-element row may have any stride, isize::MIN included (found by fuzzing: `abs`
    // overflowed).
    let span = n.saturating_sub(1).saturating_mul(stride.unsigned_abs()).saturating_add(width);
    let len = span.min(crate::params::PREFETCH_BYTES) as isize;
    let w = width.min(crate::params::PREFETCH_BYTES) as isize;
    if stride < 0 { (w - len, w) } else { (0, len) }
}

/// The prefetches of a run of rows: the lead of the row [`rows_ahead`] rows ahead of the one being moved.
#[derive(Clone, Copy)]
pub(crate) struct Ahead {
    a: isize,
    b: isize,
    far: bool,
    ahead: usize,
    /// Bytes from a row to the one prefetched while it is moved.
    next: isize,
}

impl Ahead {
    /// Starts a run of `count` rows `in_step` bytes apart from `src` whose lead is `[a, b)`: prefetches the rows
    /// between the first and the one [`Ahead::row`] fetches first.
    // PERF: hardware prefetchers follow a stream into the *adjacent* row but not a jump (a vertical flip reads rows
    // backwards; crops skip part of each row): fetching the start of the next row while this one is moved took a
    // descending-row copy from 1.41x to 1.11x of memcpy, and a converting crop (u8 1024 x 1024 x 3 of a 1080p frame
    // to f32, one thread, Zen 4) from 1.5-1.8x of the limit to 1.1-1.2x. Short rows far apart are fetched several
    // rows ahead (see `rows_ahead`), into L2 only (see `params::PREFETCH_ROWS`).
    #[inline(always)]
    pub(crate) fn start(src: *const u8, (a, b): (isize, isize), in_step: isize, count: usize) -> Ahead {
        let ahead = rows_ahead(b.wrapping_sub(a).unsigned_abs(), in_step).min(count);
        let far = ahead > 1;
        for k in 1..ahead {
            prefetch(src.wrapping_offset(in_step.wrapping_mul(k as isize)), a, b, far);
        }
        Ahead { a, b, far, ahead, next: in_step.wrapping_mul(ahead as isize) }
    }

    /// Before row `r` of the run (at `s`) is moved: prefetches the row `ahead` rows on, if the run has it.
    #[inline(always)]
    pub(crate) fn row(&self, s: *const u8, r: usize, count: usize) {
        if r + self.ahead < count {
            prefetch(s.wrapping_offset(self.next), self.a, self.b, self.far);
        }
    }
}

/// Moves elements `from..n` of a row one at a time.
///
/// # Safety
///
/// Elements `from..n` lie at `src + i·in_stride` (readable) and `dst + i·out_stride` (writable), in bounds.
#[inline(always)]
pub(crate) unsafe fn elements<const N: usize>(
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

/// A [`Body`] as a [`Rows`]: each call enters the level's target features once and runs the whole run of rows
/// inside them.
pub(crate) struct Runner<B>(pub(crate) B);

/// One call's work, run inside the level's target features.
struct Run<'a, B> {
    body: &'a B,
    src: *const u8,
    dst: *mut u8,
    count: usize,
    in_step: isize,
    out_step: isize,
    len: usize,
    /// Fence streamed stores at the end ([`Runner::unfenced`]'s callers fence themselves).
    fence: bool,
}

impl<B: Body> NullaryFnOnce for Run<'_, B> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        let Run { body, src, dst, count, in_step, out_step, len, fence } = self;
        // SAFETY: the run's rows, in bounds by the Rows contract.
        if unsafe { body.run_many(src, dst, count, in_step, out_step, len) } {
            return;
        }
        let (mut s, mut d) = (src, dst);
        if B::PAIRED {
            let mut r = 0;
            while r + 2 <= count {
                let (s1, d1) = (s.wrapping_offset(in_step), d.wrapping_offset(out_step));
                // SAFETY: rows r and r + 1 of the run, in bounds by the Rows contract.
                unsafe { body.run2(s, d, s1, d1, len) };
                s = s1.wrapping_offset(in_step);
                d = d1.wrapping_offset(out_step);
                r += 2;
            }
            if r < count {
                // SAFETY: the last row of the run.
                unsafe { body.run(s, d, len) };
            }
            return;
        }
        let ahead = Ahead::start(s, body.lead(), in_step, count);
        for r in 0..count {
            ahead.row(s, r, count);
            // SAFETY: row r of the run, in bounds by the Rows contract.
            unsafe { body.run(s, d, len) };
            s = s.wrapping_offset(in_step);
            d = d.wrapping_offset(out_step);
        }
        #[cfg(target_arch = "x86_64")]
        if fence && body.streams() {
            // SAFETY: SSE is part of the x86-64 baseline. Non-temporal stores are weakly ordered: fence them before
            // the chunk reports completion to other threads.
            unsafe { core::arch::x86_64::_mm_sfence() };
        }
    }
}

impl<B: Body> Rows for Runner<B> {
    unsafe fn rows(
        &self,
        src: *const u8,
        dst: *mut u8,
        _aux: *const u8,
        count: usize,
        in_step: isize,
        out_step: isize,
        _aux_step: isize,
    ) {
        let len = self.0.len();
        self.0.arch().vectorize(Run { body: &self.0, src, dst, count, in_step, out_step, len, fence: true });
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, _aux: *const u8, len: usize) {
        debug_assert!(len <= self.0.len());
        self.0.arch().vectorize(Run { body: &self.0, src, dst, count: 1, in_step: 0, out_step: 0, len, fence: true });
    }
}

impl<B: Body> Runner<B> {
    /// [`Rows::span`] without the closing store fence (the caller fences): the same compiled code as the runs of
    /// rows, one copy of a body per level whoever calls it. (Not inlined: the level's function, an `#[inline]` one,
    /// is compiled into each codegen unit that calls it, and this module's is the one of [`Rows::rows`].)
    ///
    /// # Safety
    ///
    /// As [`Rows::span`].
    pub(crate) unsafe fn unfenced(&self, src: *const u8, dst: *mut u8, len: usize) {
        debug_assert!(len <= self.0.len());
        self.0.arch().vectorize(Run { body: &self.0, src, dst, count: 1, in_step: 0, out_step: 0, len, fence: false });
    }
}

/// The kernel a caller asks for, with everything it needs; [`build`] turns it into a [`Rows`].
#[derive(Clone, Copy)]
pub(crate) enum Request<'a> {
    /// Contiguous in both operands.
    Copy {
        /// The walk's footprint is beyond L2 ([`Strategy::beyond_l2`]).
        far: bool,
    },
    /// Input stride −1 element, output contiguous.
    Reverse(&'a Lanes),
    /// Input stride `stride` elements, output contiguous; `far`: the walk's footprint is beyond the last-level cache
    /// one thread can count on ([`Strategy::near`]).
    Gather { stride: isize, lanes: &'a Lanes, far: bool },
    /// Input stride 0, output contiguous.
    Broadcast,
    /// Any strides.
    Strided { in_stride: isize, out_stride: isize, lanes: Option<&'a Lanes> },
    /// A table row of (input, output) offsets.
    Table(&'a [(isize, isize)]),
    /// A table row of input offsets; the output is contiguous. `lanes` move whole rows through registers.
    TableGather { inputs: &'a [isize], lanes: &'a TableLanes },
    /// A table row read contiguously and written at the output offsets of `pairs`.
    TableScatter(&'a [(isize, isize)]),
    /// A transpose: the row (`J`, input-contiguous) and the folded dimension (`I`: `ni` elements, input stride
    /// `si`, output-contiguous); `dj` is the output stride of `J`; `cached`: the walk's footprint stays in the
    /// caches; `near`: it fits the last-level cache one thread can count on.
    Transpose { tile: TileWidth, ni: usize, si: isize, dj: isize, cached: bool, near: bool },
    /// Planes `ps` bytes apart in the input into pixels.
    Interleave { tables: &'a Planar, ps: isize },
    /// Pixels into planes `ps` bytes apart in the output.
    Deinterleave { tables: &'a Planar, ps: isize },
    /// Pixels read with stride `k` pixels, their `unit`-byte channels written in reverse order.
    Swap { lanes: &'a Lanes, unit: usize, step: isize },
}

/// Builds the row kernel `req` for rows of `len` elements of `width` bytes at level `a` and calls `f` with it.
pub(crate) fn build<A: Arch>(
    a: A,
    req: Request<'_>,
    width: Width,
    len: usize,
    stream: bool,
    f: &mut dyn FnMut(&dyn Rows),
) {
    match req {
        // Long runs take the string move (`arch::copy_strings`) when the walk's footprint is beyond L2, and at
        // vector levels from `params::REP_MOVSB_NEAR_MIN_BYTES` whatever the footprint. (Compiled for the level's
        // base, as the broadcasts and the element tables: none uses what VBMI adds; −27 KB of `.text`.)
        Request::Copy { far } => {
            let a = a.base();
            let strings = match (stream, far) {
                (true, _) => None,
                (false, true) => Some(crate::params::REP_MOVSB_MIN_BYTES),
                (false, false) => (A::BYTES >= 32).then_some(crate::params::REP_MOVSB_NEAR_MIN_BYTES),
            };
            f(&Runner(copy::CopyBody { a, bytes: width.bytes(), len, stream, strings }))
        }
        // (Compiled for the level whose tiles this one runs: V4 for V4 + VBMI.)
        Request::Transpose { tile, ni, si, dj, cached, near } => {
            transpose::build(a.base(), tile, ni, si, dj, len, (Stores { stream, cached }, near), f)
        }
        Request::Interleave { tables, ps } => planar::build(a, tables, ps, true, len, f),
        Request::Deinterleave { tables, ps } => planar::build(a, tables, ps, false, len, f),
        _ => width.visit(ByWidth { a, req, len, stream, f }),
    }
}

/// The width-generic kernels, built for `N`-byte elements.
struct ByWidth<'a, 'f, A> {
    a: A,
    req: Request<'a>,
    len: usize,
    stream: bool,
    f: &'f mut dyn FnMut(&dyn Rows),
}

impl<A: Arch> WidthVisitor for ByWidth<'_, '_, A> {
    type Output = ();

    fn visit<const N: usize>(self) {
        let ByWidth { a, req, len, stream, f } = self;
        match req {
            Request::Reverse(lanes) => f(&Runner(reverse::ReverseBody::<A, N> { a, len, lanes, stream })),
            Request::Gather { stride, lanes, far } => {
                f(&Runner(gather::GatherBody::<A, N> { a, len, stride, lanes, stream, far }))
            }
            Request::Broadcast => f(&Runner(broadcast::BroadcastBody::<A::Base, N> { a: a.base(), len, stream })),
            Request::Strided { in_stride, out_stride, lanes } => {
                f(&Runner(strided::StridedBody::<A, N> { a, len, in_stride, out_stride, lanes }))
            }
            Request::Table(pairs) => f(&Runner(table::TableBody::<A::Base, N> { a: a.base(), pairs })),
            Request::TableGather { inputs, lanes } => f(&Runner(table::GatherTableBody::<A, N> { a, inputs, lanes })),
            Request::TableScatter(pairs) => f(&Runner(table::ScatterTableBody::<A::Base, N> { a: a.base(), pairs })),
            Request::Swap { lanes, unit, step } => f(&Runner(swap::SwapBody::<A, N> { a, len, lanes, unit, step })),
            // Handled by `build` before the width visit.
            Request::Copy { .. }
            | Request::Transpose { .. }
            | Request::Interleave { .. }
            | Request::Deinterleave { .. } => {
                unreachable!("dispatched before the width visit")
            }
        }
    }
}

/// Calls `f` with the row kernel of `strategy` at level `a` (`stream`: non-temporal stores where the kernel has
/// them).
pub(crate) fn with_rows<A: Arch>(a: A, strategy: &Strategy, stream: bool, f: &mut dyn FnMut(&dyn Rows)) {
    if !matches!(strategy.op(), ElementOp::Copy { .. }) {
        return staged::build_staged(a, strategy, stream, f);
    }
    debug_assert!(strategy.geometry().table_aux().is_empty(), "a copy reads no parameters");
    let g = strategy.geometry();
    let row = g.row();
    let fold = || g.fold().expect("Strategy::choose pairs the transposing kinds with a folded dimension");
    let table = || g.table().expect("Strategy::choose pairs the table kind with a table");
    let req = match strategy.movement() {
        Movement::Copy => Request::Copy { far: strategy.beyond_l2() },
        Movement::Reverse(lanes) => Request::Reverse(lanes),
        Movement::Gather { stride, lanes } => Request::Gather { stride: *stride, lanes, far: !strategy.near() },
        Movement::Broadcast => Request::Broadcast,
        Movement::Strided(lanes) => {
            Request::Strided { in_stride: row.in_stride, out_stride: row.out_stride, lanes: lanes.as_ref() }
        }
        Movement::Table(lanes) if table().contiguous() => Request::TableGather { inputs: table().inputs(), lanes },
        Movement::Table(_) => Request::Table(table().pairs()),
        Movement::Transpose(tile) => {
            let i = fold();
            Request::Transpose {
                tile: *tile,
                ni: i.extent,
                si: i.in_stride,
                dj: row.out_stride,
                cached: strategy.cached(),
                near: strategy.near(),
            }
        }
        Movement::Interleave(tables, _) => Request::Interleave { tables, ps: fold().in_stride },
        Movement::Deinterleave(tables) => Request::Deinterleave { tables, ps: fold().out_stride },
        Movement::Swap { unit, lanes } => Request::Swap { lanes, unit: *unit, step: row.in_stride },
        Movement::Generate => unreachable!("Strategy::choose generates for sequences only, which are not copies"),
        Movement::Pixels { .. } => unreachable!("Strategy::choose reads pixels whole for conversions only"),
    };
    build(a, req, strategy.width(), row.extent, stream, f)
}

/// This module's tests and its files' (see `crate::selftests`).
#[cfg(feature = "selftest")]
pub(crate) fn selftests() -> Vec<(&'static str, fn())> {
    let mut all = [tests::tests(), staged::tests::tests()].concat();
    #[cfg(target_arch = "x86_64")]
    all.extend(transpose::tests::tests());
    all
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    #[test]
    fn rows_ahead_for_short_rows_that_jump() {
        use super::rows_ahead;
        // The public crop 384 with stride 2: 1.5 KiB leads 4 KiB apart.
        assert_eq!(rows_ahead(1536, 4096), 4);
        assert_eq!(rows_ahead(1536, -4096), 4);
        // Long rows (the lead is the whole 2 KiB), rows that follow each other (a crop of 200 of 224 u8 pixels),
        // empty leads: one.
        assert_eq!(rows_ahead(2048, 1 << 20), 1);
        assert_eq!(rows_ahead(600, 672), 1);
        assert_eq!(rows_ahead(0, 4096), 1);
        // Tiny rows far apart, the public hw stride 2 (1 KiB rows 2 KiB apart).
        assert_eq!(rows_ahead(64, isize::MIN), 4);
        assert_eq!(rows_ahead(1024, 2048), 4);
        assert_eq!(rows_ahead(1024, 1024 + 320), 4);
        assert_eq!(rows_ahead(1024, 1024 + 256), 1);
    }

    #[test]
    fn leads_of_extreme_strides_saturate() {
        // A one-element row may carry any stride (found by fuzzing plans: `abs` of isize::MIN overflowed).
        let cap = crate::params::PREFETCH_BYTES as isize;
        assert_eq!(super::lead_of::<1>(1, isize::MIN), (0, 1));
        assert_eq!(super::lead_of::<4>(usize::MAX, isize::MIN), (4 - cap, 4));
        assert_eq!(super::lead_of::<8>(usize::MAX, isize::MAX), (0, cap));
        assert_eq!(super::lead_of::<2>(0, 1), (0, 2));
        // Byte strides: 3-byte pixels forwards, mirrored (read downward from the first pixel) and far apart.
        assert_eq!(super::lead_bytes(10, 3, 3), (0, 30));
        assert_eq!(super::lead_bytes(10, -3, 3), (3 - 30, 3));
        assert_eq!(super::lead_bytes(1 << 20, 12, 12), (0, cap));
        assert_eq!(super::lead_bytes(1 << 20, -12, 12), (12 - cap, 12));
        assert_eq!(super::lead_bytes(usize::MAX, isize::MIN, usize::MAX), (0, cap));
    }
}
