//! Element gathers by index with the hardware gather instructions: `out[k] = src[k·stride + index[k]·step]` for
//! a run of contiguous indices and contiguous 1-, 2-, 4- or 8-byte outputs (`np.take_along_axis`, ONNX
//! GatherElements, a gather whose rows are single elements; 1- and 2-byte elements as the dword from each, narrowed
//! in the register). AVX2 gathers 4 elements per instruction, AVX-512 8; each index is
//! normalized (negative ones count from the end) and tested against its bound in the registers, and a lane whose
//! index is outside is masked off (never read; [`IndexProgram`](crate::IndexProgram) proves there are none before
//! it runs, so this only keeps a wrong caller safe).
//!
//! PERF: on the Zen 4 VM, an f32 4096×1024 gather along the last axis by int64 indices ran at 2.6 ns per element
//! through the scalar loop (26 instructions each, the loop bound by them), against torch.gather's 4.9 ms (1.2 ns).
//! The hardware gathers then waited on memory, each row's lines fetched in random order: see [`NextWindow`].

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::Level;

/// A run of element gathers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ElementRun {
    /// The first index (contiguous, `n` of them).
    pub(crate) index: *const u8,
    /// The source of lane 0 before its index's offset.
    pub(crate) src: *const u8,
    /// The first output (contiguous).
    pub(crate) dst: *mut u8,
    pub(crate) n: usize,
    /// Bytes between the sources of consecutive lanes.
    pub(crate) src_stride: isize,
    /// Bytes per unit of the index.
    pub(crate) step: isize,
    /// Valid indices are `0..bound` (and `-bound..0` when `signed`).
    pub(crate) bound: u64,
    /// Non-temporal stores (the output must then start on a 64-byte line).
    pub(crate) stream: bool,
    /// A window the next run reads (`next_window.0 .. next_window.0 + next_window.1`), prefetched one line per step of this run
    /// (only a hint: any address).
    pub(crate) next_window: (*const u8, usize),
    /// The end of the readable source bytes (1- and 2-byte elements are gathered as the 4 bytes from each: the
    /// run takes the vector path only when those of its last possible element end by here).
    pub(crate) src_end: *const u8,
}

/// The integer type of an index tensor (little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexType {
    /// `int32`.
    I32,
    /// `uint32`.
    U32,
    /// `int64`.
    I64,
    /// `uint64`.
    U64,
}

impl IndexType {
    /// Bytes per index.
    pub fn width(self) -> usize {
        match self {
            IndexType::I32 | IndexType::U32 => 4,
            IndexType::I64 | IndexType::U64 => 8,
        }
    }

    /// Whether negative values exist (and count from the end).
    fn signed(self) -> bool {
        matches!(self, IndexType::I32 | IndexType::I64)
    }

    /// The test of an index `v` (sign- or zero-extended to 64 bits by its type) for a dimension of `bound`
    /// (≤ `i64::MAX`): valid when `v + bias`, as unsigned, is below `limit` — bias `bound` and limit `2·bound` for
    /// signed types (`-bound..bound`), bias 0 and limit `bound` for unsigned ones. One compare, no branch: the form
    /// every level's validity test uses.
    fn biased_limit(self, bound: u64) -> (u64, u64) {
        if self.signed() { (bound, bound.wrapping_mul(2)) } else { (0, bound) }
    }

    /// What the vector gathers add to an index read sign-extended at its width that comes out negative, for a
    /// dimension of `bound`: the bound for signed indices (counting from the end), 2³² for unsigned 32-bit ones
    /// (their true value), 0 for unsigned 64-bit ones (2⁶³ or more: past any bound, invalid). One form for every
    /// type, so that the gather loops hold no branch on it (and the scalar walks of `indexed` use it too).
    pub(crate) fn negative_offset(self, bound: u64) -> i64 {
        match self {
            IndexType::I32 | IndexType::I64 => bound as i64,
            IndexType::U32 => 1 << 32,
            IndexType::U64 => 0,
        }
    }
}

