//! Converting rows: the copy kernels composed with a conversion through small staging buffers (L1-resident), so
//! every layout a copy handles converts in one pass over memory with only 121 contiguous conversion kernels.
//!
//! - Row kinds: input elements are gathered into a contiguous buffer by the copy kernel of the *input* width (none
//!   when the input is contiguous), converted into the output or into a second buffer, and scattered by the copy
//!   kernel of the *output* width (none when the output is contiguous).
//! - Transposing kinds: input runs (contiguous along the row) are converted into a buffer first, then the
//!   transposing kernel of the *output* width moves them.

use core::mem::MaybeUninit;

use pulp::NullaryFnOnce;

use super::planar::{PlanarFn, planar_fn};
use super::transpose::{BlockFn, block_fn};
use super::{Request, Rows, build};
use crate::arch::{Arch, copy};
use crate::convert::{AffineFn, CastFn, affine_fn, cast_fn};
use crate::params::SCRATCH_BYTES;
use crate::plan::ElementOp;
use crate::strategy::{Movement, Strategy};
use crate::tables::Planar;
use crate::width::Width;

/// A staging buffer on the stack, aligned for streaming copies out of it.
#[repr(C, align(64))]
struct Scratch([MaybeUninit<u8>; SCRATCH_BYTES]);

impl Scratch {
    fn new() -> Scratch {
        Scratch([MaybeUninit::uninit(); SCRATCH_BYTES])
    }

    fn ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr().cast()
    }
}

/// The conversion of contiguous runs, compiled for the walk's level.
#[derive(Clone, Copy)]
enum Converter {
    Cast(CastFn),
    Affine(AffineFn, f32, f32),
}

impl Converter {
    fn of<A: Arch>(op: &ElementOp) -> Converter {
        match *op {
            ElementOp::Cast { from, to } => Converter::Cast(cast_fn::<A>(from, to)),
            ElementOp::ScaleBias { ty, scale, bias } => Converter::Affine(
                affine_fn::<A>(ty).expect("Walk::new admits scale/bias of float types only"),
                scale,
                bias,
            ),
            ElementOp::Copy { .. } => unreachable!("with_rows sends copies to the copy kernels"),
        }
    }

    /// Converts `n` contiguous elements.
    ///
    /// # Safety
    ///
    /// As [`CastFn`], on a CPU running the level the converter was built for.
    #[inline]
    unsafe fn apply(&self, src: *const u8, dst: *mut u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe {
            match *self {
                Converter::Cast(f) => f(src, dst, n),
                Converter::Affine(f, scale, bias) => f(src, dst, n, scale, bias),
            }
        }
    }
}

/// A streaming copy out of a staging buffer, compiled for a level.
type FlushFn = unsafe fn(*const u8, *mut u8, usize);

fn flush_fn<A: Arch>() -> FlushFn {
    struct Job<A>(A, *const u8, *mut u8, usize);
    impl<A: Arch> NullaryFnOnce for Job<A> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(a, src, dst, bytes) = self;
            // SAFETY: forwarded from `entry`'s contract. The caller fences once after its last flush.
            unsafe { copy(a, src, dst, bytes, true) }
        }
    }
    /// # Safety
    ///
    /// `src..src+bytes` readable, `dst..dst+bytes` writable, not overlapping; the CPU runs level `A`.
    unsafe fn entry<A: Arch>(src: *const u8, dst: *mut u8, bytes: usize) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, src, dst, bytes))
    }
    entry::<A>
}

/// A converting row of a row kind (see the module documentation).
struct Staged<'a> {
    /// Gathers input elements into a contiguous buffer (input width); none when the input is contiguous.
    pre: Option<&'a dyn Rows>,
    /// Scatters converted elements from a contiguous buffer (output width); none when the output is contiguous.
    post: Option<&'a dyn Rows>,
    /// Broadcast: one element is converted and `post` repeats it.
    one: bool,
    row: RowConv,
}

/// What every converting row of a strategy shares.
#[derive(Clone, Copy)]
struct RowConv {
    convert: Converter,
    /// Streams the converted run out of its buffer when the output is contiguous and streaming is asked for.
    flush: Option<FlushFn>,
    len: usize,
    in_stride: isize,
    out_stride: isize,
    ow: usize,
    chunk: usize,
}

impl RowConv {
    fn with<'a>(self, pre: Option<&'a dyn Rows>, post: Option<&'a dyn Rows>, one: bool) -> Staged<'a> {
        let flush = if post.is_none() { self.flush } else { None };
        Staged { pre, post, one, row: RowConv { flush, ..self } }
    }
}

