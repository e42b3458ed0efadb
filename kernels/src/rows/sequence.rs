//! Sequence rows (`DML_FILL_VALUE_SEQUENCE`): each element's value is computed from its index, which the walk
//! addresses as its input (the "input pointer" of a row is its first index, never dereferenced). Values are made in
//! 64 bits — wrapping integers, or f64 as `start + i·delta` in closed form — into a staging buffer, converted to the
//! output type by the generated casts, and written contiguously (streamed where asked), or scattered for a strided
//! output.

use pulp::NullaryFnOnce;

use super::staged::{Scratch, Unfenced, fenced, span_by_span};
use super::{Request, Rows, build};
use crate::arch::Arch;
use crate::convert::{CastFn, ElemType, cast_fn, sequence_in_f64};
use crate::params::SCRATCH_BYTES;
use crate::plan::ElementOp;
use crate::strategy::Strategy;
use crate::width::Width;

/// 64-bit values of `n` consecutive elements into `dst` (8-byte slots): element `k` has index `i0 + k·step`.
/// Integers: `start + index·delta` wrapping; floats (bits of f64 `start` and `delta`): the closed form in f64.
///
/// # Safety (of calling one)
///
/// `dst..dst + 8n` writable; the function's level runs on this CPU.
type GenFn = unsafe fn(dst: *mut u8, n: usize, i0: u64, step: u64, start: u64, delta: u64);

/// Lanes generated per step of the f64 loop (straight-line code the compiler turns into registers).
const LANES: usize = 8;

/// The integer generator: `v₀ + k·inc` with `v₀ = start + i0·delta` and `inc = step·delta` is the closed form in
/// wrapping arithmetic (a ring), and a loop the compiler vectorizes as an induction.
///
/// # Safety
///
/// As [`GenFn`], inside the level's target features.
#[inline(always)]
unsafe fn wrapping(dst: *mut u8, n: usize, i0: u64, step: u64, start: u64, delta: u64) {
    let v0 = start.wrapping_add(i0.wrapping_mul(delta));
    let inc = step.wrapping_mul(delta);
    let d = dst.cast::<u64>();
    let mut v = v0;
    for k in 0..n {
        // SAFETY: slot k of the n writable slots.
        unsafe { d.add(k).write_unaligned(v) };
        v = v.wrapping_add(inc);
    }
}

/// The float generator: `start + (i0 + k·step)·delta`, a product then a sum, each rounded in f64. The index is
/// exact in f64 below 2^53 (`i0`, `k·step` and their sum), so this is the scalar closed form element by element.
///
/// # Safety
///
/// As [`GenFn`], inside the level's target features.
#[inline(always)]
unsafe fn closed_form(dst: *mut u8, n: usize, i0: u64, step: u64, start: u64, delta: u64) {
    let (start, delta) = (f64::from_bits(start), f64::from_bits(delta));
    // The step is signed (a plan may walk indices backwards); every index itself is below 2^63.
    let stepf = step as i64 as f64;
    let offsets: [f64; LANES] = core::array::from_fn(|l| l as f64 * stepf);
    let d = dst.cast::<f64>();
    let mut k = 0;
    let mut base = i0 as f64;
    let advance = LANES as f64 * stepf;
    // PERF: eight independent lanes per step (the compiler keeps them in registers); the index of each lane is
    // exact, so no rounding differs from the scalar formula. The base advances by a floating-point sum (exact:
    // whole numbers below 2^53, as every index of a buffer is): a base recomputed from `k` let the compiler also
    // vectorize across steps, storing each lane with a `vscatterqpd` — microcoded on AMD, 2.9x slower (f32 16 MiB,
    // one thread, Zen 4, at the AVX-512 VBMI level: 2.66 ms against 0.92 at AVX-512).
    while k + LANES <= n {
        let mut v = [0f64; LANES];
        for l in 0..LANES {
            v[l] = start + (base + offsets[l]) * delta;
        }
        // SAFETY: slots k..k+LANES of the n writable slots.
        unsafe { d.add(k).cast::<[f64; LANES]>().write_unaligned(v) };
        k += LANES;
        base += advance;
    }
    while k < n {
        let index = i0.wrapping_add((k as u64).wrapping_mul(step)) as f64;
        // SAFETY: slot k of the n writable slots.
        unsafe { d.add(k).write_unaligned(start + index * delta) };
        k += 1;
    }
}

/// The generator of `float` (f64) or integer sequences compiled for level `A`.
fn gen_fn<A: Arch>(float: bool) -> GenFn {
    struct Job<A>(A, bool, *mut u8, usize, [u64; 4]);
    impl<A: Arch> NullaryFnOnce for Job<A> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(_, float, dst, n, [i0, step, start, delta]) = self;
            // SAFETY: forwarded from `entry`'s contract.
            unsafe {
                if float {
                    closed_form(dst, n, i0, step, start, delta)
                } else {
                    wrapping(dst, n, i0, step, start, delta)
                }
            }
        }
    }
    /// # Safety
    ///
    /// As [`GenFn`]; the CPU runs level `A`.
    unsafe fn entry<A: Arch, const FLOAT: bool>(dst: *mut u8, n: usize, i0: u64, step: u64, start: u64, delta: u64) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, FLOAT, dst, n, [i0, step, start, delta]))
    }
    if float { entry::<A, true> } else { entry::<A, false> }
}

