//! Converting rows: the copy kernels composed with a conversion through small staging buffers (L1-resident), so
//! every layout a copy handles converts in one pass over memory with only a few contiguous conversion kernels.
//!
//! - Row kinds: input elements are gathered into a contiguous buffer by the copy kernel of the *input* width (none
//!   when the input is contiguous), converted into the output or into a second buffer, and scattered by the copy
//!   kernel of the *output* width (none when the output is contiguous).
//! - Transposes: input runs (contiguous along the row) are converted into a buffer, then transposed out of it by
//!   the kernel of the *output* width; or, for outputs at least as wide as the inputs in walks the cache holds,
//!   input blocks are transposed into the buffer by the kernel of the *input* width and each buffer row converted
//!   into its output row (see `transposes_first`).
//! - Planes: a deinterleave moves the (input-width) pixels into planes in a buffer and converts each plane run into
//!   the output; an interleave converts each plane run into a buffer and interleaves the output-width elements.
//! - Windows: one-byte elements or pixels read mirrored, channel-reversed, out of wider slots or subsampled into a
//!   contiguous output skip the input buffer where the level has the kernel ([`Windowed`]): blocks of 16 are read
//!   in order straight into registers and converted, the rows' last few through the buffer.
//!
//! A normalization reads its `(scale, bias)` pairs through the auxiliary pointer: constant along a run (stride 0)
//! or one pair per element.

use core::mem::MaybeUninit;

use pulp::NullaryFnOnce;

use super::planar::{PlanarFn, planar_fn};
use super::transpose::{self, BlockFn, Stores, block_fn};
use super::{Ahead, Request, Rows, build, lead_bytes};
use crate::arch::{AffineF16, AffineF32, Arch, copy, line_elements, to_line};
use crate::convert::{AffineFn, AffineVarFn, CastFn, ElemType, affine_fn, affine_var_fn, cast_fn, nearest_fn};
use crate::float::f32_to_f16_scalar;
use crate::fused::{FloatNorm, FusedConvert, Norm, NormType, RowRun, Span, WindowPairs};
use crate::params::{BLOCK, SCRATCH_BYTES, TABLE_MAX};
use crate::plan::ElementOp;
use crate::strategy::{InterleaveFirst, Movement, PixelRead, Strategy, TileWidth};
use crate::tables::{Periodic, PixelWindows, Planar};
use crate::width::Width;

/// A staging buffer on the stack, aligned for streaming copies out of it.
/// Uninitialized: every user writes a chunk before reading it (zeroing two of them cost a 16 KiB `memset` per row,
/// which left a sequence into 1 KiB rows at 3.4 ms for 16 MiB).
#[repr(C, align(64))]
pub(super) struct Scratch([MaybeUninit<u8>; SCRATCH_BYTES]);

impl Scratch {
    pub(super) fn new() -> Scratch {
        Scratch([MaybeUninit::uninit(); SCRATCH_BYTES])
    }

    pub(super) fn ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr().cast()
    }
}

/// Bytes of one `(scale, bias)` pair.
const PAIR: isize = core::mem::size_of::<[f32; 2]>() as isize;

/// The conversion of contiguous runs, compiled for the walk's level.
#[derive(Clone, Copy)]
enum Converter {
    Cast(CastFn),
    Affine(AffineFn, f32, f32),
    /// Widen to f32, `x·scale + bias` with the run's parameters, convert rounding to nearest; `sw`/`dw` are the
    /// element widths. The types the levels normalize in registers (u8, i8, f16 and f32 into any of them) go
    /// through `fused` first, the rest of the run (and other types) through an f32 buffer.
    Normalize {
        to_f32: CastFn,
        affine: AffineFn,
        affine_var: AffineVarFn,
        from_f32: CastFn,
        sw: usize,
        dw: usize,
        fused: Option<(NormFn, NormPeriodicFn, Norm)>,
    },
}

/// The types a normalization in registers takes: u8, i8, f16 and f32.
fn norm_type(t: ElemType) -> Option<NormType> {
    match t {
        ElemType::F32 => Some(NormType::F32),
        ElemType::F16 => Some(NormType::F16),
        ElemType::U8 => Some(NormType::U8),
        ElemType::I8 => Some(NormType::I8),
        _ => None,
    }
}

/// The types of a normalization the levels take in registers: u8, i8, f16 and f32 into any of them.
fn norm_kind(op: &ElementOp) -> Option<Norm> {
    match *op {
        ElementOp::Normalize { from, to } => Some(Norm { from: norm_type(from)?, out: norm_type(to)? }),
        _ => None,
    }
}

/// The cast of `u8` (or `i8` with `SIGNED`) into f16 at level `A`: the level's fused byte normalization with scale
/// 1 and bias 0 — `x·1 + 0` is `x` exactly, and every byte is exact in f16, so the results are the cast's — in
/// registers (on AVX-512 VBMI through its table of the 256 results), the rest through the generated route (widen
/// to f32, then round).
///
/// PERF: one thread, Zen 4 (VBMI), u8 → f16 through the generated route → this: 3 × 224² (L2) 9.1 → 4.9–6.9 µs,
/// 8 × 3 × 224² 74–105 → 44–52 µs, 1800 elements 171 → 155 ns; NHWC → NCHW (plane runs) 3 × 224² 12.1 → 10.5 µs.
fn bytes_to_f16_fn<A: Arch, const SIGNED: bool>() -> CastFn {
    // PERF: one entry into the level's target features for both steps rather than `norm_fn`'s entry and then
    // the route's: a cast of 1800 elements ran 247–266 ns with two entries, 148–234 ns with one (that case runs at
    // two speeds on the project's VM, so this is no more than "not worse").
    struct Job<A, const SIGNED: bool>(A, *const u8, *mut u8, usize);
    impl<A: Arch, const SIGNED: bool> NullaryFnOnce for Job<A, SIGNED> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(a, src, dst, n) = self;
            let k = Norm { from: if SIGNED { NormType::I8 } else { NormType::U8 }, out: NormType::F16 };
            // SAFETY: forwarded from `entry`'s contract: n bytes at src, n f16 at dst; the rest from element i.
            unsafe {
                let i = a.normalize_run(k, Span { src, dst, n, stream: false }, 1.0, 0.0);
                let from = if SIGNED { ElemType::I8 } else { ElemType::U8 };
                cast_fn::<A::Base>(from, ElemType::F16)(src.add(i), dst.add(2 * i), n - i);
            }
        }
    }
    /// # Safety
    ///
    /// As [`CastFn`]; the CPU runs level `A`.
    unsafe fn entry<A: Arch, const SIGNED: bool>(src: *const u8, dst: *mut u8, n: usize) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job::<A, SIGNED>(a, src, dst, n))
    }
    entry::<A, SIGNED>
}

/// [`Arch::normalize_run`] compiled for a level.
type NormFn = unsafe fn(Norm, Span, f32, f32) -> usize;

fn norm_fn<A: Arch>() -> NormFn {
    struct Job<A>(A, Norm, Span, f32, f32);
    impl<A: Arch> NullaryFnOnce for Job<A> {
        type Output = usize;
        #[inline(always)]
        fn call(self) -> usize {
            let Job(a, k, s, scale, bias) = self;
            // SAFETY: forwarded from `entry`'s contract.
            unsafe { a.normalize_run(k, s, scale, bias) }
        }
    }
    /// # Safety
    ///
    /// As [`Arch::normalize_run`]; the CPU runs level `A`.
    unsafe fn entry<A: Arch>(k: Norm, s: Span, scale: f32, bias: f32) -> usize {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, k, s, scale, bias))
    }
    entry::<A>
}

/// [`Arch::normalize_periodic`] compiled for a level.
type NormPeriodicFn = unsafe fn(Norm, Span, &Periodic, usize) -> usize;

fn norm_periodic_fn<A: Arch>() -> NormPeriodicFn {
    struct Job<'a, A>(A, Norm, Span, &'a Periodic, usize);
    impl<A: Arch> NullaryFnOnce for Job<'_, A> {
        type Output = usize;
        #[inline(always)]
        fn call(self) -> usize {
            let Job(a, k, s, p, phase) = self;
            // SAFETY: forwarded from `entry`'s contract.
            unsafe { a.normalize_periodic(k, s, p, phase) }
        }
    }
    /// # Safety
    ///
    /// As [`Arch::normalize_periodic`]; the CPU runs level `A`.
    unsafe fn entry<A: Arch>(k: Norm, s: Span, p: &Periodic, phase: usize) -> usize {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, k, s, p, phase))
    }
    entry::<A>
}

/// The normalization of one-byte integers that `op` is, if any: a normalization of them, or their cast into floats
/// as a normalization with scale 1 and bias 0 (`x·1 + 0` is `x` exactly, and exact in f16 and f32; not into the
/// other one-byte type: that cast wraps, where a normalization saturates). `Some((_, true))` for a cast.
fn byte_norm(op: &ElementOp) -> Option<(Norm, bool)> {
    match *op {
        ElementOp::Cast { from, to } => {
            let k = Norm { from: norm_type(from)?, out: norm_type(to)? };
            (k.bytes() && matches!(k.out, NormType::F32 | NormType::F16)).then_some((k, true))
        }
        _ => norm_kind(op).filter(|k| k.bytes()).map(|k| (k, false)),
    }
}

/// The kernel [`Arch::deinterleave_convert`] has for `op` on pixels of `width`-byte elements, if any: one-byte
/// integers as [`byte_norm`] says (a cast with [`StagedPlanar::run_fused`]'s scale 1 and bias 0).
fn fused_convert(op: &ElementOp, width: usize) -> Option<FusedConvert> {
    match (width, *op) {
        // (Into one-byte integers, the levels' kernels take only parameters whose results fit i32, and leave the
        // rest to the buffer.)
        (1, _) => byte_norm(op).map(|(k, _)| FusedConvert::Bytes(k)),
        // (Scale/bias of f32: the normalization's arithmetic, product then sum, with its one pair for every plane.)
        (4, ElementOp::ScaleBias { ty: ElemType::F32, .. }) => {
            Some(FusedConvert::Floats(FloatNorm { affine: true, f16: false }))
        }
        (4, ElementOp::Cast { from: ElemType::F32, to: ElemType::F16 }) => {
            Some(FusedConvert::Floats(FloatNorm { affine: false, f16: true }))
        }
        (4, ElementOp::Normalize { from: ElemType::F32, to: to @ (ElemType::F16 | ElemType::F32) }) => {
            Some(FusedConvert::Floats(FloatNorm { affine: true, f16: to == ElemType::F16 }))
        }
        _ => None,
    }
}

/// [`Arch::deinterleave_convert`] compiled for a level.
type FusedFn = unsafe fn(FusedConvert, &Planar, Span, isize, &[[f32; 2]; 4], RowRun) -> usize;

fn fused_fn<A: Arch>() -> FusedFn {
    struct Job<'a, A>(A, FusedConvert, &'a Planar, Span, isize, &'a [[f32; 2]; 4], RowRun);
    impl<A: Arch> NullaryFnOnce for Job<'_, A> {
        type Output = usize;
        #[inline(always)]
        fn call(self) -> usize {
            let Job(a, k, t, s, ps, params, rows) = self;
            // SAFETY: forwarded from `entry`'s contract.
            unsafe { a.deinterleave_convert(k, t, s, ps, params, rows) }
        }
    }
    /// # Safety
    ///
    /// As [`Arch::deinterleave_convert`]; the CPU runs level `A`.
    unsafe fn entry<A: Arch>(
        k: FusedConvert,
        t: &Planar,
        s: Span,
        ps: isize,
        params: &[[f32; 2]; 4],
        rows: RowRun,
    ) -> usize {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, k, t, s, ps, params, rows))
    }
    if A::ISA == crate::arch::Isa::Scalar { scalar_deinterleave_normalize } else { entry::<A> }
}

/// [`Arch::convert_windows`] compiled for a level.
type WindowFn = unsafe fn(Norm, &PixelWindows, Span, RowRun, WindowPairs<'_>) -> usize;

fn window_fn<A: Arch>() -> WindowFn {
    struct Job<'a, A>(A, Norm, &'a PixelWindows, Span, RowRun, WindowPairs<'a>);
    impl<A: Arch> NullaryFnOnce for Job<'_, A> {
        type Output = usize;
        #[inline(always)]
        fn call(self) -> usize {
            let Job(a, k, w, s, rows, pairs) = self;
            // SAFETY: forwarded from `entry`'s contract.
            unsafe { a.convert_windows(k, w, s, rows, pairs) }
        }
    }
    /// # Safety
    ///
    /// As [`Arch::convert_windows`]; the CPU runs level `A`.
    unsafe fn entry<A: Arch>(k: Norm, w: &PixelWindows, s: Span, rows: RowRun, pairs: WindowPairs<'_>) -> usize {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, k, w, s, rows, pairs))
    }
    entry::<A>
}

