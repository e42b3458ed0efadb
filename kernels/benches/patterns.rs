//! The memory access patterns of the public workloads that stay furthest from the physical limit, alone: the same
//! cache lines read and written in the same order as the kernel that runs them, as plain line moves without the
//! register work (no transposing shuffles, no element picks), timed in one process beside the operator itself and
//! beside the copy that defines `strider bench`'s `t/limit` (a memcpy of half the bytes the operator must move:
//! the input lines it reads plus its output).
//!
//! Where the pattern alone costs about what the operator costs, the bound is the access pattern (how the lines meet
//! the caches, prefetchers and memory), not the kernel; where it costs about what the limit copy costs, the
//! remaining time is the kernel's. Orders that the kernels do not use (a transpose's tiles in diagonals rather than
//! columns, whole-line against half-line moves) are timed beside them, so the choice of order is measured too.
//!
//! `cargo bench -p strider-kernels --bench patterns [-- FILTER] [--threads=1,2] [--isa=v3]`: at one and two threads
//! (the operator with the pool's default split at two, each pattern's outermost loop and the limit copy halved), best
//! and median of 7 alternating rounds, each the median of as many runs as fit 40 ms. The patterns move lines through
//! the registers of the level the operator runs at: AVX-512 where the CPU has it, AVX2 otherwise or with `--isa=v3`
//! (or `STRIDER_MAX_ISA=v3`), which also runs the operator at that level — what an AVX2 machine (most laptops and
//! desktops, AMD before Zen 4) gets. x86-64 only.

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::main();
    #[cfg(not(target_arch = "x86_64"))]
    println!("the patterns are written for x86-64: nothing to measure here");
}