/// The value of one index (`bytes` holds exactly its width).
pub(crate) fn value(ty: IndexType, bytes: &[u8]) -> i128 {
    let mut b = [0u8; 8];
    b[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    match ty {
        IndexType::I32 => i128::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        IndexType::U32 => i128::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        IndexType::I64 => i128::from(i64::from_le_bytes(b)),
        IndexType::U64 => i128::from(u64::from_le_bytes(b)),
    }
}

/// `v` as an offset along a dimension of `bound`: negative values count from the end; `None` outside.
pub(crate) fn normalize(v: i128, bound: u64) -> Option<u64> {
    let b = i128::from(bound);
    let u = if v < 0 { v.checked_add(b)? } else { v };
    (0..b).contains(&u).then_some(u as u64)
}

/// Gathers a prefix of `run` with `level`'s instructions; returns how many elements it moved (0 when the level, the
/// width or the strides have no vector path; the caller moves the rest).
///
/// # Safety
///
/// Every element `k < run.n`: its index is readable, and when the index is valid, `src + k·src_stride +
/// index·step` is `width` readable bytes; the `n·width` output bytes are writable and no other thread writes them.
/// Streamed stores are not fenced: the caller fences once after its last run (an `sfence` waits for every streamed
/// line to leave the write-combining buffers).
pub(crate) unsafe fn elements(level: Level, lanes: IndexType, width: usize, run: &ElementRun) -> usize {
    // The vector offsets are 64-bit; AVX2 multiplies 32-bit halves: steps must fit 32 bits there.
    let lined = (run.dst as usize).is_multiple_of(64);
    if !matches!(width, 1 | 2 | 4 | 8) || run.bound > i64::MAX as u64 || run.n < 8 || (run.stream && !lined) {
        return 0;
    }
    if width < 4 && !dwords_readable(run) {
        return 0;
    }
    match level {
        Level::Scalar(_) => 0,
        #[cfg(target_arch = "x86_64")]
        Level::V3(_) if (0..=u32::MAX as isize).contains(&run.step) => {
            // SAFETY: the V3 token proves AVX2; the caller's contract covers the addresses.
            unsafe {
                match width {
                    1 => avx2::<1>(lanes, run),
                    2 => avx2::<2>(lanes, run),
                    4 => avx2::<4>(lanes, run),
                    _ => avx2::<8>(lanes, run),
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Level::V3(_) => 0,
        #[cfg(target_arch = "x86_64")]
        Level::V4(_) | Level::V4Vbmi(_) => {
            // SAFETY: the V4 tokens prove AVX-512 F/DQ/VL; the caller's contract covers the addresses.
            unsafe {
                match width {
                    1 => avx512::<1>(lanes, run),
                    2 => avx512::<2>(lanes, run),
                    4 => avx512::<4>(lanes, run),
                    _ => avx512::<8>(lanes, run),
                }
            }
        }
    }
}

/// Whether the 4 bytes from every element the run may read (any valid index, any lane) are readable: the lanes
/// and the index move forward, and the farthest element's 4 bytes end by `src_end`.
fn dwords_readable(r: &ElementRun) -> bool {
    let (Ok(ss), Ok(step)) = (usize::try_from(r.src_stride), usize::try_from(r.step)) else { return false };
    let (Some(last), Some(top)) = (r.n.checked_sub(1), r.bound.checked_sub(1)) else { return false };
    let reach = usize::try_from(top)
        .ok()
        .and_then(|top| last.checked_mul(ss)?.checked_add(top.checked_mul(step)?)?.checked_add(4));
    let room = (r.src_end as usize).checked_sub(r.src as usize);
    matches!((reach, room), (Some(reach), Some(room)) if reach <= room)
}

/// AVX2: 4 lanes of 64-bit offsets, `W`-byte elements (a constant: each width its own loop, no branch per step).
///
/// # Safety
///
/// AVX2 is available; as [`elements`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<const W: usize>(lanes: IndexType, r: &ElementRun) -> usize {
    let off = lanes.negative_offset(r.bound);
    // SAFETY: forwarded contract; AVX2 enabled here.
    unsafe { if lanes.width() == 4 { avx2_run::<W, true>(off, r) } else { avx2_run::<W, false>(off, r) } }
}

/// [`avx2`] for indices of 4 bytes (`NARROW`, sign-extended) or 8, each negative one offset by `off`
/// ([`IndexType::negative_offset`]).
///
/// PERF: `--isa v3`, 4096×1024 gathered along rows by int64 indices: with the index type's match and its sign test
/// inside the loop (where LLVM left them) 45.3 M instructions a call for f16, 43.4 M for f32 (callgrind); here
/// 35.1 M and 34.3 M. One thread, Zen 4 VM, tight loops, min of 10 alternations: 0.96–0.97 of the time (the
/// gathers wait on memory), two threads 0.97–0.98; 2.3 KB more code.
///
/// # Safety
///
/// As [`avx2`] (AVX2 is available).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn avx2_run<const W: usize, const NARROW: bool>(off: i64, r: &ElementRun) -> usize {
    // Streamed, whole lines only: the caller's regular stores of the rest then start on a line (see
    // `super::stream_lines`).
    let n = if r.stream { super::line_elements(r.n, W) } else { r.n / 4 * 4 };
    let zero = _mm256_setzero_si256();
    let off = _mm256_set1_epi64x(off);
    let bound = _mm256_set1_epi64x(r.bound as i64);
    let step = _mm256_set1_epi64x(r.step as i64);
    let ss = r.src_stride as i64;
    let lane = _mm256_set_epi64x(3 * ss, 2 * ss, ss, 0);
    let advance = _mm256_set1_epi64x(4i64.wrapping_mul(ss));
    let pack = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    let narrow2 = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    let narrow1 = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    let mut base = lane;
    let mut next = NextWindow::new(r.next_window);
    let mut k = 0;
    while k < n {
        next.line();
        // SAFETY: indices k..k+4 are readable (the caller's contract).
        let v = unsafe {
            if NARROW {
                _mm256_cvtepi32_epi64(_mm_loadu_si128(r.index.add(k * 4).cast()))
            } else {
                _mm256_loadu_si256(r.index.add(k * 8).cast())
            }
        };
        // Negative lanes offset: signed ones count from the end, unsigned 32-bit ones get their true value back,
        // unsigned 64-bit ones above i64::MAX stay negative: invalid.
        let v = _mm256_add_epi64(v, _mm256_and_si256(_mm256_cmpgt_epi64(zero, v), off));
        let valid = _mm256_andnot_si256(_mm256_cmpgt_epi64(zero, v), _mm256_cmpgt_epi64(bound, v));
        // Valid lanes are below the bound (< 2^32): the low halves multiply exactly.
        let offsets = _mm256_add_epi64(_mm256_mul_epu32(v, step), base);
        // SAFETY: valid lanes address readable elements, invalid ones are masked off and not read; the outputs
        // k..k+4 are writable.
        unsafe {
            if W <= 4 {
                let mask = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(valid, pack));
                let g = _mm256_mask_i64gather_epi32::<1>(_mm_setzero_si128(), r.src.cast(), offsets, mask);
                let d = r.dst.add(k * W);
                match W {
                    // 16-byte stores from a line: aligned.
                    4 if r.stream => _mm_stream_si128(d.cast(), g),
                    4 => _mm_storeu_si128(d.cast(), g),
                    // The low 2 bytes of each lane: 8 bytes.
                    2 => {
                        let v = _mm_cvtsi128_si64(_mm_shuffle_epi8(g, narrow2));
                        if r.stream { _mm_stream_si64(d.cast(), v) } else { d.cast::<i64>().write_unaligned(v) }
                    }
                    // The low byte of each lane: 4 bytes.
                    _ => {
                        let v = _mm_cvtsi128_si32(_mm_shuffle_epi8(g, narrow1));
                        if r.stream { _mm_stream_si32(d.cast(), v) } else { d.cast::<i32>().write_unaligned(v) }
                    }
                }
            } else {
                let g = _mm256_mask_i64gather_epi64::<1>(zero, r.src.cast(), offsets, valid);
                if r.stream {
                    _mm256_stream_si256(r.dst.add(k * 8).cast(), g);
                } else {
                    _mm256_storeu_si256(r.dst.add(k * 8).cast(), g);
                }
            }
        }
        base = _mm256_add_epi64(base, advance);
        k += 4;
    }
    n
}

/// AVX-512: 8 lanes of 64-bit offsets, `W`-byte elements (as [`avx2`]).
///
/// # Safety
///
/// AVX-512 F, DQ and VL are available; as [`elements`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn avx512<const W: usize>(lanes: IndexType, r: &ElementRun) -> usize {
    let off = lanes.negative_offset(r.bound);
    // SAFETY: forwarded contract; the features enabled here.
    unsafe { if lanes.width() == 4 { avx512_run::<W, true>(off, r) } else { avx512_run::<W, false>(off, r) } }
}