/// The pixels of a [`StagedPixels`] row, or the elements of a [`Staged`] row, read through [`PixelWindows`] by the
/// level's kernel ([`Arch::convert_windows`]).
struct Windowed<'a> {
    f: WindowFn,
    k: Norm,
    w: &'a PixelWindows,
    /// A cast (scale 1, bias 0), else a normalization: its pattern, or the rows' one pair.
    cast: bool,
    pattern: Option<&'a Periodic>,
    /// Non-temporal stores asked for (the row kernel's `flush`).
    stream: bool,
    /// Bytes per output element.
    ow: usize,
}

impl<'a> Windowed<'a> {
    /// The windowed read of `op` through `w` at level `A` (pairs from `pattern` if any, streamed with `stream`, into
    /// `ow`-byte elements), if the level has the kernel (the portable level has none) and the conversion is one it
    /// takes ([`byte_norm`]).
    fn of<A: Arch>(
        op: &ElementOp,
        w: Option<&'a PixelWindows>,
        pattern: Option<&'a Periodic>,
        stream: bool,
        ow: usize,
    ) -> Option<Windowed<'a>> {
        let (k, cast) = byte_norm(op).filter(|_| A::ISA != crate::arch::Isa::Scalar)?;
        Some(Windowed { f: window_fn::<A>(), k, w: w?, cast, pattern, stream, ow })
    }

    /// Converts the whole blocks of 16 pixels of each row of `rows` (from pixel 0, `len` pixels a row) through the
    /// windows, the pairs from the pattern, else one pair for all at `aux` (a cast: scale 1, bias 0); streamed in
    /// whole 64-byte lines from line-aligned rows, else not at all. Returns the pixels done in each row.
    ///
    /// # Safety
    ///
    /// As [`Rows::rows`] for rows of `len` pixels at `src` whose outputs are contiguous from `dst`, each
    /// `rows.in_step` / `rows.out_step` bytes after the previous, read as the windows were built for; without a
    /// pattern, a normalization's one pair at `aux` for all of them.
    unsafe fn run(&self, (src, dst, aux): (*const u8, *mut u8, *const u8), len: usize, rows: RowRun) -> usize {
        let mut blocks = len / 16;
        if self.stream {
            let aligned = |x: usize| x.is_multiple_of(64);
            if !aligned(dst as usize) || (rows.count > 1 && !aligned(rows.out_step.unsigned_abs())) {
                return 0;
            }
            // Blocks per whole number of lines.
            let bytes = 16 * self.w.channels * self.ow;
            blocks -= blocks % (64 >> bytes.trailing_zeros().min(6));
        }
        let pairs = match (self.cast, self.pattern) {
            (true, _) => WindowPairs::One(1.0, 0.0),
            (false, Some(p)) => WindowPairs::Pattern(p),
            (false, None) => {
                // SAFETY: the rows' one pair (contract).
                let [scale, bias] = unsafe { aux.cast::<[f32; 2]>().read_unaligned() };
                WindowPairs::One(scale, bias)
            }
        };
        // SAFETY: blocks of 16 of each row's pixels from pixel 0, read as the windows were built for, whose outputs
        // follow each other from the row's `dst`; streamed only into 64-byte aligned rows.
        16 * unsafe { (self.f)(self.k, self.w, Span { src, dst, n: blocks, stream: self.stream }, rows, pairs) }
    }

    /// The `count` rows of a run (`steps`: input, output and pair bytes from a row to the next; the pairs the same
    /// for all) through the windows in one call, then each row's pixels from the first not done through `rest`;
    /// `false`, nothing done, when the windows took none. The caller fences.
    ///
    /// # Safety
    ///
    /// As [`Windowed::run`] for the rows; `rest(src, dst, aux, from)` moves pixels `from..len` of the row at `src`.
    unsafe fn rows(
        &self,
        (src, dst, aux): (*const u8, *mut u8, *const u8),
        len: usize,
        count: usize,
        (in_step, out_step, aux_step): (isize, isize, isize),
        rest: impl Fn(*const u8, *mut u8, *const u8, usize),
    ) -> bool {
        // SAFETY: forwarded contract.
        let done = unsafe { self.run((src, dst, aux), len, RowRun { count, in_step, out_step }) };
        if done == 0 {
            return false;
        }
        // (Rows done whole skip `rest`: its set-up was a third of a 128-element row's instructions.)
        for r in (0..count as isize).filter(|_| done < len) {
            let at = |p: *const u8, step: isize| p.wrapping_offset(r * step);
            rest(at(src, in_step), dst.wrapping_offset(r * out_step), at(aux, aux_step), done);
        }
        true
    }
}

/// The portable level's fused deinterleave of one-byte pixels: each output element read, widened, scaled, offset
/// and converted directly (one pass, no buffer); returns `n` (0 for f32 pixels, and for plane counts other than 2
/// to 4: the buffered path).
///
/// PERF: the output type fixed per loop, and the signedness, the channels' order and the pixels' direction read
/// once, where one loop tested them all for every element (~20 instructions an element): `--isa scalar`, one
/// thread, callgrind: u8 NHWC → f32 NCHW 32×224²×3 96.8 → 50.8 M instructions a call, → f16 NCHW 187 → 146 M,
/// the mirrored BGR 1080p crop into f32 planes 63.2 → 33.2 M. (A loop per plane count too, and per sign: 35.5 M for
/// the first, for 87 KB of code instead of 18 KB.)
///
/// # Safety
///
/// As [`Arch::deinterleave_convert`] (nothing but plain loads and stores).
unsafe fn scalar_deinterleave_normalize(
    k: FusedConvert,
    t: &Planar,
    s: Span,
    ps: isize,
    params: &[[f32; 2]; 4],
    rows: RowRun,
) -> usize {
    // (f32 pixels: the buffered path, whose conversions are the portable ones.)
    let FusedConvert::Bytes(k) = k else { return 0 };
    let run = (k.signed(), t, s, ps, params, rows);
    // SAFETY: forwarded contract; each store writes one element of a plane, in bounds (contract).
    unsafe {
        match k.out {
            NormType::F16 => norm_planes::<2>(run, |p, y| p.cast::<u16>().write_unaligned(f32_to_f16_scalar(y))),
            NormType::F32 => norm_planes::<4>(run, |p, y| p.cast::<f32>().write_unaligned(y)),
            // (The casts' rule: nearest even, saturated.)
            NormType::U8 => norm_planes::<1>(run, |p, y| p.write(y.round_ties_even() as u8)),
            NormType::I8 => norm_planes::<1>(run, |p, y| p.cast::<i8>().write(y.round_ties_even() as i8)),
        }
    }
}

/// [`scalar_deinterleave_normalize`] into `W`-byte outputs stored by `store`: `s.n`, or 0 for plane counts other
/// than 2 to 4.
///
/// # Safety
///
/// As [`scalar_deinterleave_normalize`]; `store(p, y)` writes one output element at `p`.
#[inline(always)]
unsafe fn norm_planes<const W: usize>(
    (signed, t, s, ps, params, rows): (bool, &Planar, Span, isize, &[[f32; 2]; 4], RowRun),
    store: impl Fn(*mut u8, f32),
) -> usize {
    let Span { src, dst, n, .. } = s;
    let p = t.planes;
    if !(2..=4).contains(&p) {
        return 0;
    }
    // (`Planar::pixel` and `Planar::channel` with their fields read once, outside the loops.)
    let channels: [usize; 4] = core::array::from_fn(|c| t.channel(c.min(p - 1)));
    let planes: [isize; 4] = core::array::from_fn(|c| c as isize * ps);
    // An i8 pixel `b as i8` is `(b ^ 0x80) − 128`, exact in f32: one form for both signs, no test per element.
    let (flip, offset) = if signed { (0x80u8, 128.0f32) } else { (0, 0.0) };
    for r in 0..rows.count as isize {
        let (s, d) = (src.wrapping_offset(r * rows.in_step), dst.wrapping_offset(r * rows.out_step));
        let pixels = t.steps(s, 1, t.slots.wrapping_mul(t.width));
        for j in 0..n {
            let pixel = pixels.at(j);
            for c in 0..p {
                let [scale, bias] = params[c];
                // SAFETY: channel t.channel(c) of output pixel j, in bounds (contract).
                let b = unsafe { *pixel.add(channels[c]) };
                let x = f32::from(b ^ flip) - offset;
                store(d.wrapping_offset(planes[c]).wrapping_add(j * W), x * scale + bias);
            }
        }
    }
    n
}

impl Converter {
    /// The conversion of `op` at level `A`: casts and scale/bias compiled for `A::Base` (VBMI changes none of them:
    /// its own conversions start from one-byte inputs, which casts take through `bytes_to_f16_fn` and Normalize
    /// through `norm_fn`), the fused normalizations for `A`.
    fn of<A: Arch>(op: &ElementOp) -> Converter {
        match *op {
            ElementOp::Cast { from, to } => Converter::Cast(match (from, to) {
                (ElemType::U8, ElemType::F16) => bytes_to_f16_fn::<A, false>(),
                (ElemType::I8, ElemType::F16) => bytes_to_f16_fn::<A, true>(),
                _ => cast_fn::<A::Base>(from, to),
            }),
            ElementOp::ScaleBias { ty, scale, bias } => Converter::Affine(
                affine_fn::<A::Base>(ty).expect("Walk::new admits scale/bias of float types only"),
                scale,
                bias,
            ),
            ElementOp::Normalize { from, to } => Converter::Normalize {
                to_f32: cast_fn::<A::Base>(from, ElemType::F32),
                affine: affine_fn::<A::Base>(ElemType::F32).expect("f32 is a float type"),
                affine_var: affine_var_fn::<A::Base>(),
                from_f32: nearest_fn::<A::Base>(to),
                sw: from.width(),
                dw: to.width(),
                fused: norm_kind(op).map(|k| (norm_fn::<A>(), norm_periodic_fn::<A>(), k)),
            },
            ElementOp::Copy { .. } => unreachable!("with_rows sends copies to the copy kernels"),
            ElementOp::Sequence { .. } => unreachable!("build_staged sends sequences to their own rows"),
        }
    }

    /// Converts `n` contiguous elements; a normalization reads the pair of element `i` at `aux + i·aux_step`.
    ///
    /// # Safety
    ///
    /// As [`CastFn`], on a CPU running the level the converter was built for; for a normalization, every pair read
    /// lies in the parameter table.
    unsafe fn apply(&self, src: *const u8, dst: *mut u8, n: usize, aux: *const u8, aux_step: isize) {
        // SAFETY: forwarded contract.
        unsafe {
            match *self {
                Converter::Cast(f) => f(src, dst, n),
                Converter::Affine(f, scale, bias) => f(src, dst, n, scale, bias),
                Converter::Normalize { to_f32, affine, affine_var, from_f32, sw, dw, fused } => {
                    // (Uninitialized: each block's elements are written before they are read. Zeroing it was
                    // a 1 KiB memset per call: 92 of the 1057 instructions of a 64-pixel row, AVX2.)
                    let mut buf = core::mem::MaybeUninit::<[f32; BLOCK]>::uninit();
                    let b = buf.as_mut_ptr().cast::<u8>();
                    let constant = (aux_step == 0).then(|| aux.cast::<[f32; 2]>().read_unaligned());
                    // In registers as far as the level goes, the rest through the buffer.
                    let mut i = match (fused, constant) {
                        (Some((f, _, k)), Some([scale, bias])) => {
                            f(k, Span { src, dst, n, stream: false }, scale, bias)
                        }
                        _ => 0,
                    };
                    while i < n {
                        let c = (n - i).min(BLOCK);
                        to_f32(src.add(i * sw), b, c);
                        match constant {
                            Some([scale, bias]) => affine(b, b, c, scale, bias),
                            None => affine_var(b, c, aux.wrapping_offset(i as isize * aux_step), aux_step),
                        }
                        from_f32(b, dst.add(i * dw), c);
                        i += c;
                    }
                }
            }
        }
    }

