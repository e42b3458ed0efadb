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
//! `cargo bench -p strider-kernels --bench patterns [-- FILTER] [--threads=1,2]`: at one and two threads (the
//! operator with the pool's default split at two, each pattern's outermost loop and the limit copy halved), best and
//! median of 7 alternating rounds, each the median of as many runs as fit 40 ms. x86-64 with AVX-512 only.

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::main();
    #[cfg(not(target_arch = "x86_64"))]
    println!("the patterns are written for x86-64: nothing to measure here");
}

/// The cases and their patterns (AVX-512 line moves).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::hint::black_box;
    use std::time::Instant;

    use core::arch::x86_64::*;

    use strider::{Cast, DataType, ExecOptions, Identity, Slice1, TensorDesc};

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

    /// Moves `N` bytes (a line for N = 64, a tile row's share of one for less) from `s` to `d` through one register.
    ///
    /// # Safety
    ///
    /// `N` ≤ 64 readable bytes at `s`, writable at `d`; AVX-512F available.
    #[inline(always)]
    unsafe fn mv<const N: usize>(s: *const u8, d: *mut u8) {
        // SAFETY: the function's contract (the masks cover the first N bytes).
        unsafe {
            match N {
                64 => _mm512_storeu_si512(d.cast(), _mm512_loadu_si512(s.cast())),
                32 => _mm256_storeu_si256(d.cast(), _mm256_loadu_si256(s.cast())),
                16 => _mm_storeu_si128(d.cast(), _mm_loadu_si128(s.cast())),
                _ => unreachable!("moves of 16, 32 or 64 bytes"),
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

    /// A pattern: what it is, and one run of one part of it from an input into an output of its case's sizes.
    ///
    /// # Safety (of calling it)
    ///
    /// AVX-512F is available; the input holds the case's `in_len` readable bytes, the output `out_len` writable ones,
    /// both aligned to 64 (every offset a pattern touches is inside its case's sizes, by construction); parts run
    /// at the same time write disjoint output bytes.
    type Pattern = (&'static str, unsafe fn(*const u8, *mut u8, Part));

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
    /// As [`Pattern`] (4 MiB each way).
    #[target_feature(enable = "avx512f")]
    unsafe fn rank5<const N: usize>(src: *const u8, dst: *mut u8, part: Part) {
        for d0 in part.range(8) {
            for d2 in 0..32 {
                for d1 in 0..16 {
                    let (s, d) = (d0 * 524288 + d1 * 32768 + d2 * 1024, d0 * 524288 + d2 * 2048 + d1 * 128);
                    for t in 0..128 / N {
                        for r in 0..8 {
                            // SAFETY: below 4 MiB on both sides (d0 < 8, the rest of each offset < 512 KiB).
                            unsafe { mv::<N>(src.add(s + 8 * N * t + N * r), dst.add(d + r * 65536 + N * t)) };
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
    /// As [`Pattern`] (16 MiB each way).
    #[target_feature(enable = "avx512f")]
    unsafe fn transpose<const DIAGONAL: bool>(src: *const u8, dst: *mut u8, part: Part) {
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
                                let v = _mm512_loadu_si512(src.add((i + k) * 8192 + j * 4).cast());
                                _mm512_stream_si512(dst.add((j + k) * 8192 + i * 4).cast(), v);
                            }
                        }
                    }
                }
            }
        }
        _mm_sfence();
    }

    /// `f16_nhwc_16x128x128x16_to_nchw` as the kernel moves it: 8×8 tiles (8 pixels × 8 channels, 16 bytes each way)
    /// into the 16 planes 32 KiB apart, in square blocks of 128 pixels, each swept a column of tiles (8 channels) at a
    /// time: every plane line is completed by 4 consecutive tiles.
    ///
    /// # Safety
    ///
    /// As [`Pattern`] (8 MiB each way).
    #[target_feature(enable = "avx512f")]
    unsafe fn nhwc_tiles(src: *const u8, dst: *mut u8, part: Part) {
        for b in part.range(16) {
            for p0 in (0..16384).step_by(128) {
                let (s, d) = (b * 524288 + p0 * 32, b * 524288 + p0 * 2);
                for u in 0..2 {
                    for t in 0..16 {
                        for k in 0..8 {
                            // SAFETY: pixel p0 + 8t + k < 16384 of batch b (32 bytes each), plane 8u + k < 16.
                            unsafe {
                                mv::<16>(
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
    /// As [`Pattern`] (8 MiB each way).
    #[target_feature(enable = "avx512f")]
    unsafe fn nhwc_lines(src: *const u8, dst: *mut u8, part: Part) {
        for b in part.range(16) {
            for p in (0..16384).step_by(32) {
                let (s, d) = (b * 524288 + p * 32, b * 524288 + p * 2);
                for c in 0..16 {
                    // SAFETY: pixels p..p + 32 ≤ 16384 of batch b, plane c < 16.
                    unsafe { mv::<64>(src.add(s + c * 64), dst.add(d + c * 32768)) };
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
    /// As [`Pattern`] (16 MiB in, 8 MiB out).
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn cast_lines<const STREAM: bool>(src: *const u8, dst: *mut u8, part: Part) {
        for b in part.range(16) {
            for p in (0..16384).step_by(32) {
                let (s, d) = (src.wrapping_add(b * 1048576 + p * 64), dst.wrapping_add(b * 524288 + p * 2));
                for c in 0..16 {
                    // SAFETY: pixels p..p + 32 ≤ 16384 of batch b (2 KiB from s), plane c < 16 (aligned lines: the
                    // buffer is, and p·2 is a multiple of 64).
                    unsafe {
                        let half = |k: usize| {
                            _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_loadu_ps(
                                s.add(128 * c + 64 * k).cast(),
                            ))
                        };
                        let v = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(0)), half(1));
                        let to = d.add(c * 32768).cast();
                        if STREAM { _mm512_stream_si512(to, v) } else { _mm512_storeu_si512(to, v) }
                    }
                }
            }
        }
        _mm_sfence();
    }

    /// `i8_4096x4096_inner_stride3`: every line of each 4 KiB input row read, three per output line (as the
    /// kernel's picks read them), into 1366-byte output rows (the last 22 bytes of a row from its last line).
    ///
    /// # Safety
    ///
    /// As [`Pattern`] (16 MiB in, 4096 × 1366 bytes out).
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn stride3(src: *const u8, dst: *mut u8, part: Part) {
        for r in part.range(4096) {
            let (s, d) = (src.wrapping_add(r * 4096), dst.wrapping_add(r * 1366));
            // SAFETY: lines 0..63 of input row r < 4096; bytes 0..1366 of output row r.
            unsafe {
                for k in 0..21 {
                    let line = |j: usize| _mm512_loadu_si512(s.add(192 * k + 64 * j).cast());
                    let v = _mm512_or_si512(_mm512_or_si512(line(0), line(1)), line(2));
                    _mm512_storeu_si512(d.add(64 * k).cast(), v);
                }
                let last = _mm512_loadu_si512(s.add(4032).cast());
                _mm512_mask_storeu_epi8(d.add(1344).cast(), (1 << 22) - 1, last);
            }
        }
    }

    /// A stride-2 gather of `rows` rows of `pairs` output lines: input row r at `src + r·step`, two lines read per
    /// output line (every line of the rows read, as the kernel reads them), the output contiguous.
    ///
    /// # Safety
    ///
    /// Rows of `128·pairs` readable bytes at `src + r·step`, `rows·64·pairs` writable bytes at `dst`; AVX-512F.
    #[inline(always)]
    unsafe fn gather_rows(src: *const u8, dst: *mut u8, rows: usize, step: usize, pairs: usize) {
        let mut d = dst;
        for r in 0..rows {
            let s = src.wrapping_add(r * step);
            for k in 0..pairs {
                // SAFETY: the function's contract.
                unsafe {
                    let (a, b) =
                        (_mm512_loadu_si512(s.add(128 * k).cast()), _mm512_loadu_si512(s.add(128 * k + 64).cast()));
                    _mm512_storeu_si512(d.cast(), _mm512_or_si512(a, b));
                    d = d.add(64);
                }
            }
        }
    }

    /// `f32_nchw_1x64x256x256_hw_stride2`: even rows (1 KiB) of each 256 KiB plane into 512-byte output rows.
    ///
    /// # Safety
    ///
    /// As [`Pattern`] (16 MiB in, 4 MiB out).
    #[target_feature(enable = "avx512f")]
    unsafe fn hw_stride2(src: *const u8, dst: *mut u8, part: Part) {
        for c in part.range(64) {
            // SAFETY: rows 0, 2, …, 254 of plane c < 64; output plane c of 64 KiB.
            unsafe { gather_rows(src.add(c * 262144), dst.add(c * 65536), 128, 2048, 8) };
        }
    }

    /// `f32_nchw_16x3x512x512_crop384_hw_stride2`: rows 64, 66, … (1.5 KiB from column 64) of each 1 MiB plane into
    /// 768-byte output rows.
    ///
    /// # Safety
    ///
    /// As [`Pattern`] (48 MiB in, 6.75 MiB out).
    #[target_feature(enable = "avx512f")]
    unsafe fn crop384(src: *const u8, dst: *mut u8, part: Part) {
        for p in part.range(48) {
            // SAFETY: rows 64..446 of plane p < 48 from byte 256 (1.5 KiB of each 2 KiB row); output plane p of
            // 144 KiB.
            unsafe { gather_rows(src.add(p * 1048576 + 64 * 2048 + 256), dst.add(p * 147456), 192, 4096, 12) };
        }
    }

    /// `f32_padded_rows_pitch2816_to_packed_1440x2560`: each 10 KiB row (of 11 KiB pitch) copied line by line into
    /// the packed output, stored regularly or streamed: the operator's own pattern, so the two say which stores the
    /// machine rewards at this footprint (29.5 MiB moved, near the streaming threshold).
    ///
    /// # Safety
    ///
    /// As [`Pattern`] (1440 rows of 11 KiB in, of 10 KiB out).
    #[target_feature(enable = "avx512f")]
    unsafe fn padded_rows<const STREAM: bool>(src: *const u8, dst: *mut u8, part: Part) {
        for r in part.range(1440) {
            for k in 0..160 {
                // SAFETY: line k < 160 of input row r < 1440 (11264 bytes apart), of output row r (10240 apart).
                unsafe {
                    let v = _mm512_loadu_si512(src.add(r * 11264 + 64 * k).cast());
                    let to = dst.add(r * 10240 + 64 * k).cast();
                    if STREAM { _mm512_stream_si512(to, v) } else { _mm512_storeu_si512(to, v) }
                }
            }
        }
        _mm_sfence();
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
                patterns: vec![("32-byte moves (8×8 tiles)", rank5::<32>), ("whole lines (stacks)", rank5::<64>)],
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
                patterns: vec![("columns, streamed", transpose::<false>), ("diagonals, streamed", transpose::<true>)],
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
                patterns: vec![("16-byte moves (8×8 tiles)", nhwc_tiles), ("whole lines (32×16 tiles)", nhwc_lines)],
            },
            Case {
                name: "f32_nchw_1x64x256x256_hw_stride2",
                op: slice1(f32s(&[1, 64, 256, 256]), f32s(&[1, 64, 128, 128]), [0; 4], [1, 64, 256, 256]),
                in_len: 16 << 20,
                out_len: 4 << 20,
                must_move: 12 << 20,
                patterns: vec![("line pairs of the even rows", hw_stride2)],
            },
            Case {
                name: "f32_nchw_16x3x512x512_crop384_hw_stride2",
                op: slice1(f32s(&[16, 3, 512, 512]), f32s(&[16, 3, 192, 192]), [0, 0, 64, 64], [16, 3, 384, 384]),
                in_len: 48 << 20,
                out_len: 27 << 18,
                must_move: (27 << 19) + (27 << 18),
                patterns: vec![("line pairs of the rows read", crop384)],
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
                patterns: vec![("line triples of every row", stride3)],
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
                patterns: vec![("rows, regular stores", padded_rows::<false>), ("rows, streamed", padded_rows::<true>)],
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
                    ("conversions into plane lines", cast_lines::<false>),
                    ("the same, streamed", cast_lines::<true>),
                ],
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
        if !std::arch::is_x86_feature_detected!("avx512f") || !std::arch::is_x86_feature_detected!("avx512bw") {
            println!("the patterns move lines through AVX-512 registers, which this CPU lacks: nothing to measure");
            return;
        }
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
                let opts = if t == 1 { ExecOptions::sequential() } else { ExecOptions::default() };
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
                        // SAFETY: AVX-512 F/BW checked above; buffers of the case's sizes, aligned to 64 (`Buf`);
                        // the parts write disjoint output bytes.
                        let run = |part| unsafe { pattern(black_box(s as *const u8), d as *mut u8, part) };
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