/// The cases and their patterns (line moves through AVX-512 or AVX2 registers).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::hint::black_box;
    use std::time::Instant;

    use core::arch::x86_64::*;

    use strider::{
        Cast, DataType, ExecOptions, IMAGENET_MEAN, IMAGENET_STD, Identity, Isa, Normalize, Slice1, TensorDesc,
    };

    /// A 64-byte-aligned byte buffer.
    struct Buf {
        bytes: Vec<u8>,
        offset: usize,
    }

    impl Buf {
        fn new(len: usize) -> Buf {
            let bytes = vec![1u8; len + 64];
            let offset = bytes.as_ptr().align_offset(64);
            Buf { bytes, offset }
        }

        fn slice(&self, len: usize) -> &[u8] {
            &self.bytes[self.offset..self.offset + len]
        }

        fn slice_mut(&mut self, len: usize) -> &mut [u8] {
            &mut self.bytes[self.offset..self.offset + len]
        }
    }

    /// The register moves a pattern is written with, at one width: AVX-512's 64-byte registers or AVX2's 32-byte
    /// ones (a line in two).
    ///
    /// # Safety (of every method)
    ///
    /// The level's features are enabled in the caller (the patterns run inside [`run_avx512`] or [`run_avx2`]).
    trait Lines {
        /// Moves `N` bytes (a line for N = 64, a tile row's share of one for less) from `s` to `d` (the same 16- and
        /// 32-byte moves at both levels).
        ///
        /// # Safety
        ///
        /// `N` (16, 32 or 64) readable bytes at `s`, writable at `d`.
        #[inline(always)]
        unsafe fn mv<const N: usize>(s: *const u8, d: *mut u8) {
            // SAFETY: the method's contract (AVX at both levels).
            unsafe {
                match N {
                    64 => Self::line::<1, false>([s], d),
                    32 => _mm256_storeu_si256(d.cast(), _mm256_loadu_si256(s.cast())),
                    16 => _mm_storeu_si128(d.cast(), _mm_loadu_si128(s.cast())),
                    _ => unreachable!("moves of 16, 32 or 64 bytes"),
                }
            }
        }

        /// Stores into the line at `d` the bitwise or of the `K` lines at `s` (a gather's `K` input lines per output
        /// line, their picks left out), regularly or streamed.
        ///
        /// # Safety
        ///
        /// 64 readable bytes at each of `s`, writable at `d` (aligned to 64 when `STREAM`).
        unsafe fn line<const K: usize, const STREAM: bool>(s: [*const u8; K], d: *mut u8);

        /// The 32 f32 at `s` converted to f16 (nearest even) into the line at `d`, regularly or streamed.
        ///
        /// # Safety
        ///
        /// 128 readable bytes at `s`, 64 writable at `d` (aligned to 64 when `STREAM`).
        unsafe fn f16_line<const STREAM: bool>(s: *const u8, d: *mut u8);

        /// The 32 bytes at `s` as u8, `x·scale + bias` in f32 (product, then sum), converted to f16 (nearest even)
        /// into the line at `d`: Normalize's arithmetic into f16 without its deinterleave.
        ///
        /// # Safety
        ///
        /// 32 readable bytes at `s`, 64 writable at `d`.
        unsafe fn normalized_f16_line(s: *const u8, scale: f32, bias: f32, d: *mut u8);
    }

    /// [`Lines`] with AVX-512 F/BW.
    struct Avx512;

    impl Lines for Avx512 {
        #[inline(always)]
        unsafe fn line<const K: usize, const STREAM: bool>(s: [*const u8; K], d: *mut u8) {
            // SAFETY: the method's contract.
            unsafe {
                let v = s.iter().fold(_mm512_setzero_si512(), |v, &p| _mm512_or_si512(v, _mm512_loadu_si512(p.cast())));
                if STREAM { _mm512_stream_si512(d.cast(), v) } else { _mm512_storeu_si512(d.cast(), v) }
            }
        }

        #[inline(always)]
        unsafe fn f16_line<const STREAM: bool>(s: *const u8, d: *mut u8) {
            // SAFETY: the method's contract.
            unsafe {
                let half =
                    |k: usize| _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_loadu_ps(s.add(64 * k).cast()));
                let v = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(0)), half(1));
                if STREAM { _mm512_stream_si512(d.cast(), v) } else { _mm512_storeu_si512(d.cast(), v) }
            }
        }

        #[inline(always)]
        unsafe fn normalized_f16_line(s: *const u8, scale: f32, bias: f32, d: *mut u8) {
            // SAFETY: the method's contract.
            unsafe {
                let (m, b) = (_mm512_set1_ps(scale), _mm512_set1_ps(bias));
                let half = |k: usize| {
                    let x = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(s.add(16 * k).cast())));
                    _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_add_ps(_mm512_mul_ps(x, m), b))
                };
                _mm512_storeu_si512(d.cast(), _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(0)), half(1)));
            }
        }
    }

    /// [`Lines`] with AVX2 and F16C: a line in two registers.
    struct Avx2;

    impl Lines for Avx2 {
        #[inline(always)]
        unsafe fn line<const K: usize, const STREAM: bool>(s: [*const u8; K], d: *mut u8) {
            // SAFETY: the method's contract (two halves of each line).
            unsafe {
                for h in [0, 32] {
                    let v = s
                        .iter()
                        .fold(_mm256_setzero_si256(), |v, &p| _mm256_or_si256(v, _mm256_loadu_si256(p.add(h).cast())));
                    let to = d.add(h).cast();
                    if STREAM { _mm256_stream_si256(to, v) } else { _mm256_storeu_si256(to, v) }
                }
            }
        }

        #[inline(always)]
        unsafe fn f16_line<const STREAM: bool>(s: *const u8, d: *mut u8) {
            // SAFETY: the method's contract.
            unsafe {
                let q = |k: usize| _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(s.add(32 * k).cast()));
                for h in 0..2 {
                    let v = _mm256_set_m128i(q(2 * h + 1), q(2 * h));
                    let to = d.add(32 * h).cast();
                    if STREAM { _mm256_stream_si256(to, v) } else { _mm256_storeu_si256(to, v) }
                }
            }
        }

        #[inline(always)]
        unsafe fn normalized_f16_line(s: *const u8, scale: f32, bias: f32, d: *mut u8) {
            // SAFETY: the method's contract.
            unsafe {
                let (m, b) = (_mm256_set1_ps(scale), _mm256_set1_ps(bias));
                let q = |k: usize| {
                    let x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(s.add(8 * k).cast())));
                    _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_add_ps(_mm256_mul_ps(x, m), b))
                };
                for h in 0..2 {
                    _mm256_storeu_si256(d.add(32 * h).cast(), _mm256_set_m128i(q(2 * h + 1), q(2 * h)));
                }
            }
        }
    }

    /// Median seconds of one call, over as many calls as fit 40 ms.
    fn time(f: &mut dyn FnMut()) -> f64 {
        let mut runs = Vec::new();
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < 0.04 || runs.len() < 3 {
            let t = Instant::now();
            f();
            runs.push(t.elapsed().as_secs_f64());
        }
        runs.sort_by(f64::total_cmp);
        runs[runs.len() / 2]
    }

    /// Part `k` of `of` of a pattern's outermost loop (the threads of a run split it as the walks split theirs).
    #[derive(Clone, Copy)]
    struct Part {
        k: usize,
        of: usize,
    }

    impl Part {
        /// This part's share of `0..n`.
        fn range(self, n: usize) -> std::ops::Range<usize> {
            n * self.k / self.of..n * (self.k + 1) / self.of
        }
    }

    /// A case's pattern: what it is, and which ([`run`]).
    type Pattern = (&'static str, Pat);

    /// The patterns, each a function below.
    #[derive(Clone, Copy)]
    enum Pat {
        Rank5Tiles,
        Rank5Lines,
        TransposeColumns,
        TransposeDiagonals,
        NhwcTiles,
        NhwcLines,
        CastLines,
        CastLinesStreamed,
        Stride3,
        HwStride2,
        Crop384,
        PaddedRows,
        PaddedRowsStreamed,
        HflipLines,
        HflipPieces,
        NormalizeF16,
    }

    /// One run of one part of pattern `p` from an input into an output of its case's sizes, with the moves of `L`.
    ///
    /// # Safety
    ///
    /// `L`'s features are enabled; the input holds the case's `in_len` readable bytes, the output `out_len` writable
    /// ones, both aligned to 64 (every offset a pattern touches is inside its case's sizes, by construction); parts
    /// run at the same time write disjoint output bytes.
    #[inline(always)]
    unsafe fn run<L: Lines>(p: Pat, src: *const u8, dst: *mut u8, part: Part) {
        // SAFETY: forwarded contract.
        unsafe {
            match p {
                Pat::Rank5Tiles => rank5::<L, 32>(src, dst, part),
                Pat::Rank5Lines => rank5::<L, 64>(src, dst, part),
                Pat::TransposeColumns => transpose::<L, false>(src, dst, part),
                Pat::TransposeDiagonals => transpose::<L, true>(src, dst, part),
                Pat::NhwcTiles => nhwc_tiles::<L>(src, dst, part),
                Pat::NhwcLines => nhwc_lines::<L>(src, dst, part),
                Pat::CastLines => cast_lines::<L, false>(src, dst, part),
                Pat::CastLinesStreamed => cast_lines::<L, true>(src, dst, part),
                Pat::Stride3 => stride3::<L>(src, dst, part),
                Pat::HwStride2 => hw_stride2::<L>(src, dst, part),
                Pat::Crop384 => crop384::<L>(src, dst, part),
                Pat::PaddedRows => padded_rows::<L, false>(src, dst, part),
                Pat::PaddedRowsStreamed => padded_rows::<L, true>(src, dst, part),
                Pat::HflipLines => hflip_lines::<L>(src, dst, part),
                Pat::HflipPieces => hflip_pieces::<L>(src, dst, part),
                Pat::NormalizeF16 => normalize_f16::<L>(src, dst, part),
            }
        }
    }

    /// [`run`] with AVX-512 F/BW.
    ///
    /// # Safety
    ///
    /// As [`run`]; the CPU has AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn run_avx512(p: Pat, src: *const u8, dst: *mut u8, part: Part) {
        // SAFETY: forwarded contract; the features are enabled here.
        unsafe { run::<Avx512>(p, src, dst, part) }
    }

    /// [`run`] with AVX2 and F16C.
    ///
    /// # Safety
    ///
    /// As [`run`]; the CPU has AVX2 and F16C.
    #[target_feature(enable = "avx,avx2,f16c")]
    unsafe fn run_avx2(p: Pat, src: *const u8, dst: *mut u8, part: Part) {
        // SAFETY: forwarded contract; the features are enabled here.
        unsafe { run::<Avx2>(p, src, dst, part) }
    }

    /// The operator of a case with the given options (sequential at one thread, the pool's threads at two).
    type Operator = Box<dyn Fn(&[u8], &mut [u8], &ExecOptions) + Sync>;

    /// Runs `f` on the calling thread at one thread, in the two-thread pool at two.
    fn on<R: Send>(pool: &rayon::ThreadPool, threads: usize, f: impl FnOnce() -> R + Send) -> R {
        if threads == 1 { f() } else { pool.install(f) }
    }

    /// Runs `f` on every part of `threads` (1 or 2), the second on the pool's other thread.
    fn in_parts(pool: &rayon::ThreadPool, threads: usize, f: &(dyn Fn(Part) + Sync)) {
        if threads == 1 {
            f(Part { k: 0, of: 1 })
        } else {
            on(pool, threads, || rayon::join(|| f(Part { k: 0, of: 2 }), || f(Part { k: 1, of: 2 })));
        }
    }

    /// A public workload: the operator, the bytes it must move (for the limit copy), and its patterns.
    struct Case {
        name: &'static str,
        op: Operator,
        in_len: usize,
        out_len: usize,
        must_move: usize,
        patterns: Vec<Pattern>,
    }

    fn f32s(sizes: &[u32]) -> TensorDesc {
        TensorDesc::new(DataType::Float32, sizes).unwrap()
    }

    fn identity(input: TensorDesc, output: TensorDesc) -> Operator {
        let op = Identity::new(&input, &output).unwrap();
        Box::new(move |s, d, o| op.execute_with(s, d, o).unwrap())
    }

    fn slice1(input: TensorDesc, output: TensorDesc, offsets: [u32; 4], window: [u32; 4]) -> Operator {
        let op = Slice1::new(&input, &output, &offsets, &window, &[1, 1, 2, 2]).unwrap();
        Box::new(move |s, d, o| op.execute_with(s, d, o).unwrap())
    }

    fn cast(input: TensorDesc, output: TensorDesc) -> Operator {
        let op = Cast::new(&input, &output).unwrap();
        Box::new(move |s, d, o| op.execute_with(s, d, o).unwrap())
    }

    /// `f32_rank5_perm_04213_8x16x32x32x8`: blocks (d0, d2, d1; d1 innermost) of 32 input rows of 8 f32 (1 KiB, read
    /// contiguously) written as 8 output rows of 128 bytes 64 KiB apart, a tile of `N / 4` input rows at a time: the
    /// kernel's 8×8 tiles (`N` = 32) write 32-byte pieces, line-wide stacks of two (`N` = 64) whole lines.
    ///
    /// # Safety
    ///
    /// As [`run`] (4 MiB each way).
    #[inline(always)]
    unsafe fn rank5<L: Lines, const N: usize>(src: *const u8, dst: *mut u8, part: Part) {
        for d0 in part.range(8) {
            for d2 in 0..32 {
                for d1 in 0..16 {
                    let (s, d) = (d0 * 524288 + d1 * 32768 + d2 * 1024, d0 * 524288 + d2 * 2048 + d1 * 128);
                    for t in 0..128 / N {
                        for r in 0..8 {
                            // SAFETY: below 4 MiB on both sides (d0 < 8, the rest of each offset < 512 KiB).
                            unsafe { L::mv::<N>(src.add(s + 8 * N * t + N * r), dst.add(d + r * 65536 + N * t)) };
                        }
                    }
                }
            }
        }
    }

    /// `f32_transpose_2048x2048`, kernel terms: tile (i, j) of 16×16 reads input rows i.. at column j (8 KiB apart)
    /// and streams output rows j.. at column i; square blocks of 512, tiles in columns or in diagonals.
    ///
    /// # Safety
    ///
    /// As [`run`] (16 MiB each way).
    #[inline(always)]
    unsafe fn transpose<L: Lines, const DIAGONAL: bool>(src: *const u8, dst: *mut u8, part: Part) {
        const B: usize = 512 / 16;
        for jb in part.range(4).map(|k| 512 * k) {
            for ib in (0..2048).step_by(512) {
                for d in 0..B {
                    for t in 0..B {
                        let u = if DIAGONAL { (t + d) % B } else { d };
                        let (i, j) = (ib + 16 * t, jb + 16 * u);
                        for k in 0..16 {
                            // SAFETY: rows and columns below 2048 of 4-byte elements, rows 8 KiB apart; output lines
                            // aligned (the buffer is, and i·4 is a multiple of 64).
                            unsafe {
                                L::line::<1, true>([src.add((i + k) * 8192 + j * 4)], dst.add((j + k) * 8192 + i * 4))
                            };
                        }
                    }
                }
            }
        }
        // SAFETY: SSE, part of every x86-64.
        unsafe { _mm_sfence() };
    }

    /// `f16_nhwc_16x128x128x16_to_nchw` as the kernel moves it: 8×8 tiles (8 pixels × 8 channels, 16 bytes each way)
    /// into the 16 planes 32 KiB apart, in square blocks of 128 pixels, each swept a column of tiles (8 channels) at a
    /// time: every plane line is completed by 4 consecutive tiles.
    ///
    /// # Safety
    ///
    /// As [`run`] (8 MiB each way).
    #[inline(always)]
    unsafe fn nhwc_tiles<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for b in part.range(16) {
            for p0 in (0..16384).step_by(128) {
                let (s, d) = (b * 524288 + p0 * 32, b * 524288 + p0 * 2);
                for u in 0..2 {
                    for t in 0..16 {
                        for k in 0..8 {
                            // SAFETY: pixel p0 + 8t + k < 16384 of batch b (32 bytes each), plane 8u + k < 16.
                            unsafe {
                                L::mv::<16>(
                                    src.add(s + (8 * t + k) * 32 + 16 * u),
                                    dst.add(d + (8 * u + k) * 32768 + 16 * t),
                                )
                            };
                        }
                    }
                }
            }
        }
    }

    /// The same through 32×16 tiles: 1 KiB of 32 pixels read, one whole line written into each plane.
    ///
    /// # Safety
    ///
    /// As [`run`] (8 MiB each way).
    #[inline(always)]
    unsafe fn nhwc_lines<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for b in part.range(16) {
            for p in (0..16384).step_by(32) {
                let (s, d) = (b * 524288 + p * 32, b * 524288 + p * 2);
                for c in 0..16 {
                    // SAFETY: pixels p..p + 32 ≤ 16384 of batch b, plane c < 16.
                    unsafe { L::mv::<64>(src.add(s + c * 64), dst.add(d + c * 32768)) };
                }
            }
        }
    }

    /// `cast_f32_nhwc_to_f16_nchw_16x16x128x128` with only the conversions' register work: 32 pixels of 16 f32
    /// channels (2 KiB, read in order) converted and written as one whole f16 line into each of the 16 planes 32 KiB
    /// apart (the transposing shuffles left out), stored regularly or streamed.
    ///
    /// # Safety
    ///
    /// As [`run`] (16 MiB in, 8 MiB out).
    #[inline(always)]
    unsafe fn cast_lines<L: Lines, const STREAM: bool>(src: *const u8, dst: *mut u8, part: Part) {
        for b in part.range(16) {
            for p in (0..16384).step_by(32) {
                let (s, d) = (src.wrapping_add(b * 1048576 + p * 64), dst.wrapping_add(b * 524288 + p * 2));
                for c in 0..16 {
                    // SAFETY: pixels p..p + 32 ≤ 16384 of batch b (2 KiB from s), plane c < 16 (aligned lines: the
                    // buffer is, and p·2 is a multiple of 64).
                    unsafe { L::f16_line::<STREAM>(s.add(128 * c), d.add(c * 32768)) };
                }
            }
        }
        // SAFETY: SSE, part of every x86-64.
        unsafe { _mm_sfence() };
    }

    /// `i8_4096x4096_inner_stride3`: every line of each 4 KiB input row read, three per output line (as the
    /// kernel's picks read them), into 1366-byte output rows (the last 22 bytes of a row from its last line).
    ///
    /// # Safety
    ///
    /// As [`run`] (16 MiB in, 4096 × 1366 bytes out).
    #[inline(always)]
    unsafe fn stride3<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for r in part.range(4096) {
            let (s, d) = (src.wrapping_add(r * 4096), dst.wrapping_add(r * 1366));
            // SAFETY: lines 0..63 of input row r < 4096; bytes 0..1366 of output row r.
            unsafe {
                for k in 0..21 {
                    let at = s.add(192 * k);
                    L::line::<3, false>([at, at.add(64), at.add(128)], d.add(64 * k));
                }
                core::ptr::copy_nonoverlapping(s.add(4032), d.add(1344), 22);
            }
        }
    }

    /// A stride-2 gather of `rows` rows of `pairs` output lines: input row r at `src + r·step`, two lines read per
    /// output line (every line of the rows read, as the kernel reads them), the output contiguous.
    ///
    /// # Safety
    ///
    /// Rows of `128·pairs` readable bytes at `src + r·step`, `rows·64·pairs` writable bytes at `dst`; `L`'s features.
    #[inline(always)]
    unsafe fn gather_rows<L: Lines>(src: *const u8, dst: *mut u8, rows: usize, step: usize, pairs: usize) {
        let mut d = dst;
        for r in 0..rows {
            let s = src.wrapping_add(r * step);
            for k in 0..pairs {
                // SAFETY: the function's contract.
                unsafe {
                    L::line::<2, false>([s.add(128 * k), s.add(128 * k + 64)], d);
                    d = d.add(64);
                }
            }
        }
    }

    /// `f32_nchw_1x64x256x256_hw_stride2`: even rows (1 KiB) of each 256 KiB plane into 512-byte output rows.
    ///
    /// # Safety
    ///
    /// As [`run`] (16 MiB in, 4 MiB out).
    #[inline(always)]
    unsafe fn hw_stride2<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for c in part.range(64) {
            // SAFETY: rows 0, 2, …, 254 of plane c < 64; output plane c of 64 KiB.
            unsafe { gather_rows::<L>(src.add(c * 262144), dst.add(c * 65536), 128, 2048, 8) };
        }
    }

    /// `f32_nchw_16x3x512x512_crop384_hw_stride2`: rows 64, 66, … (1.5 KiB from column 64) of each 1 MiB plane into
    /// 768-byte output rows.
    ///
    /// # Safety
    ///
    /// As [`run`] (48 MiB in, 6.75 MiB out).
    #[inline(always)]
    unsafe fn crop384<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for p in part.range(48) {
            // SAFETY: rows 64..446 of plane p < 48 from byte 256 (1.5 KiB of each 2 KiB row); output plane p of
            // 144 KiB.
            unsafe { gather_rows::<L>(src.add(p * 1048576 + 64 * 2048 + 256), dst.add(p * 147456), 192, 4096, 12) };
        }
    }

    /// `f32_padded_rows_pitch2816_to_packed_1440x2560`: each 10 KiB row (of 11 KiB pitch) copied line by line into
    /// the packed output, stored regularly or streamed: the operator's own pattern, so the two say which stores the
    /// machine rewards at this footprint (29.5 MiB moved, near the streaming threshold).
    ///
    /// # Safety
    ///
    /// As [`run`] (1440 rows of 11 KiB in, of 10 KiB out).
    #[inline(always)]
    unsafe fn padded_rows<L: Lines, const STREAM: bool>(src: *const u8, dst: *mut u8, part: Part) {
        for r in part.range(1440) {
            for k in 0..160 {
                // SAFETY: line k < 160 of input row r < 1440 (11264 bytes apart), of output row r (10240 apart).
                unsafe { L::line::<1, STREAM>([src.add(r * 11264 + 64 * k)], dst.add(r * 10240 + 64 * k)) };
            }
        }
        // SAFETY: SSE, part of every x86-64.
        unsafe { _mm_sfence() };
    }

    /// `u8_hwc1080p_hflip` (rows of 1920 3-byte pixels, 5760 bytes, mirrored): each output row's 90 lines from the
    /// input row's lines in the mirrored order, whole (the reversal within them left out).
    ///
    /// # Safety
    ///
    /// As [`run`] (1080 rows of 5760 bytes each way).
    #[inline(always)]
    unsafe fn hflip_lines<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for r in part.range(1080) {
            for k in 0..90 {
                // SAFETY: lines k and 89 − k of row r < 1080.
                unsafe { L::mv::<64>(src.add(r * 5760 + 64 * (89 - k)), dst.add(r * 5760 + 64 * k)) };
            }
        }
    }

    /// The same as AVX2's reversal of 3-byte pixels moves it: 10 pixels (30 bytes) a step, each 16-byte lane holding
    /// 5 of them, stored as two 16-byte pieces 15 bytes apart (its shuffles left out; the last 30 bytes of a row
    /// left out too).
    ///
    /// # Safety
    ///
    /// As [`run`] (1080 rows of 5760 bytes each way).
    #[inline(always)]
    unsafe fn hflip_pieces<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        for r in part.range(1080) {
            let (s, d) = (src.wrapping_add(r * 5760), dst.wrapping_add(r * 5760));
            for j in (0..5730).step_by(30) {
                // SAFETY: bytes 5729 − j .. 5760 − j of input row r and j .. j + 31 of output row r (j ≤ 5700).
                unsafe {
                    L::mv::<16>(s.add(5744 - j), d.add(j));
                    L::mv::<16>(s.add(5729 - j), d.add(j + 15));
                }
            }
        }
    }

    /// `normalize_u8_nhwc_to_f16_nchw_32x3x224x224` with Normalize's arithmetic and none of its deinterleave: each
    /// image's 224² pixels of 3 bytes read in order, 32 pixels (96 bytes) a step, each third of them widened,
    /// normalized (`x·scale + bias`, product then sum) and converted to f16 as if it were one channel's, into one
    /// line of that plane (the three planes 98 KiB apart).
    ///
    /// # Safety
    ///
    /// As [`run`] (32 × 150528 bytes in, twice as many out).
    #[inline(always)]
    unsafe fn normalize_f16<L: Lines>(src: *const u8, dst: *mut u8, part: Part) {
        const PARAMS: [(f32, f32); 3] = [(0.017125, -2.1179), (0.017507, -2.0357), (0.017429, -1.8044)];
        for n in part.range(32) {
            let (s, d) = (src.wrapping_add(n * 150528), dst.wrapping_add(n * 301056));
            for p in (0..50176).step_by(32) {
                for (c, (scale, bias)) in PARAMS.into_iter().enumerate() {
                    // SAFETY: pixels p..p + 32 ≤ 50176 of image n < 32 (3 bytes each); plane c < 3 of its output
                    // (100352 bytes each).
                    unsafe { L::normalized_f16_line(s.add(3 * p + 32 * c), scale, bias, d.add(c * 100352 + 2 * p)) };
                }
            }
        }
    }

    fn cases() -> Vec<Case> {
        let f16 = DataType::Float16;
        vec![
            Case {
                name: "f32_rank5_perm_04213_8x16x32x32x8",
                op: identity(
                    f32s(&[8, 16, 32, 32, 8]),
                    TensorDesc::with_strides(DataType::Float32, &[8, 16, 32, 32, 8], &[131072, 32, 512, 1, 16384])
                        .unwrap(),
                ),
                in_len: 4 << 20,
                out_len: 4 << 20,
                must_move: 8 << 20,
                patterns: vec![
                    ("32-byte moves (8×8 tiles)", Pat::Rank5Tiles),
                    ("whole lines (stacks)", Pat::Rank5Lines),
                ],
            },
            Case {
                name: "f32_transpose_2048x2048",
                op: identity(
                    TensorDesc::with_strides(DataType::Float32, &[2048, 2048], &[1, 2048]).unwrap(),
                    f32s(&[2048, 2048]),
                ),
                in_len: 16 << 20,
                out_len: 16 << 20,
                must_move: 32 << 20,
                patterns: vec![
                    ("columns, streamed", Pat::TransposeColumns),
                    ("diagonals, streamed", Pat::TransposeDiagonals),
                ],
            },
            Case {
                name: "f16_nhwc_16x128x128x16_to_nchw",
                op: identity(
                    TensorDesc::with_strides(f16, &[16, 16, 128, 128], &[262144, 1, 2048, 16]).unwrap(),
                    TensorDesc::new(f16, &[16, 16, 128, 128]).unwrap(),
                ),
                in_len: 8 << 20,
                out_len: 8 << 20,
                must_move: 16 << 20,
                patterns: vec![
                    ("16-byte moves (8×8 tiles)", Pat::NhwcTiles),
                    ("whole lines (32×16 tiles)", Pat::NhwcLines),
                ],
            },
            Case {
                name: "f32_nchw_1x64x256x256_hw_stride2",
                op: slice1(f32s(&[1, 64, 256, 256]), f32s(&[1, 64, 128, 128]), [0; 4], [1, 64, 256, 256]),
                in_len: 16 << 20,
                out_len: 4 << 20,
                must_move: 12 << 20,
                patterns: vec![("line pairs of the even rows", Pat::HwStride2)],
            },
            Case {
                name: "f32_nchw_16x3x512x512_crop384_hw_stride2",
                op: slice1(f32s(&[16, 3, 512, 512]), f32s(&[16, 3, 192, 192]), [0, 0, 64, 64], [16, 3, 384, 384]),
                in_len: 48 << 20,
                out_len: 27 << 18,
                must_move: (27 << 19) + (27 << 18),
                patterns: vec![("line pairs of the rows read", Pat::Crop384)],
            },
            Case {
                name: "i8_4096x4096_inner_stride3",
                op: {
                    let i8s = |sizes: &[u32]| TensorDesc::new(DataType::Int8, sizes).unwrap();
                    let op =
                        Slice1::new(&i8s(&[4096, 4096]), &i8s(&[4096, 1366]), &[0, 0], &[4096, 4096], &[1, 3]).unwrap();
                    Box::new(move |s, d, o| op.execute_with(s, d, o).unwrap())
                },
                in_len: 16 << 20,
                out_len: 4096 * 1366,
                must_move: (16 << 20) + 4096 * 1366,
                patterns: vec![("line triples of every row", Pat::Stride3)],
            },
            Case {
                name: "f32_padded_rows_pitch2816_to_packed_1440x2560",
                op: identity(
                    TensorDesc::with_strides(DataType::Float32, &[1440, 2560], &[2816, 1]).unwrap(),
                    f32s(&[1440, 2560]),
                ),
                in_len: 1440 * 11264,
                out_len: 1440 * 10240,
                must_move: 2 * 1440 * 10240,
                patterns: vec![("rows, regular stores", Pat::PaddedRows), ("rows, streamed", Pat::PaddedRowsStreamed)],
            },
            Case {
                name: "cast_f32_nhwc_to_f16_nchw_16x16x128x128",
                op: cast(
                    TensorDesc::with_strides(DataType::Float32, &[16, 16, 128, 128], &[262144, 1, 2048, 16]).unwrap(),
                    TensorDesc::new(f16, &[16, 16, 128, 128]).unwrap(),
                ),
                in_len: 16 << 20,
                out_len: 8 << 20,
                must_move: 24 << 20,
                patterns: vec![
                    ("conversions into plane lines", Pat::CastLines),
                    ("the same, streamed", Pat::CastLinesStreamed),
                ],
            },
            Case {
                name: "u8_hwc1080p_hflip",
                op: {
                    let u8s = |sizes: &[u32]| TensorDesc::new(DataType::Uint8, sizes).unwrap();
                    let frame = u8s(&[1080, 1920, 3]);
                    let op = Slice1::new(&frame, &frame, &[0; 3], &[1080, 1920, 3], &[1, -1, 1]).unwrap();
                    Box::new(move |s, d, o| op.execute_with(s, d, o).unwrap())
                },
                in_len: 1080 * 5760,
                out_len: 1080 * 5760,
                must_move: 2 * 1080 * 5760,
                patterns: vec![
                    ("whole lines, mirrored", Pat::HflipLines),
                    ("16-byte pieces 15 apart (AVX2's)", Pat::HflipPieces),
                ],
            },
            Case {
                name: "normalize_u8_nhwc_to_f16_nchw_32x3x224x224",
                op: {
                    let input =
                        TensorDesc::with_strides(DataType::Uint8, &[32, 3, 224, 224], &[150528, 1, 672, 3]).unwrap();
                    let output = TensorDesc::new(f16, &[32, 3, 224, 224]).unwrap();
                    let (scale, bias) =
                        strider::mean_std_to_scale_bias(DataType::Uint8, &IMAGENET_MEAN, &IMAGENET_STD, 3).unwrap();
                    let (sizes, strides) = ([32, 3, 224, 224], [1; 4]);
                    let op =
                        Normalize::new(&input, &output, &[0; 4], &sizes, &strides, Some(1), &scale, &bias).unwrap();
                    Box::new(move |s, d, o| op.execute_with(s, d, o).unwrap())
                },
                in_len: 32 * 150528,
                out_len: 32 * 301056,
                must_move: 32 * 451584,
                patterns: vec![("Normalize's arithmetic, no deinterleave", Pat::NormalizeF16)],
            },
        ]
    }

    pub fn main() {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let filter = args.iter().find(|a| !a.starts_with('-')).cloned().unwrap_or_default();
        let threads: Vec<usize> = match args.iter().find_map(|a| a.strip_prefix("--threads=")) {
            Some(list) => list.split(',').map(|t| t.parse().expect("--threads=1,2")).collect(),
            None => vec![1, 2],
        };
        assert!(threads.iter().all(|t| (1..=2).contains(t)), "the patterns split into one or two parts");
        // The level: `--isa=NAME` or the best one available (`Isa::best` honours `STRIDER_MAX_ISA`); the patterns
        // move lines through its registers (AVX-512 from v4 on, AVX2 at v3) and the operator runs at it.
        let isa = match args.iter().find_map(|a| a.strip_prefix("--isa=")) {
            Some(name) => *Isa::available()
                .iter()
                .find(|i| i.name() == name)
                .unwrap_or_else(|| panic!("--isa={name}: not a level this CPU runs ({:?})", Isa::available())),
            None => Isa::best(),
        };
        // `Isa::is_available` checked the features each entry point enables.
        let level: unsafe fn(Pat, *const u8, *mut u8, Part) = match isa {
            Isa::V4 | Isa::V4Vbmi => run_avx512,
            Isa::V3 => run_avx2,
            _ => {
                println!("the patterns move lines through AVX2 or AVX-512 registers, which this CPU lacks");
                return;
            }
        };
        println!("level: {isa}");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool of two threads");
        println!(
            "µs: best / median of 7 alternating rounds; ×op = pattern ÷ operator, ×limit = ÷ limit copy (the same \
             threads)"
        );
        for case in cases().into_iter().filter(|c| c.name.contains(filter.as_str())) {
            let (mut input, mut output) = (Buf::new(case.in_len), Buf::new(case.out_len));
            let half = case.must_move / 2;
            let (copy_from, mut copy_to) = (Buf::new(half), Buf::new(half));
            input.slice_mut(case.in_len).fill(0x3C);
            for &t in &threads {
                let mut rows: Vec<(String, Vec<f64>)> =
                    vec![("operator".into(), vec![]), ("limit copy".into(), vec![])];
                rows.extend(case.patterns.iter().map(|(name, _)| (format!("pattern: {name}"), vec![])));
                let opts = if t == 1 { ExecOptions::sequential() } else { ExecOptions::default() }.with_isa(isa);
                for _ in 0..7 {
                    let (src, dst) = (input.slice(case.in_len), output.slice_mut(case.out_len));
                    rows[0].1.push(time(&mut || on(&pool, t, || (case.op)(src, &mut *dst, &opts))));
                    let (a, b) = (copy_from.slice(half), copy_to.slice_mut(half));
                    rows[1].1.push(time(&mut || {
                        if t == 1 {
                            return b.copy_from_slice(black_box(a));
                        }
                        let (b0, b1) = b.split_at_mut(half / 2 / 64 * 64);
                        let (a0, a1) = black_box(a).split_at(b0.len());
                        pool.install(|| rayon::join(|| b0.copy_from_slice(a0), || b1.copy_from_slice(a1)));
                    }));
                    for (k, (_, pattern)) in case.patterns.iter().enumerate() {
                        let (s, d) = (src.as_ptr() as usize, output.slice_mut(case.out_len).as_mut_ptr() as usize);
                        // SAFETY: the level's features (available, checked above); buffers of the case's sizes,
                        // aligned to 64 (`Buf`); the parts write disjoint output bytes.
                        let run = |part| unsafe { level(*pattern, black_box(s as *const u8), d as *mut u8, part) };
                        rows[2 + k].1.push(time(&mut || in_parts(&pool, t, &run)));
                    }
                }
                let stat = |v: &[f64]| {
                    let mut v = v.to_vec();
                    v.sort_by(f64::total_cmp);
                    (v[0] * 1e6, v[v.len() / 2] * 1e6)
                };
                let (op, limit) = (stat(&rows[0].1).1, stat(&rows[1].1).1);
                println!("{}, {t} thread{}", case.name, if t == 1 { "" } else { "s" });
                for (name, times) in &rows {
                    let (best, median) = stat(times);
                    println!(
                        "  {name:40} {best:9.1} / {median:9.1} µs   ×op {:5.2}   ×limit {:5.2}",
                        median / op,
                        median / limit
                    );
                }
            }
        }
    }
}