    /// Converts `n` contiguous elements, a normalization taking the pair of element `i` from `pattern` at
    /// `phase + i` (elements without parameters convert as [`Converter::apply`] does).
    ///
    /// # Safety
    ///
    /// As [`CastFn`], on a CPU running the level the converter was built for.
    unsafe fn apply_periodic(&self, src: *const u8, dst: *mut u8, n: usize, pattern: &Periodic, phase: usize) {
        let Converter::Normalize { to_f32, affine_var, from_f32, sw, dw, fused, .. } = *self else {
            // SAFETY: forwarded contract; no parameters are read.
            return unsafe { self.apply(src, dst, n, core::ptr::NonNull::dangling().as_ptr(), 0) };
        };
        let period = pattern.period();
        // SAFETY: forwarded contract; each block's pairs start at q < period and `pairs` holds period + BLOCK.
        unsafe {
            let mut i = match fused {
                Some((_, f, k)) => f(k, Span { src, dst, n, stream: false }, pattern, phase),
                None => 0,
            };
            // (Uninitialized: each block's elements are written before they are read. Zeroing it was
            // a 1 KiB memset per call: 92 of the 1057 instructions of a 64-pixel row, AVX2.)
            let mut buf = core::mem::MaybeUninit::<[f32; BLOCK]>::uninit();
            let b = buf.as_mut_ptr().cast::<u8>();
            while i < n {
                let c = (n - i).min(BLOCK);
                let q = (phase + i) % period;
                to_f32(src.add(i * sw), b, c);
                affine_var(b, c, pattern.pairs().as_ptr().add(q).cast(), PAIR);
                from_f32(b, dst.add(i * dw), c);
                i += c;
            }
        }
    }

    /// Whether [`Converter::apply_streamed`] takes this converter's runs: a normalization the level does in
    /// registers.
    fn streams(&self) -> bool {
        matches!(self, Converter::Normalize { fused: Some(_), .. })
    }

    /// Converts `n` contiguous elements as [`Converter::apply_periodic`] does with `pattern` from `phase`, else as
    /// [`Converter::apply`] does with the one pair at `aux`.
    ///
    /// # Safety
    ///
    /// As [`Converter::apply_periodic`] / [`Converter::apply`] (the pair at `aux` without a pattern).
    unsafe fn apply_either(
        &self,
        src: *const u8,
        dst: *mut u8,
        n: usize,
        aux: *const u8,
        pattern: Option<&Periodic>,
        phase: usize,
    ) {
        // SAFETY: forwarded contract.
        unsafe {
            match pattern {
                Some(p) => self.apply_periodic(src, dst, n, p, phase),
                None => self.apply(src, dst, n, aux, 0),
            }
        }
    }

    /// [`Converter::apply_either`] writing with non-temporal stores from the first 64-byte line of `dst` on where
    /// the level's kernel can (the caller fences), regular stores before that line and after the kernel's last
    /// whole step. (Streaming from the kernel saves the pass through a buffer and a streaming copy: PERF, one
    /// thread, Zen 4, u8 1024²×3 mirrored → f32 NHWC, 12 MiB out, forced streaming, three alternating bench runs:
    /// through the buffer 987–1020 µs, from the kernel 818–843 µs.)
    ///
    /// # Safety
    ///
    /// As [`Converter::apply_either`]; `dst` is a multiple of the output width, and [`Converter::streams`].
    unsafe fn apply_streamed(
        &self,
        src: *const u8,
        dst: *mut u8,
        n: usize,
        aux: *const u8,
        pattern: Option<&Periodic>,
        phase: usize,
    ) {
        let Converter::Normalize { sw, dw, fused: Some((run, periodic, k)), .. } = *self else {
            unreachable!("apply_streamed takes the converters that stream")
        };
        // SAFETY: (whole body) elements head.. and done.. of the run, in bounds (contract); the kernel's part starts
        // on a 64-byte line (dst is a multiple of dw, which divides 64) and covers whole lines (it takes every
        // whole step of 16 elements, and a line holds whole steps), so the regular stores after it start on a line.
        unsafe {
            let head = to_line(dst as usize, dw).min(n);
            self.apply_either(src, dst, head, aux, pattern, phase);
            let (s, d, lines) = (src.add(head * sw), dst.add(head * dw), line_elements(n - head, dw));
            let done = head
                + match pattern {
                    Some(p) => periodic(k, Span { src: s, dst: d, n: lines, stream: true }, p, phase + head),
                    None => {
                        let [scale, bias] = aux.cast::<[f32; 2]>().read_unaligned();
                        run(k, Span { src: s, dst: d, n: lines, stream: true }, scale, bias)
                    }
                };
            self.apply_either(src.add(done * sw), dst.add(done * dw), n - done, aux, pattern, phase + done);
        }
    }
}

/// A streaming copy out of a staging buffer, compiled for a level.
pub(super) type FlushFn = unsafe fn(*const u8, *mut u8, usize);

pub(super) fn flush_fn<A: Arch>() -> FlushFn {
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

/// Fences the non-temporal stores of a run before the chunk reports completion to other threads.
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86-64 baseline.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
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
    aux_stride: isize,
    /// Bytes per input and per output element.
    iw: usize,
    ow: usize,
    chunk: usize,
}

/// A converting row of a row kind (see the module documentation).
struct Staged<'a> {
    /// Gathers input elements into a contiguous buffer (input width); none when the input is contiguous.
    pre: Option<&'a dyn Rows>,
    /// Scatters converted elements from a contiguous buffer (output width); none when the output is contiguous.
    post: Option<&'a dyn Rows>,
    /// Broadcast of a conversion without parameters: one element is converted and `post` repeats it.
    one: bool,
    /// A table row's parameter offsets (a normalization over a table): gathered per row before converting.
    table_aux: Option<&'a [isize]>,
    /// One-byte elements read mirrored or subsampled, their row's whole blocks of 16 in one read, without `pre`.
    windowed: Option<Windowed<'a>>,
    row: RowConv,
}

impl RowConv {
    fn with<'a>(self, pre: Option<&'a dyn Rows>, post: Option<&'a dyn Rows>, one: bool) -> Staged<'a> {
        let flush = if post.is_none() { self.flush } else { None };
        Staged { pre, post, one, table_aux: None, windowed: None, row: RowConv { flush, ..self } }
    }
}

impl Rows for Staged<'_> {
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
        let r = &self.row;
        // Rows read through the windows with one pair for all: in one call, then each row's last elements.
        if let Some(wd) = self.windowed.as_ref().filter(|_| aux_step == 0) {
            let steps = (in_step, out_step, aux_step);
            // SAFETY: the run's rows are in bounds (Rows contract), with the one pair at `aux`; so are each row's
            // elements from `from` on.
            let rest = |s, d, x, from| unsafe { self.rest(s, d, x, from, r.len) };
            // SAFETY: as above.
            if unsafe { wd.rows((src, dst, aux), r.len, count, steps, rest) } {
                if self.streams() {
                    fence();
                }
                return;
            }
        }
        let Some(pre) = self.joined(out_step, aux_step) else {
            // SAFETY: each row of the run is in bounds (Rows contract).
            return unsafe { span_by_span(self, src, dst, aux, count, (in_step, out_step, aux_step), r.len) };
        };
        // Short rows read through `pre`: a batch of rows read in one call, converted in one call (see `in_batches`;
        // one row at a time, these rows also zeroed the table-pair buffer, which only tables now initialize).
        let len = r.len;
        let mut b = Scratch::new();
        let scr_out = b.ptr();
        let steps = (in_step, out_step, aux_step);
        // SAFETY: the run's rows are in bounds (Rows contract); a batch's k·len elements fit each buffer (per =
        // chunk / len, and chunk fits both widths); the output rows follow each other (`joined`), so the k·len
        // converted elements are exactly the batch's outputs; every row reads the one pair at `aux` (`joined`: no
        // step within or between rows).
        unsafe {
            in_batches(pre, src, dst, aux, count, steps, r.chunk / len, len * r.iw, |from, d, _, k| match r.flush {
                Some(flush) => {
                    r.convert.apply(from, scr_out, k * len, aux, 0);
                    flush(scr_out, d, k * len * r.ow);
                }
                None => r.convert.apply(from, d, k * len, aux, 0),
            })
        };
        if self.streams() {
            fence();
        }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { fenced(self, src, dst, aux, len) }
    }
}

impl Staged<'_> {
    /// The read kernel when a run's rows may be read and converted several at a time: read through `pre`,
    /// written contiguously (no `post`, nothing broadcast) with each row's outputs right after the previous row's,
    /// one parameter pair for every element of every row (no table of pairs, no step within or between rows), and
    /// at least two rows to a buffer; `None` when rows go one at a time.
    fn joined(&self, out_step: isize, aux_step: isize) -> Option<&dyn Rows> {
        let r = &self.row;
        let row_bytes = r.len.saturating_mul(r.ow);
        let joined = self.post.is_none()
            && !self.one
            && self.table_aux.is_none()
            && r.aux_stride == 0
            && aux_step == 0
            && usize::try_from(out_step).is_ok_and(|s| s == row_bytes)
            && r.len > 0
            && r.chunk / r.len >= 2;
        self.pre.filter(|_| joined)
    }
}

impl Unfenced for Staged<'_> {
    fn streams(&self) -> bool {
        self.row.flush.is_some() && self.post.is_none()
    }

    fn lead(&self) -> (isize, isize) {
        lead_bytes(self.row.len, self.row.in_stride, self.row.iw)
    }

    unsafe fn span_unfenced(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize) {
        // SAFETY: forwarded contract (the first `len` elements of a row; the windows only without a table).
        unsafe {
            let rest = |s, d, x, from| self.rest(s, d, x, from, len);
            if !self.windowed.as_ref().is_some_and(|wd| wd.rows((src, dst, aux), len, 1, (0, 0, 0), rest)) {
                self.rest(src, dst, aux, 0, len);
            }
        }
    }
}

impl Staged<'_> {
    /// Elements `from..len` of a row, through the buffers.
    ///
    /// # Safety
    ///
    /// As [`Unfenced::span_unfenced`].
    unsafe fn rest(&self, src: *const u8, dst: *mut u8, aux: *const u8, from: usize, len: usize) {
        let r = &self.row;
        // A table row's parameters, gathered into a contiguous array of pairs (initialized only for a table: 2
        // KiB of zeros per row cost more than the conversion of a short row).
        let mut gathered;
        let (aux, aux_step) = match self.table_aux {
            Some(offsets) => {
                gathered = [[0f32; 2]; TABLE_MAX];
                for (p, &o) in gathered.iter_mut().zip(offsets) {
                    // SAFETY: each offset is that of a proven element's pair (Walk::tabulate).
                    *p = unsafe { aux.wrapping_offset(o).cast::<[f32; 2]>().read_unaligned() };
                }
                (gathered.as_ptr().cast::<u8>(), PAIR)
            }
            None => (aux, r.aux_stride),
        };
        if self.pre.is_none() && self.post.is_none() && r.flush.is_none() {
            // Contiguous in both operands: one conversion of the whole span.
            let (s, d) = (src.wrapping_offset(from as isize * r.in_stride), dst.wrapping_add(from * r.ow));
            // SAFETY: the span's elements are contiguous and in bounds in both operands (Rows contract).
            unsafe { r.convert.apply(s, d, len - from, aux.wrapping_offset(from as isize * aux_step), aux_step) };
            return;
        }
        let (mut a, mut b) = (Scratch::new(), Scratch::new());
        let (scr_in, scr_out) = (a.ptr(), b.ptr());
        let mut j = from;
        while j < len {
            let c = r.chunk.min(len - j);
            let s = src.wrapping_offset(j as isize * r.in_stride);
            let d = dst.wrapping_offset(j as isize * r.out_stride);
            let x = aux.wrapping_offset(j as isize * aux_step);
            // SAFETY: elements j..j+c of the row are in bounds (Rows contract); a chunk fits each buffer
            // (chunk · width ≤ SCRATCH_BYTES for both widths), the kernels were built for these strides, and the
            // converter for this level. The buffers never overlap the operands.
            unsafe {
                let from = match self.pre {
                    Some(pre) => {
                        pre.span(s, scr_in, x, c);
                        scr_in.cast_const()
                    }
                    None => s,
                };
                match (self.post, r.flush) {
                    (Some(post), _) => {
                        r.convert.apply(from, scr_out, if self.one { 1 } else { c }, x, aux_step);
                        post.span(scr_out, d, x, c);
                    }
                    (None, Some(flush)) => {
                        r.convert.apply(from, scr_out, c, x, aux_step);
                        flush(scr_out, d, c * r.ow);
                    }
                    (None, None) => r.convert.apply(from, d, c, x, aux_step),
                }
            }
            j += c;
        }
    }
}