impl Rows for Staged<'_> {
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        let (mut s, mut d) = (src, dst);
        for _ in 0..count {
            // SAFETY: each row of the run is in bounds (Rows contract).
            unsafe { self.span(s, d, self.row.len) };
            s = s.wrapping_offset(in_step);
            d = d.wrapping_offset(out_step);
        }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, len: usize) {
        let r = &self.row;
        if self.pre.is_none() && self.post.is_none() && r.flush.is_none() {
            // Contiguous in both operands: one conversion of the whole span.
            // SAFETY: the span's elements are contiguous and in bounds in both operands (Rows contract).
            unsafe { r.convert.apply(src, dst, len) };
            return;
        }
        let (mut a, mut b) = (Scratch::new(), Scratch::new());
        let (scr_in, scr_out) = (a.ptr(), b.ptr());
        let mut j = 0;
        while j < len {
            let c = r.chunk.min(len - j);
            let s = src.wrapping_offset(j as isize * r.in_stride);
            let d = dst.wrapping_offset(j as isize * r.out_stride);
            // SAFETY: elements j..j+c of the row are in bounds (Rows contract); a chunk fits each buffer
            // (chunk · width ≤ SCRATCH_BYTES for both widths), the kernels were built for these strides, and the
            // converter for this level. The buffers never overlap the operands.
            unsafe {
                let from = match self.pre {
                    Some(pre) => {
                        pre.span(s, scr_in, c);
                        scr_in.cast_const()
                    }
                    None => s,
                };
                match (self.post, r.flush) {
                    (Some(post), _) => {
                        r.convert.apply(from, scr_out, if self.one { 1 } else { c });
                        post.span(scr_out, d, c);
                    }
                    (None, Some(flush)) => {
                        r.convert.apply(from, scr_out, c);
                        flush(scr_out, d, c * r.ow);
                    }
                    (None, None) => r.convert.apply(from, d, c),
                }
            }
            j += c;
        }
        #[cfg(target_arch = "x86_64")]
        if r.flush.is_some() && self.post.is_none() {
            // SAFETY: SSE is part of the x86-64 baseline. Non-temporal stores are weakly ordered: fence them before
            // the chunk reports completion to other threads.
            unsafe { core::arch::x86_64::_mm_sfence() };
        }
    }
}

/// A converting 2-D transpose: blocks of the input rows converted into a buffer, then transposed out of it.
struct StagedTranspose {
    convert: Converter,
    block: BlockFn,
    /// The folded dimension `I`: extent and input byte stride.
    ni: usize,
    si: isize,
    /// The output byte stride of the row dimension `J`.
    dj: isize,
    iw: usize,
    ow: usize,
    len: usize,
}

/// Input rows a staged transpose block has at least (one register tile).
const MIN_BLOCK_ROWS: usize = 8;

impl Rows for StagedTranspose {
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        let (mut s, mut d) = (src, dst);
        for _ in 0..count {
            // SAFETY: each row (block) of the run is in bounds (Rows contract).
            unsafe { self.span(s, d, self.len) };
            s = s.wrapping_offset(in_step);
            d = d.wrapping_offset(out_step);
        }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, nj: usize) {
        let mut buf = Scratch::new();
        let scr = buf.ptr();
        // Blocks of bi input rows × bj columns filling the buffer: at least 8 rows (a tile), as many as fit.
        let bj = nj.min(SCRATCH_BYTES / (MIN_BLOCK_ROWS * self.ow)).max(1);
        let bi = (SCRATCH_BYTES / (bj * self.ow)).min(self.ni).max(1);
        // PERF: when a block's input rows follow each other (NHWC pixels of C channels), one conversion call
        // covers the whole block instead of one per row of a few elements.
        let adjacent = bj == nj && self.si == (nj * self.iw) as isize;
        let mut j0 = 0;
        while j0 < nj {
            let cj = bj.min(nj - j0);
            let pitch = cj * self.ow;
            let mut i0 = 0;
            while i0 < self.ni {
                let ci = bi.min(self.ni - i0);
                // SAFETY: rows i0..i0+ci, columns j0..j0+cj are elements of the block (Rows contract); each input
                // run of cj elements is contiguous (the row dimension is the input's contiguous one), and with
                // `adjacent` the ci runs are one contiguous range; the buffer holds ci · cj output elements; the
                // block function is the level's.
                unsafe {
                    let first = src.wrapping_offset(i0 as isize * self.si + (j0 * self.iw) as isize);
                    if adjacent {
                        self.convert.apply(first, scr, ci * cj);
                    } else {
                        for i in 0..ci {
                            self.convert.apply(first.wrapping_offset(i as isize * self.si), scr.add(i * pitch), cj);
                        }
                    }
                    let d = dst.wrapping_offset((i0 * self.ow) as isize + j0 as isize * self.dj);
                    (self.block)(scr, pitch as isize, d, self.dj, ci, cj);
                }
                i0 += ci;
            }
            j0 += cj;
        }
    }
}

/// A converting planar move: pixels (or plane runs) converted into a buffer, then (de)interleaved out of it.
struct StagedPlanar<'a> {
    convert: Converter,
    planar: PlanarFn,
    tables: &'a Planar,
    /// The byte stride between planes on the planar side (input for interleave, output for deinterleave).
    ps: isize,
    iw: usize,
    ow: usize,
    len: usize,
}