/// [`avx512`] for indices of 4 bytes (`NARROW`, sign-extended) or 8, each negative one offset by `off` (as
/// [`avx2_run`]).
///
/// # Safety
///
/// As [`avx512`] (AVX-512 F, DQ and VL are available).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn avx512_run<const W: usize, const NARROW: bool>(off: i64, r: &ElementRun) -> usize {
    // Streamed, whole lines only (as `avx2`).
    let n = if r.stream { super::line_elements(r.n, W) } else { r.n / 8 * 8 };
    let zero = _mm512_setzero_si512();
    let off = _mm512_set1_epi64(off);
    let bound = _mm512_set1_epi64(r.bound as i64);
    let step = _mm512_set1_epi64(r.step as i64);
    let ss = r.src_stride as i64;
    let lane = _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(ss));
    let advance = _mm512_set1_epi64(8i64.wrapping_mul(ss));
    let mut base = lane;
    let mut next = NextWindow::new(r.next_window);
    let mut k = 0;
    while k < n {
        next.line();
        // SAFETY: indices k..k+8 are readable (the caller's contract).
        let v = unsafe {
            if NARROW {
                _mm512_cvtepi32_epi64(_mm256_loadu_si256(r.index.add(k * 4).cast()))
            } else {
                _mm512_loadu_si512(r.index.add(k * 8).cast())
            }
        };
        let v = _mm512_mask_add_epi64(v, _mm512_cmplt_epi64_mask(v, zero), v, off);
        // Unsigned: negative leftovers and unsigned values above i64::MAX compare above the bound.
        let valid = _mm512_cmplt_epu64_mask(v, bound);
        let offsets = _mm512_add_epi64(_mm512_mullo_epi64(v, step), base);
        // SAFETY: valid lanes address readable elements, invalid ones are masked off and not read; the outputs
        // k..k+8 are writable.
        unsafe {
            if W <= 4 {
                let g = _mm512_mask_i64gather_epi32::<1>(_mm256_setzero_si256(), valid, offsets, r.src.cast());
                let d = r.dst.add(k * W);
                match W {
                    // 32-byte stores from a line: aligned.
                    4 if r.stream => _mm256_stream_si256(d.cast(), g),
                    4 => _mm256_storeu_si256(d.cast(), g),
                    // The low 2 bytes of each lane: 16 bytes, aligned when streamed.
                    2 if r.stream => _mm_stream_si128(d.cast(), _mm256_cvtepi32_epi16(g)),
                    2 => _mm_storeu_si128(d.cast(), _mm256_cvtepi32_epi16(g)),
                    // The low byte of each lane: 8 bytes.
                    _ => {
                        let v = _mm_cvtsi128_si64(_mm256_cvtepi32_epi8(g));
                        if r.stream { _mm_stream_si64(d.cast(), v) } else { d.cast::<i64>().write_unaligned(v) }
                    }
                }
            } else {
                let g = _mm512_mask_i64gather_epi64::<1>(zero, valid, offsets, r.src.cast());
                if r.stream {
                    _mm512_stream_si512(r.dst.add(k * 8).cast(), g);
                } else {
                    _mm512_storeu_si512(r.dst.add(k * 8).cast(), g);
                }
            }
        }
        base = _mm512_add_epi64(base, advance);
        k += 8;
    }
    n
}