/// The map of a conversion that a transpose applies in its tiles' registers (see [`TileMap`](crate::arch::TileMap)).
#[derive(Clone, Copy, Debug, PartialEq)]
enum TileMapOf {
    F32(AffineF32),
    F16(AffineF16),
}

/// Whether a conversion moving like a transpose of tile width `tile` runs as the plain transpose with a map in the
/// tiles' registers (on a level with `reg_bytes`-byte registers), and which: a scale-bias of f32 on the SIMD levels,
/// or of f16 on the AVX-512 ones (whose target features include the f16 conversions; on AVX2 they would be calls).
/// Not with a NaN parameter, whose results `affine_fn` defines apart from the arithmetic. Every other conversion,
/// and every conversion on the portable level (no registers to map in), converts into a buffer and transposes out
/// of it ([`StagedTranspose`]).
///
/// PERF: one thread, tight loops, staged → mapped: f32 NCHW → NHWC with 64 channels of 256² (streamed) 2.5–3.2 →
/// 0.85–1.2 ms (the identity's 0.8–1.0), NHWC → NCHW with 16 channels of 64² 16 → 9.5–12 µs, 64 of 128² 241–312 →
/// 162–225 µs; f16 NHWC → NCHW with 64 channels of 128² 351–380 → 191–216 µs. F16 in cache is bound by the
/// conversions either way (16 channels of 64² NCHW → NHWC: 8.2–8.4 µs staged, 8.9 mapped, 3.9 for the identity).
fn tile_map(op: &ElementOp, tile: TileWidth, reg_bytes: usize) -> Option<TileMapOf> {
    let ElementOp::ScaleBias { ty, scale, bias } = *op else { return None };
    if scale.is_nan() || bias.is_nan() {
        return None;
    }
    match (ty, tile) {
        (ElemType::F32, TileWidth::W4) if reg_bytes >= 32 => Some(TileMapOf::F32(AffineF32 { scale, bias })),
        (ElemType::F16, TileWidth::W2) if reg_bytes == 64 => Some(TileMapOf::F16(AffineF16 { scale, bias })),
        _ => None,
    }
}

/// The order of a converting 2-D transpose's two steps, with the block function of the transposing one.
#[derive(Clone, Copy)]
enum Order {
    /// Blocks of the input rows converted into the buffer, then transposed out of it by this block function (of the
    /// output width).
    ConvertFirst(BlockFn),
    /// Blocks of input elements transposed into the buffer by this block function (of the input width), then each
    /// buffer row converted into its output row ([`transposes_first`], [`StagedTranspose::span_first`]).
    TransposeFirst(BlockFn),
}

/// A converting 2-D transpose through a buffer, in either [`Order`].
struct StagedTranspose {
    convert: Converter,
    order: Order,
    /// The folded dimension `I`: extent, input byte stride, parameter stride.
    ni: usize,
    si: isize,
    ai: isize,
    /// The output byte stride and the parameter stride of the row dimension `J`.
    dj: isize,
    aj: isize,
    iw: usize,
    ow: usize,
    len: usize,
    /// Whole output lines of the blocks stream (the strategy's policy); the span fences.
    stream: bool,
    /// Converts and transposes blocks of whole tiles in registers, without the buffer ([`cast_tiles`]): whole
    /// strips of rows a page apart ([`strips`]), else blocks one tile wide (16 columns), or of any multiple of 16
    /// columns with `cached`.
    tiles: Option<CastTilesFn>,
    /// The walk's footprint stays in the caches.
    cached: bool,
}

/// Whether a block of `ci` input rows × `cj` columns goes through the converting tiles ([`cast_tiles`]): whole
/// 32×16 tiles, one tile wide unless the walk stays in the caches (`cached`).
///
/// PERF: out of the caches, only blocks one tile wide: the tiles of wider rows read every second or fourth line of
/// a strip of rows and come back for the others, which the prefetchers do not follow (one thread, streamed, f32
/// NHWC → f16 NCHW of 4 × 64 channels × 128², the buffer → tiles: 939 → 2580 µs; 32 channels tied), where
/// converting whole runs into the buffer reads them in order. In the caches wider blocks gain (4 × 64 × 56²: 153 →
/// 95 µs).
fn tiles_take(ci: usize, cj: usize, cached: bool) -> bool {
    ci.is_multiple_of(32) && (cj == 16 || (cached && cj.is_multiple_of(16)))
}

/// [`Arch::tiles_f32_to_f16`] compiled for a level: `(src, si, dst, dj, ni, nj, stream)`.
type CastTilesFn = unsafe fn(*const u8, isize, *mut u8, isize, usize, usize, bool);

/// The tiles that convert f32 into f16 in registers while they transpose ([`Arch::tiles_f32_to_f16`]), for a plain
/// cast on a level that has them, when its blocks would not go through the buffer of output rows (`out_rows`: such
/// blocks keep it) and either stream or write output rows not [`params::TALL_TILE_ALIAS_BYTES`] apart (where the
/// transposes keep 8×8 tiles). 32-byte levels take them only where they were measured to win: streamed, in
/// [`strips`], or into output rows a critical stride apart (input rows `si`, output rows `dj` bytes apart).
///
/// [`params::TALL_TILE_ALIAS_BYTES`]: crate::params::TALL_TILE_ALIAS_BYTES
fn cast_tiles<A: Arch>(op: &ElementOp, stream: bool, out_rows: bool, si: isize, dj: isize) -> Option<CastTilesFn> {
    struct Job<A>(A, *const u8, isize, *mut u8, isize, usize, usize, bool);
    impl<A: Arch> NullaryFnOnce for Job<A> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(a, src, si, dst, dj, ni, nj, stream) = self;
            // SAFETY: forwarded from the CastTilesFn contract (that of Arch::tiles_f32_to_f16).
            unsafe { a.tiles_f32_to_f16(src, si, dst, dj, ni, nj, stream) };
        }
    }
    /// # Safety
    ///
    /// As [`Arch::tiles_f32_to_f16`] on a level that has the tiles, on a CPU running level `A`.
    unsafe fn entry<A: Arch>(src: *const u8, si: isize, dst: *mut u8, dj: isize, ni: usize, nj: usize, stream: bool) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        a.vectorize(Job(a, src, si, dst, dj, ni, nj, stream))
    }
    let cast = matches!(op, ElementOp::Cast { from: ElemType::F32, to: ElemType::F16 });
    let aliased = dj.unsigned_abs().is_multiple_of(crate::params::TALL_TILE_ALIAS_BYTES);
    // (At 32-byte levels only streamed: in the caches the buffered path won, `--isa v3`, one thread, f32 NHWC →
    // f16 NCHW 4 × 112² with 16 channels 60.7 against 66.7 µs, 4 × 64² with 32 channels 47.5 against 60.7 µs;
    // over whole strips, see `strips`, they won there too: 1024² 573 → 340 µs, 512 rows of 2048 0.92 → 0.78 ms;
    // and so they did into output rows a critical stride apart, where 8×8 tiles write 16 bytes of each crowded
    // line at a time: 512 rows of 2048 0.78 → 0.21 ms, 8 × 256 channels of 32² NHWC → NCHW 0.76 → 0.31 ms.)
    let level = A::BYTES == 64 || stream || strips(si) || transpose::critical(dj);
    (cast && A::cast_tiles() && level && !out_rows && (stream || !aliased)).then_some(entry::<A> as CastTilesFn)
}

/// Whether a converting transpose from `iw`-byte into `ow`-byte elements transposes first (the input elements into
/// a buffer, then converts the buffer's rows into the output's, [`StagedTranspose::span_first`]) rather than
/// converting first and transposing the output elements out of the buffer: outputs at least as wide as the inputs
/// (the tiles move the narrower elements, the conversions write whole runs of the output rows), a footprint that
/// fits the last-level cache one thread can count on (`near`), and regular stores (streamed, the tiles store
/// whole output lines non-temporally).
///
/// PERF: one thread, tight loops, best of three, convert first → transpose first (NHWC → NCHW unless said):
/// f16 → f32 with 16 channels, 64² 20.0 → 7.6 µs, 128² 80 → 34 µs, 4 × 128² 282 → 120 µs; u8 → f32, 8 channels of
/// 128² 33.2 → 14.0 µs; f32 → i32, 16 of 64² 24.1 → 9.5 µs; per-channel normalization of 16 channels of 64², f32
/// 35.0 → 17.5 µs, u8 → f32 23.0 → 9.9 µs; u8 → f16, 8 of 128² 23.7 → 15.9 µs; NCHW → NHWC, u8 → f32 16 channels
/// of 64² 10.2 → 6.4 µs, f16 → f32 64 of 32² 13.7 → 8.9 µs, i32 → f32 12.2 → 11.2 µs. Narrowing lost (16 rows a
/// block): f32 → f16, 16 of 64² 12.4 → 17.7 µs, 128² 46.8 → 75.9 µs, NCHW → NHWC with 64 channels 40.6 → 63 µs; and
/// so did footprints beyond the share: f16 → f32, 16 × 16 × 128² (24 MiB) 0.98–1.31 ms against 1.06–2.95 ms.
///
/// 8-byte outputs into rows a critical stride apart (`dj`) transpose first whatever the footprint or stores: their
/// 8×8 tiles never stream, and their regular stores into lines that share an L1 set waited on one miss after
/// another (one thread, Zen 4, f32 → f64, convert first → transpose first: 1024² 1.91–1.98 → 0.41–0.51 ms, 2048²
/// 8.3 → 4.4 ms, NHWC → NCHW 4 × 64 × 128² 5.8 → 2.15 ms, 16 × 16 × 128² 2.6 → 2.0–2.1 ms; NCHW → NHWC, whose
/// output rows are not critical, lost: 4 × 64 × 128² 3.0 → 3.8 ms).
fn transposes_first(iw: usize, ow: usize, stream: bool, near: bool, dj: isize) -> bool {
    ow >= iw && ((near && !stream) || (ow == 8 && transpose::critical(dj)))
}

/// Input rows a staged transpose block has at least (one register tile).
const MIN_BLOCK_ROWS: usize = 8;

/// The block of a staged transpose of `ni` input rows × `nj` columns of `ow`-byte output elements: `(bi, bj)`
/// rows × columns filling the buffer.
///
/// At least 8 rows (a tile), as many columns as fit, then as many rows. Streamed blocks take at least a whole
/// output line of rows, so that each output row of the block is whole lines, which the wide tiles stream. One
/// thread, 64 channels of 256²: f32 NHWC → f16 NCHW 1490 → 407 µs from streaming alone; f32 NCHW → f16 NHWC
/// (32-byte output rows at 8 rows) 810 → 772 µs streamed, 395 µs with whole lines. Cached walks keep 8 rows (16
/// cost f32 scale-bias NCHW → NHWC of 16 channels of 64² 7.6 → 10.8 µs), unless their output rows are a critical
/// stride apart (`dj`): 8 rows wrote 16 bytes into each of hundreds of output lines that share a few L1 sets, to
/// come back for the rest of each line one block later (one thread, Zen 4, f32 → f16 transposes: 1024² 521 →
/// 126 µs, 8 × 256 channels of 32² NHWC → NCHW 1.59 → 0.27 ms; `--isa v3` 1024² 573 → 340 µs).
fn block_shape(ni: usize, nj: usize, ow: usize, stream: bool, dj: isize) -> (usize, usize) {
    let lines =
        if stream || transpose::critical(dj) { (64 / ow).max(MIN_BLOCK_ROWS).min(ni).max(1) } else { MIN_BLOCK_ROWS };
    let bj = nj.min(SCRATCH_BYTES / (lines * ow)).max(1);
    let bi = (SCRATCH_BYTES / (bj * ow)).min(ni).max(1);
    (bi, bj)
}

impl Rows for StagedTranspose {
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

    unsafe fn span(&self, src: *const u8, dst: *mut u8, aux: *const u8, nj: usize) {
        // SAFETY: forwarded contract.
        unsafe { fenced(self, src, dst, aux, nj) }
    }
}