impl Rows for StagedPlanar<'_> {
    unsafe fn rows(&self, src: *const u8, dst: *mut u8, count: usize, in_step: isize, out_step: isize) {
        let (mut s, mut d) = (src, dst);
        for _ in 0..count {
            // SAFETY: each row of the run is in bounds (Rows contract).
            unsafe { self.span(s, d, self.len) };
            s = s.wrapping_offset(in_step);
            d = d.wrapping_offset(out_step);
        }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, n: usize) {
        let mut buf = Scratch::new();
        let scr = buf.ptr();
        let p = self.tables.planes;
        let chunk = SCRATCH_BYTES / (p * self.ow);
        let mut j = 0;
        while j < n {
            let c = chunk.min(n - j);
            // SAFETY: pixels j..j+c of the row and of every plane are in bounds (Rows contract); pixels are
            // contiguous on the pixel side (p elements each) and plane runs contiguous on the planar side (the
            // strategy checked both); the buffer holds c · p output elements.
            unsafe {
                if self.tables.interleave {
                    for k in 0..p {
                        let s = src.wrapping_offset(k as isize * self.ps + (j * self.iw) as isize);
                        self.convert.apply(s, scr.add(k * c * self.ow), c);
                    }
                    (self.planar)(self.tables, scr, (c * self.ow) as isize, dst.add(j * p * self.ow), c);
                } else {
                    self.convert.apply(src.add(j * p * self.iw), scr, c * p);
                    (self.planar)(self.tables, scr, self.ps, dst.add(j * self.ow), c);
                }
            }
            j += c;
        }
    }
}

/// Builds `req` (if any) and calls `f` with it.
fn maybe<A: Arch>(a: A, req: Option<Request<'_>>, width: Width, len: usize, f: &mut dyn FnMut(Option<&dyn Rows>)) {
    match req {
        Some(req) => build(a, req, width, len, false, &mut |rows| f(Some(rows))),
        None => f(None),
    }
}

/// Calls `f` with the converting row kernel of `strategy` at level `a`.
pub(super) fn build_staged<A: Arch>(a: A, strategy: &Strategy, stream: bool, f: &mut dyn FnMut(&dyn Rows)) {
    let op = strategy.op();
    let (iw, ow) = (op.in_width(), op.out_width());
    let convert = Converter::of::<A>(op);
    let width = |bytes| Width::from_bytes(bytes).expect("element types are 1, 2, 4 or 8 bytes wide");
    let (in_width, out_width) = (width(iw), width(ow));
    let g = strategy.geometry();
    let row = g.row();
    let len = row.extent;
    let chunk = SCRATCH_BYTES / iw.max(ow);
    let rc = RowConv {
        convert,
        flush: stream.then(flush_fn::<A>),
        len,
        in_stride: row.in_stride,
        out_stride: row.out_stride,
        ow,
        chunk,
    };
    let fold = || g.fold().expect("Strategy::choose pairs the transposing kinds with a folded dimension");
    match strategy.movement() {
        Movement::Copy => f(&rc.with(None, None, false)),
        Movement::Reverse(lanes) => {
            maybe(a, Some(Request::Reverse(lanes)), in_width, len, &mut |pre| f(&rc.with(pre, None, false)))
        }
        Movement::Gather { stride, lanes } => {
            maybe(a, Some(Request::Gather { stride: *stride, lanes }), in_width, len, &mut |pre| {
                f(&rc.with(pre, None, false))
            })
        }
        Movement::Broadcast => {
            maybe(a, Some(Request::Broadcast), out_width, len, &mut |post| f(&rc.with(None, post, true)))
        }
        Movement::Strided => {
            let pre = (row.in_stride != iw as isize)
                .then_some(Request::Strided { in_stride: row.in_stride, out_stride: iw as isize });
            let post = (row.out_stride != ow as isize)
                .then_some(Request::Strided { in_stride: ow as isize, out_stride: row.out_stride });
            maybe(a, pre, in_width, len, &mut |pre| {
                maybe(a, post, out_width, len, &mut |post| f(&rc.with(pre, post, false)))
            })
        }
        Movement::Table => {
            let t = g.table().expect("Strategy::choose pairs the table kind with a table");
            let post = (!t.contiguous()).then_some(Request::TableScatter(t.pairs()));
            maybe(a, Some(Request::TableGather(t.inputs())), in_width, len, &mut |pre| {
                maybe(a, post, out_width, len, &mut |post| f(&rc.with(pre, post, false)))
            })
        }
        Movement::Transpose(tile) => {
            let i = fold();
            f(&StagedTranspose {
                convert,
                block: block_fn::<A>(*tile),
                ni: i.extent,
                si: i.in_stride,
                dj: row.out_stride,
                iw,
                ow,
                len,
            })
        }
        Movement::Interleave(tables) | Movement::Deinterleave(tables) => {
            let ps = if tables.interleave { fold().in_stride } else { fold().out_stride };
            f(&StagedPlanar { convert, planar: planar_fn::<A>(ow), tables, ps, iw, ow, len })
        }
    }
}