/// A window prefetched one 64-byte line per call, lowest address first: the next run's source while this run's
/// gathers wait on theirs.
///
/// PERF: f32 4096×1024 gathered along rows of 4 KiB by int64 indices (a C model of the loop, Zen 4 VM, one
/// thread): the rows' lines come in random order, which the hardware prefetcher does not follow, so every gather
/// waited on memory: 4.5 ms (AVX-512) and 4.2–4.7 ms (AVX2) without, 2.1 and 2.2–2.3 ms with the next row
/// prefetched a line per step (the whole row at once before it: no gain; two rows ahead: 2.3 ms).
struct NextWindow {
    at: *const u8,
    end: *const u8,
}

impl NextWindow {
    /// The window `(start, bytes)`.
    #[inline(always)]
    fn new((start, bytes): (*const u8, usize)) -> NextWindow {
        NextWindow { at: start, end: start.wrapping_add(bytes) }
    }

    /// Prefetches the next line of the window, if any is left.
    #[inline(always)]
    fn line(&mut self) {
        if self.at < self.end {
            super::prefetch(self.at, 0, 1, false);
            self.at = self.at.wrapping_add(64);
        }
    }
}

/// Whether every one of the `n` contiguous indices at `index` is valid for `bound` (negative ones from the end for
/// signed lanes), with `level`'s registers; `None` when the level has no vector path (the caller checks).
///
/// # Safety
///
/// `n` indices of `lanes`' width are readable at `index`.
pub(crate) unsafe fn all_valid(level: Level, lanes: IndexType, index: *const u8, n: usize, bound: u64) -> Option<bool> {
    if bound > i64::MAX as u64 {
        return None;
    }
    match level {
        Level::Scalar(_) => {
            // SAFETY: `n` indices of `lanes`' width are readable at `index` (contract).
            let bytes = unsafe { core::slice::from_raw_parts(index, n.wrapping_mul(lanes.width())) };
            Some(valid_portable(lanes, bytes, bound))
        }
        #[cfg(target_arch = "x86_64")]
        Level::V3(_) => {
            // SAFETY: the V3 token proves AVX2; `n` indices are readable.
            Some(unsafe { valid_avx2(lanes, index, n, bound) })
        }
        #[cfg(target_arch = "x86_64")]
        Level::V4(_) | Level::V4Vbmi(_) => {
            // SAFETY: the V4 tokens prove AVX-512 F; `n` indices are readable.
            Some(unsafe { valid_avx512(lanes, index, n, bound) })
        }
    }
}