impl Unfenced for StagedTranspose {
    fn streams(&self) -> bool {
        self.stream
    }

    unsafe fn span_unfenced(&self, src: *const u8, dst: *mut u8, aux: *const u8, nj: usize) {
        let block = match self.order {
            Order::ConvertFirst(block) => block,
            Order::TransposeFirst(first) => {
                // SAFETY: forwarded contract.
                unsafe { self.span_first(first, src, dst, aux, nj) };
                return;
            }
        };
        let ni = self.ni;
        if let Some(tiles) = self.tiles.filter(|_| strips(self.si)) {
            // Whole strips of 32 rows across every whole tile of their columns; the last columns and rows (fewer
            // than a tile) through the buffer.
            let (ti, tj) = (ni / 32 * 32, nj / 16 * 16);
            if ti > 0 && tj > 0 {
                // SAFETY: rows 0..ti, columns 0..tj are elements of the span (Rows contract), multiples of the
                // 32×16 tiles `cast_tiles` requires.
                unsafe { self.tiles_at(tiles, src, dst, ti, tj) };
            }
            // SAFETY: forwarded contract, for parts of the span.
            unsafe {
                self.blocks(block, (src, dst, aux), (0, ti), (tj, nj), nj);
                self.blocks(block, (src, dst, aux), (ti, ni), (0, nj), nj);
            }
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.blocks(block, (src, dst, aux), (0, ni), (0, nj), nj) };
        }
    }
}

/// Whether a converting transpose whose level has [`cast_tiles`] runs them over whole strips of 32 input rows
/// across all their columns rather than over blocks the buffer's size: input rows at least
/// [`params::STAGED_STRIP_ROW_STRIDE`](crate::params::STAGED_STRIP_ROW_STRIDE) apart, so that each row's lines,
/// read a tile at a time, are a stream of their own.
fn strips(si: isize) -> bool {
    si.unsigned_abs() >= crate::params::STAGED_STRIP_ROW_STRIDE
}

impl StagedTranspose {
    /// Runs the converting `tiles` over `ci` input rows × `cj` columns from `src` into `dst`, streamed when the
    /// policy says so and every output row of them starts on a line.
    ///
    /// # Safety
    ///
    /// The rows and columns are elements of a span (Rows contract), multiples of the 32×16 tiles [`cast_tiles`]
    /// requires.
    unsafe fn tiles_at(&self, tiles: CastTilesFn, src: *const u8, dst: *mut u8, ci: usize, cj: usize) {
        let lines = (dst as usize).is_multiple_of(64) && self.dj.unsigned_abs().is_multiple_of(64);
        // SAFETY: forwarded contract; streamed only with every output row on a line.
        unsafe { tiles(src, self.si, dst, self.dj, ci, cj, self.stream && lines) };
    }

    /// The blocks of rows `rows.0..rows.1` × columns `cols.0..cols.1` of a span of `nj` columns: each block's
    /// input rows converted into the buffer and transposed out of it by `block` (or, where [`tiles_take`] says so,
    /// converted and transposed in the level's tiles).
    ///
    /// # Safety
    ///
    /// As [`Rows::span`] for the span at `(src, dst, aux)`; `block` is the level's block function of the output
    /// width; the ranges lie inside the span.
    unsafe fn blocks(
        &self,
        block: BlockFn,
        (src, dst, aux): (*const u8, *mut u8, *const u8),
        rows: (usize, usize),
        cols: (usize, usize),
        nj: usize,
    ) {
        let mut buf = Scratch::new();
        let scr = buf.ptr();
        let (bi, bj) = block_shape(self.ni, cols.1 - cols.0, self.ow, self.stream, self.dj);
        // PERF: when a block's input rows follow each other (NHWC pixels of C channels) and so do their
        // parameters, one conversion call covers the whole block instead of one per row of a few elements.
        let adjacent = bj == nj && self.si == (nj * self.iw) as isize && self.ai == (nj as isize).wrapping_mul(self.aj);
        let mut j0 = cols.0;
        while j0 < cols.1 {
            let cj = bj.min(cols.1 - j0);
            let pitch = cj * self.ow;
            let mut i0 = rows.0;
            while i0 < rows.1 {
                let ci = bi.min(rows.1 - i0);
                // The block's first input and output elements.
                let first = src.wrapping_offset(i0 as isize * self.si + (j0 * self.iw) as isize);
                let d = dst.wrapping_offset((i0 * self.ow) as isize + j0 as isize * self.dj);
                if let Some(tiles) = self.tiles.filter(|_| tiles_take(ci, cj, self.cached)) {
                    // SAFETY: rows i0..i0+ci, columns j0..j0+cj are elements of the block (Rows contract), ci and
                    // cj multiples of the 32×16 tiles `cast_tiles` requires.
                    unsafe { self.tiles_at(tiles, first, d, ci, cj) };
                    i0 += ci;
                    continue;
                }
                // SAFETY: rows i0..i0+ci, columns j0..j0+cj are elements of the block (Rows contract), with their
                // parameter pairs; each input run of cj elements is contiguous (the row dimension is the input's
                // contiguous one), and with `adjacent` the ci runs are one contiguous range; the buffer holds
                // ci · cj output elements; the block function is the level's.
                unsafe {
                    let x = aux.wrapping_offset(i0 as isize * self.ai + j0 as isize * self.aj);
                    if adjacent {
                        self.convert.apply(first, scr, ci * cj, x, self.aj);
                    } else {
                        for i in 0..ci {
                            let s = first.wrapping_offset(i as isize * self.si);
                            let xi = x.wrapping_offset(i as isize * self.ai);
                            self.convert.apply(s, scr.add(i * pitch), cj, xi, self.aj);
                        }
                    }
                    block(scr, pitch as isize, d, self.dj, ci, cj);
                }
                i0 += ci;
            }
            j0 += cj;
        }
    }

    /// [`Rows::span`] transposing first ([`transposes_first`]): blocks of at least
    /// [`params::STAGED_FIRST_ROWS`](crate::params::STAGED_FIRST_ROWS) output rows (a whole input line of them when
    /// input rows are a critical stride apart; more when the folded dimension is short) are transposed at the input
    /// width into the buffer, whose row `j` is then output row `j`'s run, converted in one call (one call for the
    /// whole block when the output rows follow each other).
    ///
    /// # Safety
    ///
    /// As [`Rows::span`]; `first` is the level's block function of the input width.
    unsafe fn span_first(&self, first: BlockFn, src: *const u8, dst: *mut u8, aux: *const u8, nj: usize) {
        let mut buf = Scratch::new();
        let scr = buf.ptr();
        let (iw, ow) = (self.iw, self.ow);
        // PERF: input rows a critical stride apart share a few L1 sets: a block reading fewer columns than a whole
        // line of each left the rest of the line to be fetched again by the next block (one thread, Zen 4, 1024²
        // transposes: f16 → f32 193 → 111–129 µs, u8 → f32 200 → 80–96 µs).
        let least = crate::params::STAGED_FIRST_ROWS;
        let cols = if transpose::critical(self.si) { (64 / iw).max(least) } else { least };
        let bi = self.ni.min(SCRATCH_BYTES / (cols * iw)).max(1);
        let bj = nj.min(SCRATCH_BYTES / (bi * iw)).max(1);
        let mut i0 = 0;
        while i0 < self.ni {
            let ci = bi.min(self.ni - i0);
            let pitch = ci * iw;
            // Output rows of the block that follow each other, with their parameters: one conversion call.
            let adjacent =
                ci == self.ni && self.dj == (ci * ow) as isize && self.aj == (ci as isize).wrapping_mul(self.ai);
            let mut j0 = 0;
            while j0 < nj {
                let cj = bj.min(nj - j0);
                // SAFETY: rows i0..i0+ci, columns j0..j0+cj are elements of the block (Rows contract), with their
                // parameter pairs; the buffer holds cj rows of `pitch` bytes (ci input elements, cj · ci · iw ≤
                // SCRATCH_BYTES) and overlaps neither operand; buffer row j is output row j0 + j's elements
                // i0..i0+ci, contiguous in the output (the folded dimension is the output's contiguous one), and
                // with `adjacent` the cj output runs are one contiguous range (and so are their parameters); the
                // block function is the level's, of the input width.
                unsafe {
                    let s = src.wrapping_offset(i0 as isize * self.si + (j0 * iw) as isize);
                    first(s, self.si, scr, pitch as isize, ci, cj);
                    let d = dst.wrapping_offset((i0 * ow) as isize + j0 as isize * self.dj);
                    let x = aux.wrapping_offset(i0 as isize * self.ai + j0 as isize * self.aj);
                    let (runs, n) = if adjacent { (1, ci * cj) } else { (cj, ci) };
                    for j in 0..runs {
                        let (dj, xj) =
                            (d.wrapping_offset(j as isize * self.dj), x.wrapping_offset(j as isize * self.aj));
                        self.convert.apply(scr.add(j * pitch), dj, n, xj, self.ai);
                    }
                }
                j0 += cj;
            }
            i0 += ci;
        }
    }
}

/// A converting planar move (see the module documentation): the planar kernel moves elements of the input width
/// (deinterleave) or of the output width (interleave) through a buffer, the conversion runs on plane runs.
struct StagedPlanar<'a> {
    /// A widening interleave that moves the input elements first and converts the pixels after.
    first: Option<&'a InterleaveFirst>,
    convert: Converter,
    planar: PlanarFn,
    tables: &'a Planar,
    /// The byte stride between planes on the planar side (input for interleave, output for deinterleave).
    ps: isize,
    /// The input byte stride of the pixels (negative for a mirrored deinterleave).
    pixel_stride: isize,
    /// A deinterleave converted in registers (one-byte pixels normalized, f32 pixels cast to f16 or normalized,
    /// with per-plane parameters): the buffer only for the tail.
    fused: Option<(FusedFn, FusedConvert)>,
    /// Whether the fused kernel stores non-temporally (where the planes' alignment allows).
    stream: bool,
    /// The buffered path's output goes out of a second buffer through a streaming copy (the strategy streams).
    flush: Option<FlushFn>,
    /// The parameter strides of the planes (the folded dimension) and of the pixels (the row).
    aplane: isize,
    arow: isize,
    iw: usize,
    ow: usize,
    len: usize,
}