/// A sequence's rows: generate a chunk of 64-bit values, convert it, write it.
#[derive(Clone, Copy)]
struct SequenceRows<'a> {
    generate: GenFn,
    /// 64-bit values to the output type (`None`: the values are the output's own: u64, i64, f64).
    convert: Option<CastFn>,
    start: u64,
    delta: u64,
    /// The index step between consecutive elements of a row.
    step: u64,
    /// Scatters a converted chunk into a strided output row.
    post: Option<&'a dyn Rows>,
    /// Streams a converted chunk into a contiguous output row.
    flush: Option<super::staged::FlushFn>,
    len: usize,
    out_stride: isize,
    ow: usize,
}

impl Rows for SequenceRows<'_> {
    unsafe fn rows(
        &self,
        src: *const u8,
        dst: *mut u8,
        aux: *const u8,
        count: usize,
        in_step: isize,
        out_step: isize,
        aux_step: isize,
    ) {
        // SAFETY: each row of the run is in bounds (Rows contract).
        unsafe { span_by_span(self, src, dst, aux, count, (in_step, out_step, aux_step), self.len) }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { fenced(self, src, dst, aux, len) }
    }
}

impl Unfenced for SequenceRows<'_> {
    fn streams(&self) -> bool {
        self.flush.is_some()
    }

    unsafe fn span_unfenced(&self, src: *const u8, dst: *mut u8, _aux: *const u8, len: usize) {
        // The row's first index: its "input address" (the walk proved every index of the row below the output's
        // element count); never dereferenced.
        let i0 = src as usize as u64;
        let chunk = SCRATCH_BYTES / 8;
        let (mut wide, mut narrow) = (Scratch::new(), Scratch::new());
        let (w, n) = (wide.ptr(), narrow.ptr());
        let direct = self.convert.is_none() && self.post.is_none() && self.flush.is_none();
        let mut j = 0;
        while j < len {
            let c = chunk.min(len - j);
            let first = i0.wrapping_add((j as u64).wrapping_mul(self.step));
            let d = dst.wrapping_offset(j as isize * self.out_stride);
            // SAFETY: elements j..j+c of the row are in bounds of the output (Rows contract); a chunk of 64-bit
            // values fits each buffer; the functions were compiled for the level this runs on.
            unsafe {
                if direct {
                    (self.generate)(d, c, first, self.step, self.start, self.delta);
                    j += c;
                    continue;
                }
                (self.generate)(w, c, first, self.step, self.start, self.delta);
                let values = match self.convert {
                    Some(convert) if self.post.is_none() && self.flush.is_none() => {
                        convert(w, d, c);
                        j += c;
                        continue;
                    }
                    Some(convert) => {
                        convert(w, n, c);
                        n.cast_const()
                    }
                    None => w.cast_const(),
                };
                match (self.post, self.flush) {
                    (Some(post), _) => post.span(values, d, core::ptr::null(), c),
                    (None, Some(flush)) => flush(values, d, c * self.ow),
                    (None, None) => core::ptr::copy_nonoverlapping(values, d, c * self.ow),
                }
            }
            j += c;
        }
    }
}

/// Calls `f` with the sequence row kernel of `strategy` (a sequence's) at level `a`.
pub(super) fn build_sequence<A: Arch>(a: A, strategy: &Strategy, stream: bool, f: &mut dyn FnMut(&dyn Rows)) {
    let ElementOp::Sequence { ty, start, delta } = *strategy.op() else {
        unreachable!("build_sequence is called for sequences only")
    };
    let float = sequence_in_f64(ty);
    let wide = if float { ElemType::F64 } else { ElemType::U64 };
    let own = matches!(ty, ElemType::F64 | ElemType::U64 | ElemType::I64);
    let row = strategy.geometry().row();
    let ow = ty.width();
    // Indices step by the row's input stride (in indices: a sequence's input width is 1).
    let step = row.in_stride as u64;
    let rows = SequenceRows {
        generate: gen_fn::<A>(float),
        convert: (!own).then(|| cast_fn::<A::Base>(wide, ty)),
        start,
        delta,
        step,
        post: None,
        flush: None,
        len: row.extent,
        out_stride: row.out_stride,
        ow,
    };
    if row.out_stride == ow as isize {
        let flush = stream.then(super::staged::flush_fn::<A>);
        return f(&SequenceRows { flush, ..rows });
    }
    let width = Width::from_bytes(ow).expect("element types are 1, 2, 4 or 8 bytes wide");
    let scatter = Request::Strided { in_stride: ow as isize, out_stride: row.out_stride, lanes: None };
    build(a, scatter, width, row.extent, false, &mut |post| f(&SequenceRows { post: Some(post), ..rows }));
}