/// The portable level's test of the indices in `bytes` (`bound` ≤ `i64::MAX`): [`valid_avx2`]'s biased unsigned
/// compare on each, one loop per index type, every index tested (no early exit, so that the compiler can keep the
/// loop free of branches).
///
/// PERF: `--isa scalar`, 4096×1024 gathered along rows by int64 indices: the check went through [`value`] and
/// [`normalize`] (an i128 per index), 157 M instructions a call (37 an index) against 80 M for the gather itself;
/// this loop 24 M (callgrind). One thread, Zen 4 VM, min of 4: f32 25.0 → 9.4 ms, f16 21.0 → 6.6 ms; the scatter of
/// 4096×256 into 4096×1024 62 → 29 M instructions. (The level every CPU without AVX2 runs, Arm included.)
fn valid_portable(lanes: IndexType, bytes: &[u8], bound: u64) -> bool {
    let (bias, limit) = lanes.biased_limit(bound);
    let ok = |v: u64| v.wrapping_add(bias) < limit;
    match lanes {
        IndexType::I32 => all_of(bytes, |b| ok(i64::from(i32::from_le_bytes(b)) as u64)),
        IndexType::U32 => all_of(bytes, |b| ok(u64::from(u32::from_le_bytes(b)))),
        IndexType::I64 => all_of(bytes, |b| ok(i64::from_le_bytes(b) as u64)),
        IndexType::U64 => all_of(bytes, |b| ok(u64::from_le_bytes(b))),
    }
}

/// Whether `ok` holds for every whole `W`-byte chunk of `bytes` (all tested: no branch in the loop).
#[inline(always)]
fn all_of<const W: usize>(bytes: &[u8], ok: impl Fn([u8; W]) -> bool) -> bool {
    bytes.as_chunks::<W>().0.iter().fold(true, |all, &b| all & ok(b))
}

/// The scalar test of one index (the tails of the vector loops).
fn valid_one(ty: IndexType, p: *const u8, bound: u64) -> bool {
    // SAFETY: the callers pass a readable index of `ty`'s width.
    let bytes = unsafe { core::slice::from_raw_parts(p, ty.width()) };
    let (bias, limit) = ty.biased_limit(bound);
    // `value` is exact; its low 64 bits are the index sign- or zero-extended, as the vector loops read it.
    (value(ty, bytes) as u64).wrapping_add(bias) < limit
}