impl StagedPlanar<'_> {
    /// Moves pixels `from..to` of the row through the buffer (see the module documentation).
    ///
    /// # Safety
    ///
    /// As [`Rows::span`] for the row's pixels `from..to`.
    unsafe fn buffered(&self, src: *const u8, dst: *mut u8, aux: *const u8, from: usize, to: usize) {
        if let Some(first) = self.first {
            // SAFETY: forwarded contract.
            unsafe { self.interleaved_first(src, dst, aux, (from, to), first.pattern.as_deref()) };
            return;
        }
        let (mut buf, mut second) = (Scratch::new(), Scratch::new());
        let (scr, out) = (buf.ptr(), second.ptr());
        let p = self.tables.planes;
        let moved = if self.tables.interleave { self.ow } else { self.iw };
        // Plane runs a multiple of 64 bytes apart in the buffer, so the level's full-register stores into them stay
        // within lines.
        // Streamed, the second buffer holds a chunk's converted output too (a plane run when deinterleaving).
        let out_bytes = if self.tables.interleave { p * self.ow } else { self.ow };
        let per_pixel = if self.flush.is_some() { (p * moved).max(out_bytes) } else { p * moved };
        let chunk = SCRATCH_BYTES / per_pixel / 64 * 64;
        let mut j = from;
        while j < to {
            let c = chunk.min(to - j);
            let pitch = (c * moved) as isize;
            let x = aux.wrapping_offset(j as isize * self.arow);
            // SAFETY: pixels j..j+c of the row and of every plane are in bounds (Rows contract), with their
            // parameter pairs; pixels are contiguous on the pixel side (p elements each) and plane runs contiguous
            // on the planar side (the strategy checked both); the buffer holds c · p moved elements.
            unsafe {
                if self.tables.interleave {
                    for k in 0..p {
                        let s = src.wrapping_offset(k as isize * self.ps + (j * self.iw) as isize);
                        let xk = x.wrapping_offset(k as isize * self.aplane);
                        self.convert.apply(s, scr.wrapping_offset(k as isize * pitch), c, xk, self.arow);
                    }
                    let d = dst.add(j * p * self.ow);
                    match self.flush {
                        Some(flush) => {
                            (self.planar)(self.tables, scr, pitch, out, c);
                            flush(out, d, c * p * self.ow);
                        }
                        None => (self.planar)(self.tables, scr, pitch, d, c),
                    }
                } else {
                    (self.planar)(self.tables, src.wrapping_offset(j as isize * self.pixel_stride), pitch, scr, c);
                    for k in 0..p {
                        let d = dst.wrapping_offset(k as isize * self.ps + (j * self.ow) as isize);
                        let xk = x.wrapping_offset(k as isize * self.aplane);
                        let from = scr.wrapping_offset(k as isize * pitch);
                        match self.flush {
                            Some(flush) => {
                                self.convert.apply(from, out, c, xk, self.arow);
                                flush(out, d, c * self.ow);
                            }
                            None => self.convert.apply(from, d, c, xk, self.arow),
                        }
                    }
                }
            }
            j += c;
        }
    }

    /// [`StagedPlanar::buffered`] of a widening interleave that moves the input elements first: chunks of pixels
    /// interleaved from the planes into the buffer, then converted into the output (through the second buffer and
    /// the streaming copy when streaming), a normalization's pairs from `pattern` (element 0 of a chunk is a
    /// pixel's first channel), else its one pair at the chunk's parameters.
    ///
    /// # Safety
    ///
    /// As [`StagedPlanar::buffered`]; the tables move input-width elements.
    unsafe fn interleaved_first(
        &self,
        src: *const u8,
        dst: *mut u8,
        aux: *const u8,
        (from, to): (usize, usize),
        pattern: Option<&Periodic>,
    ) {
        let (mut buf, mut second) = (Scratch::new(), Scratch::new());
        let (scr, out) = (buf.ptr(), second.ptr());
        let p = self.tables.planes;
        let chunk = SCRATCH_BYTES / (p * self.ow.max(self.iw)) / 64 * 64;
        let mut j = from;
        while j < to {
            let c = chunk.min(to - j);
            let x = aux.wrapping_offset(j as isize * self.arow);
            let d = dst.wrapping_add(j * p * self.ow);
            // SAFETY: pixels j..j+c of every plane (input width, `ps` apart) and of the row are in bounds (Rows
            // contract); the buffers hold c pixels of p elements at the wider width; the parameters are one pair
            // at `x` or the pattern (Strategy::choose).
            unsafe {
                (self.planar)(self.tables, src.wrapping_add(j * self.iw), self.ps, scr, c);
                match self.flush {
                    Some(flush) => {
                        self.convert.apply_either(scr, out, c * p, x, pattern, 0);
                        flush(out, d, c * p * self.ow);
                    }
                    None => self.convert.apply_either(scr, d, c * p, x, pattern, 0),
                }
            }
            j += c;
        }
    }

    /// Runs the fused kernel over pixels `from..to` of the `rows.count` rows of a run; returns the pixels done
    /// per row (counted from `from`).
    ///
    /// # Safety
    ///
    /// As [`Rows::rows`] for pixels `from..to` of each row, with the parameters constant along the rows (the row's
    /// and the run's parameter steps are 0); with `stream`, every plane's element `from` of every row is on a
    /// 64-byte boundary.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_fused(
        &self,
        (f, k): (FusedFn, FusedConvert),
        src: *const u8,
        dst: *mut u8,
        aux: *const u8,
        (from, to): (usize, usize),
        rows: RowRun,
        stream: bool,
    ) -> usize {
        let p = self.tables.planes;
        // SAFETY: plane k's pair lies in the parameter table when the conversion has parameters (contract); pixel
        // `from` starts p − 1 elements below its output plane 0 element when the channels are reversed; the pixels
        // and planes are in bounds (contract).
        unsafe {
            let pair = |k: usize| aux.wrapping_offset(k as isize * self.aplane).cast::<[f32; 2]>().read_unaligned();
            // (A cast has no parameters: one-byte integers take scale 1 and bias 0, see `fused_convert`; scale/bias
            // has one pair for all.)
            let params: [[f32; 2]; 4] = core::array::from_fn(|i| match self.convert {
                Converter::Cast(_) => [1.0, 0.0],
                Converter::Affine(_, scale, bias) => [scale, bias],
                _ if i < p && k.affine() => pair(i),
                _ => [0.0; 2],
            });
            let s = src.wrapping_offset(from as isize * self.pixel_stride);
            let first = if self.tables.reverse_channels { s.wrapping_sub((p - 1) * self.iw) } else { s };
            let d = dst.add(from * self.ow);
            // (Each row's pixels from `to` on, if any, are in bounds: `readable` may leave one more than needed.)
            let span = Span { src: first, dst: d, n: self.tables.readable(to - from), stream };
            f(k, self.tables, span, self.ps, &params, rows)
        }
    }
}

impl Rows for StagedPlanar<'_> {
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
        // PERF: the fused kernel takes the whole run in one call (its tables and parameters set up once: 10 ns a
        // row saved on 224-pixel crops), unless streaming needs each row aligned on its own.
        let one_call = self.fused.filter(|_| {
            aux_step == 0
                && (!self.stream || ((dst as usize).is_multiple_of(64) && out_step % 64 == 0 && self.ps % 64 == 0))
        });
        if let Some(fused) = one_call {
            let run = RowRun { count, in_step, out_step };
            // Streamed, the kernel takes the pixels of whole lines, the buffer the rest (see `stream_lines`).
            let to = if self.stream { line_elements(self.len, self.ow) } else { self.len };
            // SAFETY: every row of the run is in bounds with constant parameters (checked above); streaming stores
            // only with every row's planes 64-byte aligned (checked above).
            let done = unsafe { self.run_fused(fused, src, dst, aux, (0, to), run, self.stream) };
            if done < self.len {
                for r in 0..count as isize {
                    // SAFETY: the rest of each row, in bounds (Rows contract).
                    unsafe {
                        let (s, d) = (src.wrapping_offset(r * in_step), dst.wrapping_offset(r * out_step));
                        self.buffered(s, d, aux, done, self.len)
                    };
                }
            }
            if self.streams() {
                fence();
            }
            return;
        }
        // SAFETY: each row of the run is in bounds (Rows contract).
        unsafe { span_by_span(self, src, dst, aux, count, (in_step, out_step, aux_step), self.len) }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, aux: *const u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { fenced(self, src, dst, aux, n) }
    }
}

impl Unfenced for StagedPlanar<'_> {
    fn streams(&self) -> bool {
        self.stream || self.flush.is_some()
    }

    unsafe fn span_unfenced(&self, src: *const u8, dst: *mut u8, aux: *const u8, n: usize) {
        let Some(fused) = self.fused else {
            // SAFETY: the row's n pixels (Rows contract).
            unsafe { self.buffered(src, dst, aux, 0, n) };
            return;
        };
        // With streaming, the buffer moves the pixels before the first whose stores are 64-byte aligned in every
        // plane; the fused kernel the rest but the tail.
        let stream = self.stream && self.ps % 64 == 0 && (dst as usize).is_multiple_of(self.ow);
        let from = if stream { to_line(dst as usize, self.ow).min(n) } else { 0 };
        // SAFETY: pixels 0..from, then from.., then the tail: all of the row's n pixels (Rows contract); the
        // parameters are constant along the row (the fused kernel is built only then); element `from` of every
        // plane is 64-byte aligned with `stream` (plane 0's by `from`, the others 64·k bytes away).
        unsafe {
            self.buffered(src, dst, aux, 0, from);
            let run = RowRun { count: 1, in_step: 0, out_step: 0 };
            let to = if stream { from + line_elements(n - from, self.ow) } else { n };
            let done = from + self.run_fused(fused, src, dst, aux, (from, to), run, stream);
            self.buffered(src, dst, aux, done, n);
        }
    }
}

/// A converting row of interleaved pixels ([`Movement::Pixels`]): runs of pixels read whole by the copy kernel of
/// the pixel's width into a buffer (none when they are contiguous), converted in one pass — a normalization's
/// pairs from the pattern of its channels, or the row's one pair — and written contiguously (through a second
/// buffer and a streaming copy when streaming).
struct StagedPixels<'a> {
    pre: Option<&'a dyn Rows>,
    /// The row's whole blocks of 16 pixels in one read, without `pre`.
    windowed: Option<Windowed<'a>>,
    /// Writes a buffered run's converted pixels `out_stride` bytes apart.
    post: Option<&'a dyn Rows>,
    convert: Converter,
    pattern: Option<&'a Periodic>,
    flush: Option<FlushFn>,
    channels: usize,
    /// Input byte step from pixel to pixel.
    in_stride: isize,
    /// Output byte step from pixel to pixel.
    out_stride: isize,
    /// Bytes per input and per output element.
    iw: usize,
    ow: usize,
    /// Pixels per run (a buffered run fits both buffers; without `pre` and `flush`, a whole row).
    chunk: usize,
    /// Pixels per row.
    len: usize,
}

impl StagedPixels<'_> {
    /// The rows of a run that may be converted in one call, with the kernel that reads them into the buffer: rows
    /// read through the buffer (`pre`), written contiguously (no `post`) with each row's pixels right after the
    /// previous row's, with the same parameters (a pattern, which depends only on the channel, or one pair for all
    /// rows), as many whole rows as the buffer holds; `None` when rows go one at a time.
    fn joined_rows(&self, out_step: isize, aux_step: isize) -> Option<(&dyn Rows, usize)> {
        let row_bytes = self.len.saturating_mul(self.channels).saturating_mul(self.ow);
        let joined = self.post.is_none()
            && usize::try_from(out_step).is_ok_and(|s| s == row_bytes)
            && (self.pattern.is_some() || aux_step == 0);
        let per = self.chunk / self.len.max(1);
        self.pre.filter(|_| joined && per >= 2).map(|pre| (pre, per))
    }

    /// Converts `n` elements of whole pixels (element 0 a pixel's first channel, taking the pattern's pair at
    /// `phase`) from `from` into `to`.
    ///
    /// # Safety
    ///
    /// As [`Converter::apply_either`]; with `direct`, as [`Converter::apply_streamed`].
    unsafe fn convert_run(&self, from: *const u8, to: *mut u8, n: usize, aux: *const u8, phase: usize, direct: bool) {
        // SAFETY: forwarded contract. Without a pattern, a normalization's one pair is at `aux` (its parameters
        // are constant along the row: Strategy::choose).
        unsafe {
            if direct {
                self.convert.apply_streamed(from, to, n, aux, self.pattern, phase)
            } else {
                self.convert.apply_either(from, to, n, aux, self.pattern, phase)
            }
        }
    }

    /// Converts `n` elements into the contiguous output at `d`: with regular stores, or streamed — from the kernel
    /// with non-temporal stores where it can, else through `scr` (a buffer of the run) and a streaming copy.
    ///
    /// # Safety
    ///
    /// As [`StagedPixels::convert_run`]; `scr` holds the run's output when streaming.
    unsafe fn write(&self, from: *const u8, d: *mut u8, scr: *mut u8, n: usize, aux: *const u8, phase: usize) {
        let direct = self.convert.streams() && (d as usize).is_multiple_of(self.ow);
        // SAFETY: forwarded contract.
        unsafe {
            match self.flush {
                Some(flush) if !direct => {
                    self.convert_run(from, scr, n, aux, phase, false);
                    flush(scr, d, n * self.ow);
                }
                Some(_) => self.convert_run(from, d, n, aux, phase, true),
                None => self.convert_run(from, d, n, aux, phase, false),
            }
        }
    }
}