/// AVX2: [`IndexType::biased_limit`]'s test, 4 lanes at a time; unsigned 64-bit compares flip the sign bit.
///
/// # Safety
///
/// AVX2 is available; `n` indices are readable.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn valid_avx2(lanes: IndexType, index: *const u8, n: usize, bound: u64) -> bool {
    let (bias, limit) = lanes.biased_limit(bound);
    let flip = _mm256_set1_epi64x(i64::MIN);
    let bias_v = _mm256_set1_epi64x(bias as i64);
    let limit_v = _mm256_xor_si256(_mm256_set1_epi64x(limit as i64), flip);
    let mut bad = _mm256_setzero_si256();
    let (w, per) = (lanes.width(), 4);
    let m = n / per * per;
    let mut k = 0;
    while k < m {
        // SAFETY: indices k..k+4 are readable.
        let v = unsafe {
            match lanes {
                IndexType::I32 => _mm256_cvtepi32_epi64(_mm_loadu_si128(index.add(k * w).cast())),
                IndexType::U32 => _mm256_cvtepu32_epi64(_mm_loadu_si128(index.add(k * w).cast())),
                IndexType::I64 | IndexType::U64 => _mm256_loadu_si256(index.add(k * w).cast()),
            }
        };
        let x = _mm256_xor_si256(_mm256_add_epi64(v, bias_v), flip);
        // Invalid: x ≥ limit (unsigned), i.e. not (limit > x).
        bad = _mm256_or_si256(bad, _mm256_andnot_si256(_mm256_cmpgt_epi64(limit_v, x), _mm256_set1_epi64x(-1)));
        k += per;
    }
    // SAFETY: the tail indices are readable.
    _mm256_testz_si256(bad, bad) == 1 && (m..n).all(|k| valid_one(lanes, unsafe { index.add(k * w) }, bound))
}

/// AVX-512: as [`valid_avx2`] with 8 lanes and unsigned mask compares.
///
/// # Safety
///
/// AVX-512 F is available; `n` indices are readable.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn valid_avx512(lanes: IndexType, index: *const u8, n: usize, bound: u64) -> bool {
    let (bias, limit) = lanes.biased_limit(bound);
    let bias_v = _mm512_set1_epi64(bias as i64);
    let limit_v = _mm512_set1_epi64(limit as i64);
    let mut bad: __mmask8 = 0;
    let w = lanes.width();
    let m = n / 8 * 8;
    let mut k = 0;
    while k < m {
        // SAFETY: indices k..k+8 are readable.
        let v = unsafe {
            match lanes {
                IndexType::I32 => _mm512_cvtepi32_epi64(_mm256_loadu_si256(index.add(k * w).cast())),
                IndexType::U32 => _mm512_cvtepu32_epi64(_mm256_loadu_si256(index.add(k * w).cast())),
                IndexType::I64 | IndexType::U64 => _mm512_loadu_si512(index.add(k * w).cast()),
            }
        };
        bad |= _mm512_cmpge_epu64_mask(_mm512_add_epi64(v, bias_v), limit_v);
        k += 8;
    }
    // SAFETY: the tail indices are readable.
    bad == 0 && (m..n).all(|k| valid_one(lanes, unsafe { index.add(k * w) }, bound))
}

/// Copies `len` bytes from `src` to `dst`; with `stream`, the whole lines of `dst` by non-temporal stores (the
/// bytes before the first line and after the last by `memcpy`). A gathered row of an embedding lookup: a plain
/// `memcpy` of each row left a 64 MiB gather of 1 KiB rows at 2.4× a copy of its bytes, its stores reading every
/// line of the output first. Streamed stores are not fenced: the caller fences once after its last row (PERF: a
/// fence after each 1 KiB row of that gather, one thread, Zen 4: 9.5 ms; one per call: see `IndexProgram`).
///
/// # Safety
///
/// `src` is readable and `dst` writable for `len` bytes; they do not overlap.
pub(crate) unsafe fn copy_row(level: Level, src: *const u8, dst: *mut u8, len: usize, stream: bool) {
    let head = (dst as usize).wrapping_neg() % 64;
    if !stream || len < head + 64 {
        // SAFETY: the caller's contract.
        unsafe { core::ptr::copy_nonoverlapping(src, dst, len) };
        return;
    }
    let body = (len - head) / 64 * 64;
    // SAFETY: the caller's contract; the three parts split the row.
    unsafe {
        core::ptr::copy_nonoverlapping(src, dst, head);
        let moved = match level {
            #[cfg(target_arch = "x86_64")]
            Level::V3(_) => stream_avx2(src.add(head), dst.add(head), body),
            #[cfg(target_arch = "x86_64")]
            Level::V4(_) | Level::V4Vbmi(_) => stream_avx512(src.add(head), dst.add(head), body),
            _ => 0,
        };
        core::ptr::copy_nonoverlapping(src.add(head + moved), dst.add(head + moved), len - head - moved);
    }
}

/// Non-temporal copy of `n` bytes (a multiple of 64) to a line-aligned `dst`; returns `n`.
///
/// # Safety
///
/// AVX2; `src` readable and `dst` writable for `n` bytes, `dst` on a line.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stream_avx2(src: *const u8, dst: *mut u8, n: usize) -> usize {
    let mut k = 0;
    while k < n {
        // SAFETY: the caller's contract.
        unsafe {
            let a = _mm256_loadu_si256(src.add(k).cast());
            let b = _mm256_loadu_si256(src.add(k + 32).cast());
            _mm256_stream_si256(dst.add(k).cast(), a);
            _mm256_stream_si256(dst.add(k + 32).cast(), b);
        }
        k += 64;
    }
    n
}

/// [`stream_avx2`] with 64-byte registers.
///
/// # Safety
///
/// AVX-512 F; as [`stream_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn stream_avx512(src: *const u8, dst: *mut u8, n: usize) -> usize {
    let mut k = 0;
    while k < n {
        // SAFETY: the caller's contract.
        unsafe { _mm512_stream_si512(dst.add(k).cast(), _mm512_loadu_si512(src.add(k).cast())) };
        k += 64;
    }
    n
}

#[cfg(feature = "selftest")]
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;
    use crate::Isa;

    /// Every level against the definition: each index type, both widths, negative and invalid indices (invalid
    /// lanes are not read and leave 0), strided sources, tails, streamed stores from a line; and the validity test.
    #[test]
    fn gathers_and_checks_match_the_definition_on_every_level() {
        let bound = 37u64;
        let src: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 11) as u8).collect();
        for isa in Isa::available() {
            let level = Level::of(isa).unwrap();
            for lanes in [IndexType::I32, IndexType::U32, IndexType::I64, IndexType::U64] {
                let (signed, iw) = (lanes.signed(), lanes.width());
                for n in [8usize, 13, 64, 67] {
                    for invalid in [None, Some(n / 2)] {
                        let values: Vec<i64> = (0..n as i64)
                            .map(|k| {
                                if Some(k as usize) == invalid {
                                    // Unsigned: past the bound, or the type's largest value (−1 read
                                    // sign-extended: counted from the end, it would be element 36).
                                    match (signed, n % 2, iw) {
                                        (true, _, _) => -38,
                                        (false, 1, _) => 37,
                                        (false, _, 4) => i64::from(u32::MAX),
                                        _ => -1,
                                    }
                                } else if signed {
                                    (k * 7) % 74 - 37
                                } else {
                                    (k * 7) % 37
                                }
                            })
                            .collect();
                        let index: Vec<u8> = values.iter().flat_map(|&v| v.to_le_bytes()[..iw].to_vec()).collect();
                        // SAFETY: `index` holds `n` indices.
                        let ok = unsafe { all_valid(level, lanes, index.as_ptr(), n, bound) };
                        if let Some(ok) = ok {
                            assert_eq!(ok, invalid.is_none(), "{isa:?} {lanes:?} n {n}");
                        }
                        for width in [1usize, 2, 4, 8] {
                            for stream in [false, true] {
                                let mut out = vec![0xEEu8; n * width + 128];
                                let start = out.as_ptr().align_offset(64);
                                let run = ElementRun {
                                    index: index.as_ptr(),
                                    src: src[16..].as_ptr(),
                                    dst: out[start..].as_mut_ptr(),
                                    n,
                                    src_stride: 24,
                                    step: 8,
                                    bound,
                                    stream,
                                    next_window: (src.as_ptr(), 64),
                                    src_end: src.as_ptr_range().end,
                                };
                                // SAFETY: valid indices reach at most 16 + 66·24 + 36·8 + 8 < 4096 bytes of `src`;
                                // `out` holds the outputs.
                                let done = unsafe { elements(level, lanes, width, &run) };
                                if isa != Isa::Scalar && !stream {
                                    assert!(done >= n / 8 * 8, "{isa:?} {lanes:?} width {width}: no vector path");
                                }
                                for k in 0..done {
                                    let v = values[k];
                                    // (A negative unsigned value is the u64 above i64::MAX: invalid.)
                                    let u = if v >= 0 {
                                        v
                                    } else if signed {
                                        v + 37
                                    } else {
                                        -1
                                    };
                                    let got = &out[start + k * width..][..width];
                                    if (0..37).contains(&u) {
                                        let at = 16 + k * 24 + u as usize * 8;
                                        assert_eq!(got, &src[at..at + width], "{isa:?} {lanes:?} n {n} lane {k}");
                                    } else {
                                        assert!(got.iter().all(|&b| b == 0), "{isa:?}: an invalid lane was read");
                                    }
                                }
                                assert!(out[start + done * width..].iter().all(|&b| b == 0xEE), "wrote past");
                            }
                        }
                    }
                }
            }
        }
    }

    /// One- and two-byte elements are gathered as the 4 bytes from each: only where those of the farthest element
    /// the run may read lie before the source's end.
    #[test]
    fn narrow_gathers_never_read_past_the_source() {
        let src: Vec<u8> = (0..64u8).collect();
        let index: Vec<u8> = (0..16u32).flat_map(|k| (k % 5).to_le_bytes()).collect();
        for isa in Isa::available() {
            let level = Level::of(isa).unwrap();
            for width in [1usize, 2] {
                // Lanes 3 bytes apart, indices below 5 of `width` bytes: the farthest element starts at
                // 15·3 + 4·width.
                let reach = 15 * 3 + 4 * width + 4;
                for end in [reach - 1, reach] {
                    let mut out = vec![0u8; 16 * width];
                    let run = ElementRun {
                        index: index.as_ptr(),
                        src: src.as_ptr(),
                        dst: out.as_mut_ptr(),
                        n: 16,
                        src_stride: 3,
                        step: width as isize,
                        bound: 5,
                        stream: false,
                        next_window: (core::ptr::null(), 0),
                        src_end: src[..end].as_ptr_range().end,
                    };
                    // SAFETY: every element and its 4 bytes lie inside `src`; `out` holds the outputs.
                    let done = unsafe { elements(level, IndexType::U32, width, &run) };
                    let vector = isa != Isa::Scalar && end == reach;
                    assert_eq!(done, if vector { 16 } else { 0 }, "{isa:?} width {width} end {end}");
                    for k in 0..done {
                        let at = k * 3 + (k % 5) * width;
                        assert_eq!(&out[k * width..][..width], &src[at..at + width], "{isa:?} lane {k}");
                    }
                }
            }
        }
    }

    /// A row copy with and without streamed lines, at every misalignment and length around a line.
    #[test]
    fn row_copies_are_exact() {
        let src: Vec<u8> = (0..600u32).map(|i| (i * 7) as u8).collect();
        for isa in Isa::available() {
            let level = Level::of(isa).unwrap();
            for len in [0usize, 1, 63, 64, 65, 127, 128, 200, 511] {
                for misalign in [0usize, 1, 16, 63] {
                    for stream in [false, true] {
                        let mut out = vec![0xEEu8; 600 + 64];
                        let start = out.as_ptr().align_offset(64) + misalign;
                        // SAFETY: `len` + 64 + 63 bytes fit `out` and `src`.
                        unsafe { copy_row(level, src[3..].as_ptr(), out[start..].as_mut_ptr(), len, stream) };
                        assert_eq!(&out[start..start + len], &src[3..3 + len], "{isa:?} {len} {misalign} {stream}");
                        assert!(out[start + len..].iter().all(|&b| b == 0xEE));
                    }
                }
            }
        }
    }
}