impl Rows for StagedPixels<'_> {
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
        // Rows read through the windows, in one call when their pairs are the same (a cast, a pattern, or one pair
        // for all), then each row's last pixels.
        if let Some(wd) = self.windowed.as_ref().filter(|w| w.cast || self.pattern.is_some() || aux_step == 0) {
            let steps = (in_step, out_step, aux_step);
            // SAFETY: the run's rows are in bounds (Rows contract), their pairs the same; so are each row's pixels
            // from `from` on.
            let rest = |s, d, x, from| unsafe { self.rest(s, d, x, from, self.len) };
            // SAFETY: as above.
            if unsafe { wd.rows((src, dst, aux), self.len, count, steps, rest) } {
                if self.streams() {
                    fence();
                }
                return;
            }
        }
        let Some((pre, per)) = self.joined_rows(out_step, aux_step) else {
            // SAFETY: each row of the run is in bounds (Rows contract).
            return unsafe { span_by_span(self, src, dst, aux, count, (in_step, out_step, aux_step), self.len) };
        };
        // Short rows: the pixels of `per` rows read into the buffer one row after the other, then converted in
        // one call (the converter's fixed costs and the kernel's tail once per call rather than per row, and runs
        // long enough for the levels' tables).
        let (p, len) = (self.channels, self.len);
        let mut b = Scratch::new();
        let scr_out = b.ptr();
        let steps = (in_step, out_step, aux_step);
        // SAFETY: the run's rows are in bounds (Rows contract); a batch's k·len pixels fit each buffer (k·len ≤
        // chunk, which fits both widths); the output rows follow each other (joined_rows), so the k·len·p converted
        // elements are exactly the batch's outputs; each row starts on a pixel, and the pattern's pairs depend on
        // the channel only, so its phase continues across rows.
        unsafe {
            in_batches(pre, src, dst, aux, count, steps, per, len * p * self.iw, |from, d, x, k| {
                self.write(from, d, scr_out, k * len * p, x, 0)
            })
        };
        if self.streams() {
            fence();
        }
    }

    unsafe fn span(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize) {
        // SAFETY: forwarded contract.
        unsafe { fenced(self, src, dst, aux, len) }
    }
}

impl Unfenced for StagedPixels<'_> {
    fn streams(&self) -> bool {
        self.flush.is_some()
    }

    fn lead(&self) -> (isize, isize) {
        lead_bytes(self.len, self.in_stride, self.channels * self.iw)
    }

    unsafe fn span_unfenced(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize) {
        // SAFETY: forwarded contract (the first `len` pixels of a row).
        unsafe {
            let rest = |s, d, x, from| self.rest(s, d, x, from, len);
            if !self.windowed.as_ref().is_some_and(|wd| wd.rows((src, dst, aux), len, 1, (0, 0, 0), rest)) {
                self.rest(src, dst, aux, 0, len);
            }
        }
    }
}

impl StagedPixels<'_> {
    /// Pixels `j..len` of a row, through the buffers.
    ///
    /// # Safety
    ///
    /// As [`Unfenced::span_unfenced`].
    unsafe fn rest(&self, src: *const u8, dst: *mut u8, aux: *const u8, mut j: usize, len: usize) {
        let p = self.channels;
        let (mut a, mut b) = (Scratch::new(), Scratch::new());
        let (scr_in, scr_out) = (a.ptr(), b.ptr());
        while j < len {
            let c = self.chunk.min(len - j);
            let (n, phase) = (c * p, j * p);
            let s = src.wrapping_offset(j as isize * self.in_stride);
            let d = dst.wrapping_offset(j as isize * self.out_stride);
            // SAFETY: pixels j..j+c of the row are in bounds (Rows contract; a row starts at a pixel's first
            // channel, so element i of the run is channel i mod p); a run fits each buffer it uses (buffered runs:
            // chunk · p · width ≤ SCRATCH_BYTES for both widths; unbuffered ones touch no buffer); the kernels were built for these strides and the converter for
            // this level; the buffers never overlap the operands. Without a pattern, a normalization's one pair
            // is at `aux` (its parameters are constant along the row: Strategy::choose).
            unsafe {
                let from = match self.pre {
                    Some(pre) => {
                        if j + c < len {
                            let next = s.wrapping_offset(c as isize * self.in_stride);
                            let (a, b) = lead_bytes(self.chunk.min(len - j - c), self.in_stride, p * self.iw);
                            super::prefetch(next, a, b, false);
                        }
                        pre.span(s, scr_in, aux, c);
                        scr_in.cast_const()
                    }
                    None => s,
                };
                match self.post {
                    Some(post) => {
                        self.convert_run(from, scr_out, n, aux, phase, false);
                        post.span(scr_out, d, aux, c);
                    }
                    None => self.write(from, d, scr_out, n, aux, phase),
                }
            }
            j += c;
        }
    }
}

/// A staged row kernel whose rows can be moved without fencing each one's non-temporal stores: a run of rows
/// ([`span_by_span`]) or a row ([`fenced`]) fences once at its end.
///
/// PERF: a fence waits until every streamed line has left the write-combining buffers, and each row fenced its
/// own. One thread, Zen 4, streamed, `strider bench`: a u8 → f32 cast of 1024 rows of 1024 pixels × 3 (12 KiB out
/// each) whose input rows are 1040 pixels apart ran 730–750 µs against 490–510 µs for the same pixels packed (one
/// run, one fence).
pub(super) trait Unfenced: Rows {
    /// Whether rows may leave non-temporal stores behind (streaming).
    fn streams(&self) -> bool;

    /// [`Rows::span`] without the final fence.
    ///
    /// # Safety
    ///
    /// As [`Rows::span`]; the caller fences (when [`Unfenced::streams`]) before the output is read elsewhere.
    unsafe fn span_unfenced(&self, src: *const u8, dst: *mut u8, aux: *const u8, len: usize);

    /// The input bytes `[a, b)`, relative to a row's `src`, that a row reads first: [`span_by_span`] prefetches
    /// them for the rows ahead (none by default).
    fn lead(&self) -> (isize, isize) {
        (0, 0)
    }
}

/// [`Rows::span`] of a staged row kernel: the row, then the fence of its non-temporal stores.
///
/// # Safety
///
/// As [`Rows::span`].
pub(super) unsafe fn fenced(rows: &impl Unfenced, src: *const u8, dst: *mut u8, aux: *const u8, len: usize) {
    // SAFETY: forwarded contract.
    unsafe { rows.span_unfenced(src, dst, aux, len) };
    if rows.streams() {
        fence();
    }
}

/// Runs `count` rows in batches of up to `per`: each batch's rows read by `pre` into a buffer one after the other
/// (`row_bytes` apart), in one call, then `convert(buffer, dst, aux, k)` for the batch of `k` rows whose first
/// output and parameters are at `dst` and `aux`. Rows `r` start `r` steps (input, output, parameters) after the
/// first; the caller fences.
///
/// PERF: a call of `pre` per row entered the level's features and set up its lanes again for every row: one thread,
/// Zen 4, 8×128²×3 in L2, u8 → u8 mirrored NHWC 34.0 → 25.7 µs (VBMI), 45.4 → 38.3 µs (AVX2); subsampled 13.5 →
/// 10.1 and 16.4 → 13.7 µs; mirrored NCHW planes (8×3×128²), u8 → f32 155 → 39 µs, f32 → f32 162 → 49 µs (these
/// also went through the general staged row one at a time).
///
/// # Safety
///
/// As [`Rows::rows`] for `pre`'s rows; `per · row_bytes` fits a [`Scratch`]; `convert` is sound for each batch.
#[allow(clippy::too_many_arguments)]
unsafe fn in_batches(
    pre: &dyn Rows,
    src: *const u8,
    dst: *mut u8,
    aux: *const u8,
    count: usize,
    (in_step, out_step, aux_step): (isize, isize, isize),
    per: usize,
    row_bytes: usize,
    mut convert: impl FnMut(*const u8, *mut u8, *const u8, usize),
) {
    let mut a = Scratch::new();
    let scr_in = a.ptr();
    let mut r = 0;
    while r < count {
        let k = per.min(count - r);
        let at = r as isize;
        let (s, d, x) =
            (src.wrapping_offset(at * in_step), dst.wrapping_offset(at * out_step), aux.wrapping_offset(at * aux_step));
        // SAFETY: rows r..r + k of the run (contract), read into the buffer (k · row_bytes ≤ per · row_bytes, which
        // fits it).
        unsafe { pre.rows(s, scr_in, x, k, in_step, row_bytes as isize, aux_step) };
        convert(scr_in.cast_const(), d, x, k);
        r += k;
    }
}

/// Runs `count` rows of `len` elements through [`Unfenced::span_unfenced`], one at a time, and fences once; row
/// `r` starts `r` steps (input, output, parameters) after the first.
///
/// # Safety
///
/// As [`Rows::rows`].
pub(super) unsafe fn span_by_span(
    rows: &impl Unfenced,
    src: *const u8,
    dst: *mut u8,
    aux: *const u8,
    count: usize,
    (in_step, out_step, aux_step): (isize, isize, isize),
    len: usize,
) {
    let (mut s, mut d, mut x) = (src, dst, aux);
    let ahead = Ahead::start(src, rows.lead(), in_step, count);
    for r in 0..count {
        ahead.row(s, r, count);
        // SAFETY: each row of the run is in bounds (contract); fenced below.
        unsafe { rows.span_unfenced(s, d, x, len) };
        s = s.wrapping_offset(in_step);
        d = d.wrapping_offset(out_step);
        x = x.wrapping_offset(aux_step);
    }
    if rows.streams() {
        fence();
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
    if op.is_sequence() {
        return super::sequence::build_sequence(a, strategy, stream, f);
    }
    let (iw, ow) = (op.in_width(), op.out_width());
    let convert = Converter::of::<A>(op);
    let normalize = matches!(op, ElementOp::Normalize { .. });
    let width = |bytes| Width::from_bytes(bytes).expect("element types are 1, 2, 4 or 8 bytes wide");
    let (in_width, out_width) = (width(iw), width(ow));
    let g = strategy.geometry();
    let row = g.row();
    let len = row.extent;
    let rc = RowConv {
        convert,
        flush: stream.then(flush_fn::<A>),
        len,
        in_stride: row.in_stride,
        out_stride: row.out_stride,
        aux_stride: g.row_aux(),
        iw,
        ow,
        chunk: SCRATCH_BYTES / iw.max(ow),
    };
    let fold = || g.fold().expect("Strategy::choose pairs the transposing kinds with a folded dimension");
    // One-byte rows read mirrored or subsampled with one pair along the row: read through windows where the level
    // has the kernel (the portable level has none).
    let row_windows = match strategy.movement() {
        Movement::Reverse(_) | Movement::Gather { .. } if iw == 1 && g.row_aux() == 0 => {
            PixelWindows::new(1, row.in_stride, false)
        }
        _ => None,
    };
    // (Staged rows without `post` have the run's `flush`.)
    let windowed = |w| Windowed::of::<A>(op, w, None, stream, ow);
    match strategy.movement() {
        Movement::Copy => f(&rc.with(None, None, false)),
        Movement::Reverse(lanes) => maybe(a, Some(Request::Reverse(lanes)), in_width, len, &mut |pre| {
            f(&Staged { windowed: windowed(row_windows.as_ref()), ..rc.with(pre, None, false) })
        }),
        Movement::Gather { stride, lanes } => {
            let far = !strategy.near();
            maybe(a, Some(Request::Gather { stride: *stride, lanes, far }), in_width, len, &mut |pre| {
                f(&Staged { windowed: windowed(row_windows.as_ref()), ..rc.with(pre, None, false) })
            })
        }
        // One converted element repeated, unless parameters vary along the row: then the input element is
        // repeated and each copy converted with its own pair.
        Movement::Broadcast if normalize && g.row_aux() != 0 => {
            maybe(a, Some(Request::Broadcast), in_width, len, &mut |pre| f(&rc.with(pre, None, false)))
        }
        Movement::Broadcast => {
            maybe(a, Some(Request::Broadcast), out_width, len, &mut |post| f(&rc.with(None, post, true)))
        }
        Movement::Strided(lanes) => {
            let pre = (row.in_stride != iw as isize).then_some(Request::Strided {
                in_stride: row.in_stride,
                out_stride: iw as isize,
                lanes: lanes.as_ref(),
            });
            let post = (row.out_stride != ow as isize).then_some(Request::Strided {
                in_stride: ow as isize,
                out_stride: row.out_stride,
                lanes: lanes.as_ref(),
            });
            maybe(a, pre, in_width, len, &mut |pre| {
                maybe(a, post, out_width, len, &mut |post| f(&rc.with(pre, post, false)))
            })
        }
        Movement::Table(lanes) => {
            let t = g.table().expect("Strategy::choose pairs the table kind with a table");
            let post = (!t.contiguous()).then_some(Request::TableScatter(t.pairs()));
            let table_aux = (normalize && !g.table_aux().is_empty()).then(|| g.table_aux());
            maybe(a, Some(Request::TableGather { inputs: t.inputs(), lanes }), in_width, len, &mut |pre| {
                maybe(a, post, out_width, len, &mut |post| f(&Staged { table_aux, ..rc.with(pre, post, false) }))
            })
        }
        Movement::Transpose(tile) => {
            let i = fold();
            let near = strategy.near();
            let stores = (Stores { stream, cached: strategy.cached() }, near);
            let (ni, si, dj) = (i.extent, i.in_stride, row.out_stride);
            // (Compiled for the level whose tiles this one runs: V4 for V4 + VBMI.)
            let t = a.base();
            match tile_map(op, *tile, A::BYTES) {
                Some(TileMapOf::F32(m)) => return transpose::build_mapped::<_, 4, _>(t, m, ni, si, dj, len, stores, f),
                Some(TileMapOf::F16(m)) => return transpose::build_mapped::<_, 2, _>(t, m, ni, si, dj, len, stores, f),
                None => {}
            }
            let mut tiles = None;
            let order = match TileWidth::of(iw).filter(|_| transposes_first(iw, ow, stream, near, dj)) {
                Some(w) => Order::TransposeFirst(block_fn::<A::Base>(w, false, false)),
                None => {
                    // Blocks of (bi, bj) elements, bj·ow bytes apart in the buffer.
                    let (bi, bj) = block_shape(ni, len, ow, stream, dj);
                    let out_rows = transpose::out_rows_of::<A::Base>(*tile, bi, (bj * ow) as isize, dj, stores.0, near);
                    tiles = cast_tiles::<A::Base>(op, stream, out_rows, si, dj);
                    Order::ConvertFirst(block_fn::<A::Base>(*tile, stream, out_rows))
                }
            };
            let (ai, aj) = (g.fold_aux(), g.row_aux());
            let cached = strategy.cached();
            f(&StagedTranspose { convert, order, ni, si, ai, dj, aj, iw, ow, len, stream, tiles, cached })
        }
        Movement::Swap { .. } => unreachable!("Strategy::choose picks channel swaps for plain copies only"),
        Movement::Pixels { channels, read, pattern, write, spread, windows } => {
            let p = *channels;
            let pixel = width(p * iw);
            let pre = match read {
                PixelRead::Copy => None,
                PixelRead::Reverse(lanes) => Some(Request::Reverse(lanes)),
                PixelRead::Gather { stride, lanes } => {
                    Some(Request::Gather { stride: *stride, lanes, far: !strategy.near() })
                }
                PixelRead::Step { step, lanes } => {
                    Some(Request::Strided { in_stride: *step, out_stride: (p * iw) as isize, lanes: Some(lanes) })
                }
                PixelRead::Swap { step, lanes } => Some(Request::Swap { lanes, unit: iw, step: *step }),
            };
            // Runs that need no buffer are whole rows; buffered runs are multiples of 16 pixels, so a run's
            // elements fill whole 16-lane steps of the fused kernels and only a row's last few take the general
            // route (PERF, 1 thread, Zen 4, u8 8×64²×3 → f16 NHWC in L2: 682-pixel runs 14.8 µs → whole rows
            // 7 µs).
            let out_pixel = p * ow;
            let post = write.map(|s| Request::Strided {
                in_stride: out_pixel as isize,
                out_stride: s,
                lanes: spread.as_deref(),
            });
            let staged = pre.is_some() || post.is_some() || stream;
            let chunk = if staged { SCRATCH_BYTES / (p * iw.max(ow)) / 16 * 16 } else { len };
            maybe(a, pre, pixel, len, &mut |pre| {
                // (The width matters only with a `post`: Strategy::choose checked it then.)
                let post_width = Width::from_bytes(out_pixel).unwrap_or(pixel);
                maybe(a, post, post_width, len, &mut |post| {
                    f(&StagedPixels {
                        pre,
                        // (Windows only without `write`: no `post`, so `flush` is the run's.)
                        windowed: Windowed::of::<A>(op, windows.as_deref(), pattern.as_deref(), stream, ow),
                        post,
                        convert,
                        pattern: pattern.as_deref(),
                        // Strided pixels are written by `post`, with regular stores.
                        flush: (stream && post.is_none()).then(flush_fn::<A>),
                        channels: p,
                        in_stride: row.in_stride,
                        out_stride: write.unwrap_or(out_pixel as isize),
                        iw,
                        ow,
                        chunk,
                        len,
                    })
                })
            })
        }
        Movement::Generate => unreachable!("sequences are built by build_sequence"),
        Movement::Interleave(tables, _) | Movement::Deinterleave(tables) => {
            let ps = if tables.interleave { fold().in_stride } else { fold().out_stride };
            let first = match strategy.movement() {
                Movement::Interleave(_, first) => first.as_ref(),
                _ => None,
            };
            f(&StagedPlanar {
                first,
                convert,
                planar: planar_fn::<A>(tables.width),
                tables,
                ps,
                pixel_stride: row.in_stride,
                fused: fused_convert(op, tables.width)
                    .filter(|_| !tables.interleave && g.row_aux() == 0)
                    .map(|k| (fused_fn::<A>(), k)),
                stream,
                flush: stream.then(flush_fn::<A>),
                aplane: g.fold_aux(),
                arow: g.row_aux(),
                iw,
                ow,
                len,
            })
        }
    }
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::{TileMapOf, block_shape, tile_map};
    use crate::arch::{AffineF16, AffineF32};
    use crate::convert::ElemType;
    use crate::plan::ElementOp;
    use crate::strategy::TileWidth;

    #[test]
    fn converting_tiles_take_whole_tiles_one_wide_out_of_the_caches() {
        use super::tiles_take;
        // (rows, columns, cached)
        assert!(tiles_take(256, 16, false));
        assert!(tiles_take(32, 16, false));
        assert!(!tiles_take(128, 32, false));
        assert!(tiles_take(128, 32, true));
        assert!(tiles_take(64, 64, true));
        assert!(!tiles_take(41, 16, true));
        assert!(!tiles_take(256, 24, true));
    }

    #[test]
    fn converting_tiles_run_in_strips_over_rows_a_page_apart() {
        use super::strips;
        assert!(strips(4096) && strips(-4096) && strips(1 << 20));
        assert!(!strips(4000) && !strips(256) && !strips(-2048) && !strips(0));
    }

    #[test]
    fn blocks_into_output_rows_a_critical_stride_apart_take_whole_output_lines() {
        // (rows, columns, output width, stream, output stride) → (rows, columns) of a block
        assert_eq!(block_shape(1024, 1024, 2, false, 2048), (32, 128));
        assert_eq!(block_shape(1024, 1024, 2, false, 2000), (8, 512));
        assert_eq!(block_shape(1024, 1024, 4, false, 4096), (16, 128));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn converting_tiles_for_plain_f32_to_f16_casts() {
        use super::cast_tiles;
        use crate::arch::{Scalar, V3, V4, V4Vbmi};
        let cast = |from, to| ElementOp::Cast { from, to };
        let f32_f16 = cast(ElemType::F32, ElemType::F16);
        // (op, stream, out_rows, si, dj): planes of 128² f16 are 32 KiB apart (a multiple of the alias bytes), of 112²
        // not; input rows of 64 f32 channels are 256 bytes apart (not strips).
        assert!(cast_tiles::<V4>(&f32_f16, true, false, 256, 32768).is_some());
        assert!(cast_tiles::<V4Vbmi>(&f32_f16, false, false, 256, 25088).is_some());
        assert!(cast_tiles::<V4>(&f32_f16, false, false, 256, 32768).is_none(), "regular stores into aliased rows");
        assert!(
            cast_tiles::<V4>(&f32_f16, false, true, 256, 25088).is_none(),
            "blocks through the buffer of output rows"
        );
        assert!(cast_tiles::<V4>(&cast(ElemType::F32, ElemType::U8), true, false, 256, 25088).is_none());
        assert!(cast_tiles::<V4>(&cast(ElemType::F16, ElemType::F32), true, false, 256, 25088).is_none());
        let normalize = ElementOp::Normalize { from: ElemType::F32, to: ElemType::F16 };
        assert!(cast_tiles::<V4>(&normalize, true, false, 256, 25088).is_none());
        assert!(cast_tiles::<V3>(&f32_f16, true, false, 256, 25088).is_some(), "AVX2's converting tiles, streamed");
        assert!(cast_tiles::<V3>(&f32_f16, true, false, 256, 32768).is_some(), "streamed into aliased rows");
        assert!(
            cast_tiles::<V3>(&f32_f16, false, false, 256, 25088).is_none(),
            "AVX2 in the caches: the buffered path"
        );
        assert!(cast_tiles::<V3>(&f32_f16, false, false, 4096, 2048).is_some(), "AVX2 in the caches, in strips");
        assert!(cast_tiles::<V3>(&f32_f16, false, false, 2048, 4096).is_some(), "AVX2 into crowded output rows");
        assert!(cast_tiles::<V3>(&f32_f16, false, false, -8192, 2048).is_some(), "rows a page apart, backwards");
        assert!(cast_tiles::<Scalar>(&f32_f16, true, false, 4096, 25088).is_none());
    }

    #[test]
    fn widening_transposes_in_cache_transpose_first() {
        use super::transposes_first;
        // (input bytes, output bytes, stream, near)
        assert!(transposes_first(2, 4, false, true, 100));
        assert!(transposes_first(1, 4, false, true, 100));
        assert!(transposes_first(4, 4, false, true, 100));
        assert!(!transposes_first(4, 2, false, true, 100), "narrowing converts first");
        assert!(!transposes_first(2, 4, true, true, 100), "streamed: whole lines from the tiles");
        assert!(!transposes_first(2, 4, false, false, 100), "beyond the share");
        assert!(transposes_first(4, 8, true, false, 8192), "8-byte outputs into critical rows");
        assert!(!transposes_first(4, 8, true, false, 512), "8-byte outputs, streamed");
    }

    #[test]
    fn scale_bias_transposes_map_their_tiles() {
        let sb = |ty, scale, bias| ElementOp::ScaleBias { ty, scale, bias };
        let (f32s, f16s) = (sb(ElemType::F32, 0.5, 0.25), sb(ElemType::F16, 0.5, 0.25));
        // f32 on the SIMD levels, f16 on the AVX-512 ones; the portable level stages.
        for bytes in [32, 64] {
            assert_eq!(
                tile_map(&f32s, TileWidth::W4, bytes),
                Some(TileMapOf::F32(AffineF32 { scale: 0.5, bias: 0.25 }))
            );
        }
        assert_eq!(tile_map(&f32s, TileWidth::W4, 8), None);
        assert_eq!(tile_map(&f16s, TileWidth::W2, 64), Some(TileMapOf::F16(AffineF16 { scale: 0.5, bias: 0.25 })));
        assert_eq!(tile_map(&f16s, TileWidth::W2, 32), None);
        // NaN parameters (their payload is defined apart), f64, casts and normalizations stage.
        assert_eq!(tile_map(&sb(ElemType::F32, f32::NAN, 0.0), TileWidth::W4, 64), None);
        assert_eq!(tile_map(&sb(ElemType::F16, 1.0, f32::NAN), TileWidth::W2, 64), None);
        assert_eq!(tile_map(&sb(ElemType::F64, 0.5, 0.25), TileWidth::W8, 64), None);
        let cast = ElementOp::Cast { from: ElemType::F32, to: ElemType::F16 };
        assert_eq!(tile_map(&cast, TileWidth::W2, 64), None);
        let norm = ElementOp::Normalize { from: ElemType::F32, to: ElemType::F32 };
        assert_eq!(tile_map(&norm, TileWidth::W4, 64), None);
    }

    #[test]
    fn streamed_blocks_write_whole_output_lines() {
        // f32 NCHW → NHWC, 64 channels (rows) of 65536 pixels (columns): cached, 8 channels (32-byte output runs);
        // streamed, 16 (a whole line per pixel), the columns filling the 8 KiB buffer.
        assert_eq!(block_shape(64, 65536, 4, false, 100), (8, 256));
        assert_eq!(block_shape(64, 65536, 4, true, 100), (16, 128));
        // f16 output: 32 rows make a line; u8: 64.
        assert_eq!(block_shape(64, 65536, 2, true, 100), (32, 128));
        assert_eq!(block_shape(256, 65536, 1, true, 100), (64, 128));
        // Fewer rows than a line: all of them; short rows: as many rows as fill the buffer.
        assert_eq!(block_shape(12, 65536, 4, true, 100), (12, 170));
        assert_eq!(block_shape(4096, 16, 2, true, 100), (256, 16));
        assert_eq!(block_shape(4096, 16, 2, false, 100), (256, 16));
    }
}
