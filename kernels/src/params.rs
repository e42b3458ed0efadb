//! Every tuning constant of the execution engine, in one place. Values come from sweeps on the project's 2-vCPU
//! machines (see the comments); change them only with a measurement.

use core::time::Duration;

/// The most threads [`ExecOptions::threads`] and [`thread_pool`] accept (and the most any split uses).
///
/// [`ExecOptions::threads`]: crate::ExecOptions::threads
/// [`thread_pool`]: crate::thread_pool
pub const MAX_THREADS: usize = 256;

/// Outputs smaller than this many bytes run on the calling thread under [`Parallelism::Auto`].
///
/// PERF: sweep of a 4-KiB-row copy on the 2-vCPU VMs, 2 threads ÷ 1: with the second worker awake (back-to-back
/// calls) 1.03 at 256 KiB, 0.69 at 512 KiB, 0.53 at 2 MiB; with it asleep (other work between calls, ~40 µs
/// wake-up) 1.51 at 512 KiB, 0.99 at 1 MiB, 0.94 at 2 MiB, 0.78 at 3 MiB, 0.63 at 4 MiB. 1 MiB never loses (the
/// caller takes any chunk a sleeping helper has not started, so a split costs at most its own bookkeeping), and
/// from it a 1.2 MiB letterbox pad ran 26.8 → ~15 µs at 2 threads against 24 µs at one (Zen 4 VM, `strider bench`).
///
/// [`Parallelism::Auto`]: crate::Parallelism::Auto
pub const PAR_GRAIN_BYTES: usize = 1 << 20;

/// Chunks per pool thread when a walk is split (more than one lets work stealing even out slow threads).
pub const CHUNKS_PER_THREAD: usize = 1;

/// How long a caller that ran out of chunks spins for the chunks other threads are running before it parks: about
/// its own share's time, within these bounds (a helper's chunk started before the caller ran out and is no longer).
pub const JOIN_SPIN_MIN: Duration = Duration::from_micros(20);
/// See [`JOIN_SPIN_MIN`].
pub const JOIN_SPIN_MAX: Duration = Duration::from_millis(1);

/// How long a helper that ran chunks of a split keeps polling its pool afterwards, as a multiple (numerator,
/// denominator) of the time it worked, within [`LINGER_MIN`] and [`LINGER_MAX`]: the next call then finds it awake.
/// It polls between `sched_yield`s, so it only takes CPU time no other thread wants.
///
/// PERF: Zen 4 VM, two threads, called from outside the pool with other work between calls (p50 µs of 1400 calls,
/// 2× the work within 50–500 µs → 4× within 100 µs–1 ms): u8 center crop, 150 µs between calls 77 → 60, 400 µs
/// 131 → 103; f32 even channels within noise (225 → 249, 346 → 338).
pub const LINGER_PER_WORK: (u32, u32) = (4, 1);
/// See [`LINGER_PER_WORK`].
pub const LINGER_MIN: Duration = Duration::from_micros(100);
/// See [`LINGER_PER_WORK`].
pub const LINGER_MAX: Duration = Duration::from_millis(1);

/// `spin_loop` hints between two polls of the chunk counter while a caller spins.
pub const SPIN_PAUSES: usize = 16;

/// A row is never split into pieces shorter than this many bytes under [`Parallelism::Auto`].
///
/// [`Parallelism::Auto`]: crate::Parallelism::Auto
pub const MIN_PIECE_BYTES: usize = 16 << 10;

/// Rows per chunk above which an uneven split of whole rows is accepted instead of cutting rows into pieces.
pub const ROWS_PER_CHUNK_NO_SPLIT: usize = 8;

/// Work budget (search nodes) of the exact output-overlap check before it gives up as undecided (the public docs of
/// `Overlap::Undecided` state the value).
pub const OVERLAP_SEARCH_BUDGET: u64 = 1 << 20;

/// Walks whose footprint — the bytes they touch: output plus the input actually read — reaches this multiple
/// (numerator, denominator) of the last-level cache *one thread can count on*
/// ([`CacheSizes::llc_per_thread`](crate::CacheSizes::llc_per_thread): the detected LLC divided by the CPUs sharing
/// it) write their vector stores non-temporally: the output would not stay in cache anyway, and streaming skips the
/// read-for-ownership of every output line and leaves the cache to the input. Below it, regular stores keep the
/// output in the cache for whoever reads it next. It is glibc's rule for memcpy (non-temporal from 3/4 of the
/// per-thread share of the shared cache, for the copy size: a footprint of twice that).
///
/// PERF: on the Zen 5 VM (32 MiB L3 reported shared by its 2 CPUs, and in fact by other tenants too: a 12 MiB
/// memcpy already runs at DRAM speed), ×memcpy at 1 thread, tight loops, streaming vs regular stores:
/// 16 MiB footprint (plane select) 1.35–1.44 vs 1.02–1.06; 24 MiB (f32 vertical flip) 0.71–0.90 vs 1.36–1.49;
/// 32 MiB (f16 mid slice) 0.65–0.66 vs 0.79–0.94; u8 → f32 cast at 80 MiB 0.48 vs 0.61–0.67.
/// Runs split across threads add up their shares, up to the whole cache
/// ([`CacheSizes::stream_threshold_for`](crate::CacheSizes::stream_threshold_for)): at 2 threads the 24 MiB vertical
/// flip ran in 164–178 µs with regular stores against 287–295 µs streaming.
pub const STREAM_LLC_FRACTION: (usize, usize) = (3, 2);

/// The fraction (numerator, denominator) of the streaming threshold from which transposes into output rows a multiple
/// of [`L1_WAY_BYTES`] apart stream (NHWC → NCHW into planes of such sizes, 2-D transposes of such rows): their
/// tiles' stores all fall into one L1 set, so that the lines of the output rows are written back and fetched again
/// between tiles, and on VMs whose last-level cache is shared with other tenants they fall out of it well before the
/// threshold (here a 16 MiB footprint already runs at memory speed).
///
/// PERF: Zen 4 VM (32 MiB L3 reported, 24 MiB one-thread threshold), one thread, best of 3–5 alternations, policy's
/// regular stores → streamed, 16 MiB footprints: f16 NHWC → NCHW 16 × 16 channels × 128² (the public case) 615–793
/// → 415–428 µs, 8 × 32 channels 912 → 558 µs, 4 × 64 channels 905 → 590 µs; f32 4 × 32 channels × 128² 499 → 428
/// µs, 8 × 32 channels 1.09 → 1.00 ms; f32 1024 × 2048 transposes 786 → 522 µs and 919 → 535 µs (output rows 4 and 8
/// KiB apart). At half those footprints a tie (f16 8 × 16 channels: 176 → 173 µs, `--streaming on`), at a quarter
/// regular stores won (f32 2 × 32 channels: 155 → 171 µs). Two threads (32 MiB threshold → 16): the f32 transposes
/// 356–360 → 313–320 µs, the f32 → f16 NHWC → NCHW cast 16 × 16 × 128² 551 → 365 µs; f16 NHWC → NCHW a tie (medians
/// 333–381 → 338–383 µs).
pub const STREAM_ALIASED_PLANES_FRACTION: (usize, usize) = (1, 2);

/// Rows shorter than this stream only as [`STREAM_SHORT_ROWS_FRACTION`] says.
///
/// PERF: each row's first and last cache lines are written with regular stores; with short rows those partial
/// lines interleaved with non-temporal ones and thrashed the write-combining buffers (600-byte rows: 18× slower),
/// before streamed rows kept their partial lines apart (`arch::stream_lines`).
/// (The public docs of `ExecOptions` state this value and the fractions below: keep them in step.)
pub const STREAM_MIN_ROW_BYTES: usize = 4 << 10;

/// Rows shorter than this never stream.
///
/// PERF: unmeasured below it; 600- and 768-byte rows gain ([`STREAM_SHORT_ROWS_FRACTION`]).
pub const STREAM_MIN_SHORT_ROW_BYTES: usize = 512;

/// The fraction (numerator, denominator) of the streaming threshold from which rows between
/// [`STREAM_MIN_SHORT_ROW_BYTES`] and [`STREAM_MIN_ROW_BYTES`] stream: copied rows wherever the output is, gathered
/// rows when every row is whole lines on a line-aligned output (16 bytes past a line they lose streamed). Regular
/// stores of short rows that jump pay for every row's lines to be fetched, which the prefetchers hide for long
/// rows: short rows leave the caches' advantage from a smaller footprint.
///
/// PERF: Zen 4 VM (24 MiB one-thread threshold → 16), one thread, one process, 2 MiB pages, paired rounds, regular →
/// streamed stores, medians (lower in how many rounds), on lines / 16 bytes past one. Copies: f32 crop into
/// 768-byte rows (16 × 3 × 384 × 192, 27 MiB footprint) 1097–1265 → 798–1026 µs (10 of 10) / 1322 → 1037 µs (10
/// of 10); 12 images (20 MiB) 1272 → 783 (8 of 8) / 843 → 573 µs (8 of 8); 8 images (13.5 MiB) 210 → 269 µs (1 of
/// 8); u8 NHWC crop 200 of 224 (600-byte rows), 128 images (32 MiB) 1218 → 849 (8 of 8) / 1089 → 750 µs (8 of 8),
/// 80 images (20 MiB) 879 → 464 (7 of 8) / 481 → 365 µs (8 of 8), 48 images (12 MiB) 144 → 206 (0 of 8) / 150 →
/// 206 µs (0 of 8). Gathers: the public f32 crop 384 with stride 2 (768-byte rows, 20 MiB) 600–1035 → 453–740 µs
/// (lower in 62 of 64 rounds, seven runs) / 720 → 843 µs (1 of 12), the same with input rows 8 KiB apart alike
/// (862–894 → 551–708 µs); 12 images (15 MiB) 383 → 305 µs (9 of 10); `hw_stride2` (512-byte rows, 12 MiB) 199 →
/// 237 µs (1 of 10). Long rows keep the whole threshold: a 16 MiB plane select 221 → 314 µs (0 of 12), u8 → f32 casts of
/// 4M (20 MiB) 390 → 620 µs (`strider bench`, best of 5).
pub const STREAM_SHORT_ROWS_FRACTION: (usize, usize) = (2, 3);

/// Walks whose rows the rule streams (the footprint reached the threshold) with a footprint below this factor times
/// the threshold choose their store kind by measuring their own calls (`measure`: the rule's kind first, both kinds
/// probed every [`STORE_PROBE_PERIOD`] calls); transposes and every other walk keep the rule's kind.
///
/// PERF: the same walks on the same kind of VM (Zen 4, 32 MiB L3), the two kinds forced in turn (`strider bench
/// --streaming off|on`), on different days: two threads, the f16 mid slice (32 MiB footprint) 587–1040 µs with
/// regular stores against 350–674 streamed one day, 337–365 against 608–636 another (torch at two threads, regular
/// stores, 402–443 that day), the packed f32 copy (32 MiB) 236–373 against 320–655 that day; one thread that day,
/// the f16 → f32 cast of 4M (24 MiB) 499–525 against 629–669, while the f32 vertical flip of the same footprint
/// kept streaming's lead (489–512 against 783–1020). Measured (three alternations with the rule alone, the default
/// suite): two threads, the f16 mid slice 627 → 358 µs, the packed f32 copy 623 → 319 µs, i32 → f32 of 4M 603 →
/// 313 µs, the vertical flip 265 → 162 µs, the 64 MiB reverse 2513 → 1666 µs; one thread, f16 → f32 of 4M 647 → 464
/// µs. Below the threshold measuring lost: the padded-rows copy at two threads (29.5 MiB, regular by the rule) 195
/// → 374 µs, its regular stores' advantage (the footprint kept in the cache from call to call) unseen by probes
/// that follow streamed calls; and transposes, whose blocks take other tiles when streamed, measured noisily both
/// ways (f16 NHWC → NCHW at two threads: regular 272–736 µs, streamed 310–315, in three minutes).
pub const STORE_PROBE_BAND: usize = 2;

/// Calls in a period of a measured store kind ([`STORE_PROBE_BAND`]): from [`STORE_PROBE_START`] on,
/// `2 · STORE_PROBE_RUN` probe the two kinds, the rest of the period and the start of the next use the faster. The
/// probes' cost is bounded by their share, 8 of 256 calls with the kind that may be slower.
pub const STORE_PROBE_PERIOD: u64 = 256;

/// The call of a period at which its probe starts; the calls before it use the last probe's choice (the rule's
/// kind before any).
///
/// PERF: probing from a program's first call chose wrong: in `strider bench`'s two-thread loop of the f32 → f16
/// cast of 4M (24 MiB footprint), its first calls took 617–716 µs with regular stores (pool threads waking, caches
/// filling) against the 205 µs they settle to, and streamed calls (~300 µs settled) won the probe.
pub const STORE_PROBE_START: u64 = 32;

/// Calls of each kind in a probe; the first half of each run is not timed (it settles the caches into the state the
/// kind leaves them; regular stores after streamed ones find the output out of the cache).
pub const STORE_PROBE_RUN: u64 = 8;

/// How much faster (percent) the other kind's best probe must be than the rule's for a period to switch to it.
pub const STORE_PROBE_MARGIN_PERCENT: u64 = 5;

/// Rows shorter than this many bytes absorb the next dimensions into a table row (see `RowKind::Table`).
pub const TABLE_ROW_BYTES: usize = 64;

/// Largest number of elements of a table row.
///
/// PERF: longer table rows mean fewer rows, each through more 64-byte lanes; the cost of a short row is the walk
/// around it. One thread, Zen 5 VM: i16 rank 6 with 16-element reversed rows (128 KiB) 11.3 → 3.5 µs at 128
/// (64: the next dimension of 8 did not fit), the public u16 rank-8 case 295 → 236 ns at 256 (216 ns at 1024).
pub const TABLE_MAX: usize = 256;

/// Largest number of elements of a whole walk run element by element, without the row kernels (`Strategy::tiny`):
/// the 4×4 example of the spec took 400 instructions through scheduling, level dispatch and the row kernel's entry,
/// element by element 40.
pub const TINY_MAX: usize = 64;

/// Bytes of the next row prefetched while a row is copied (out-of-line row kernels).
///
/// PERF: 32 lines; a 5760-byte descending-row copy measured 1.32x (8 lines), 1.11x (32), 1.17x (90) of memcpy.
pub const PREFETCH_BYTES: usize = 2 << 10;

/// Rows ahead of the one being moved that a run of short rows that jump (shorter than [`PREFETCH_BYTES`], more than
/// [`PREFETCH_GAP`] between them) prefetches; other runs prefetch the next row.
///
/// PERF: one thread, tight loops, the public f32 crop 384 with H and W stride 2 (rows of 1.5 KiB read 4 KiB apart
/// from a 48 MiB input): one row ahead 369–402 µs, two 346–365, four 292–307, eight 294–298. The same gather from a
/// packed input holding only the rows read ran in 175–184 µs, so the rest is the sparse access itself. Rows that
/// follow each other lost from it: the public 1080p hflip (5760-byte rows) 112–114 → 125–126 µs four rows ahead.
///
/// These rows are prefetched into L2 only (`prefetcht1`), not into L1: one process alternating the two 16–20 times,
/// buffers on 2 MiB pages as numpy's, Zen 4, one thread: crop 384 median 1446 → 1244 µs (lower in 16 of 16 rounds),
/// the public `f32_nchw_1x64x256x256_hw_stride2` 253 → 204 µs (16 of 16); two threads 271 → 224 µs and 116 → 99 µs
/// (14 of 16 each); on 4 KiB pages 1557 → 1228 µs and 497 → 378 µs. (A prefetch into L1 holds one of its few miss
/// buffers for the whole trip to memory; the loads find the lines in L2 and the L1 streamer takes them from there.)
/// Eight rows ahead into L2 tied with four (10 and 12 of 20 rounds). Through `strider bench` (8 alternations, best):
/// crop 384 829 → 627 µs, hw_stride2 212 → 180 µs; two threads crop 384 427 → 279 µs.
pub const PREFETCH_ROWS: usize = 4;

/// Rows whose input starts at most this many bytes past the previous row's lead count as adjacent: the hardware
/// prefetchers follow them and one row ahead is enough (the public u8 NHWC crop of 200 of 224 pixels, 600-byte
/// rows 672 bytes apart: 64 µs one row ahead, 66–67 µs four).
pub const PREFETCH_GAP: usize = 256;

/// Elements per block of a two-step conversion (through an f32 buffer of this many elements on the stack).
pub const BLOCK: usize = 256;

/// Output rows a converting transpose that transposes first moves per block at least (the block's input elements
/// fill the staging buffer: the fewer rows, the longer each row's converted run).
///
/// PERF: one thread, NHWC → NCHW with 16 channels (best of three), 16 → 8 rows: f16 → f32 128² 41.2 → 33.6 µs,
/// 4 × 128² 152 → 120 µs, f32 → i32 64² 15.0 → 9.5 µs, normalized f32 64² 28.4 → 17.5 µs; 4 rows (below the tiles'
/// 8 columns) lost, f16 → f32 128² 92.6 µs.
pub const STAGED_FIRST_ROWS: usize = 8;

/// Contiguous runs of at least this many bytes, up to the L2 size, whose input and output share their offset in a
/// line, are copied with the CPU's fast string move (`rep movsb`) rather than vector registers when they are not
/// streamed, on CPUs with ERMS (see `cache::CacheSizes::rep_movsb_max`): it writes whole lines without reading
/// them first.
///
/// PERF: Zen 4 VM, a C model of the row copies (registers against `rep movsb`, runs on lines): 8 × a 588 KiB image
/// into 4.6 MiB (`Tile`) 73 → 58 µs; 1 KiB runs 1.0–1.45× slower, 2 KiB 0.8–1.0×, 4 KiB 0.8–1.0×, 8–64 KiB 0.5–0.9×
/// (into 4–16 MiB); with input and output at different offsets in their lines no faster (0.9–1.1×, 1 KiB 1.4–2.7×
/// slower), hence the condition.
pub const REP_MOVSB_MIN_BYTES: usize = 4 << 10;

/// Contiguous runs of at least this many bytes take the string move ([`REP_MOVSB_MIN_BYTES`]'s conditions otherwise)
/// at the vector levels even when the walk's footprint is within L2: a run this long does not sit in L1 (32 KiB
/// here) with its input, and a batch's moves each see only their own footprint (`Join` of 32 images of 147 KiB:
/// each move 294 KiB, the batch 9.2 MiB).
///
/// PERF: one thread, Zen 4 VM, tight loops, both orders, f32 copies in cache, registers → `rep movsb`, `--isa v3`:
/// 16 KiB 110–111 → 118–120 ns, 32 KiB 366–375 → 211–214 ns, 64 KiB 695–700 → 535–545 ns, 128 KiB 1330–1337 →
/// 1019–1035 ns; that join 94.9 → 74.7 µs (two threads 49.6 → 38.7 µs).
pub const REP_MOVSB_NEAR_MIN_BYTES: usize = 32 << 10;

/// Input row stride (bytes) from which a converting transpose with converting tiles (f32 → f16) runs them over
/// whole strips of 32 input rows across all their columns, not over blocks the size of the staging buffer: rows a
/// page or more apart are each a stream of their own, whose lines the tiles read in order.
///
/// PERF: one thread, Zen 4 VM, AVX-512, tight loops, buffer blocks → strips: f32 → f16 transposes 1024² 126 →
/// 110 µs, 2048² 1.0–1.2 → 0.67–0.69 ms (between copies 1.14 → 0.70), 4096² 6.8 → 3.5 ms, 1536² 0.33–0.61 → 0.29–
/// 0.32 ms; f32 NCHW → f16 NHWC 4 × 64 × 128² (rows 512 B, 64 KiB apart) 0.80–0.84 → 0.39–0.41 ms. Rows that
/// share pages lost: f32 NHWC → f16 NCHW with 64 channels (rows of 256 B) 4 × 128² 0.48 → 0.59 ms, with 32 0.16 →
/// 0.19 ms (a tile reads every second or fourth line of a strip's bytes).
pub const STAGED_STRIP_ROW_STRIDE: usize = 4 << 10;

/// Bytes of each staging buffer of a converting row (on the stack; two per call). Small enough to stay in L1 beside
/// the rows' own lines, large enough that the per-chunk calls cost nothing next to the chunk.
pub const SCRATCH_BYTES: usize = 8 << 10;

/// Output bytes of one column super-block of a transpose (kept in L2 while its rows are swept a tile's rows at a time).
pub const TRANSPOSE_L2_BYTES: usize = 512 << 10;

/// Bytes of one way of the L1 data cache: x86 L1 caches are indexed by the address bits below the 4 KiB page
/// (32–48 KiB in 8–12 ways of 64 sets on every x86 core of the last decade), so rows a multiple of 1 KiB apart fall
/// into at most 4 of the 64 sets.
pub const L1_WAY_BYTES: usize = 4 << 10;

/// A transpose whose output rows are a multiple of this many bytes apart puts them into so few L1 sets
/// ([`L1_WAY_BYTES`] / this = 4 or fewer) that the super-block sweep evicts half-written lines before their other
/// half arrives; it walks square blocks of [`TRANSPOSE_BLOCK`] elements instead. Measured on the project's Zen 5 VM,
/// one thread, f32 (input rows × columns): 512×512 247 → 79 µs, 1024² 1607 → 573 µs, 2048² 5398 → 2562 µs,
/// 256×4096 620 → 259 µs, 65536×64 1695 → 1356 µs; u8 2048² 2762 → 907 µs. Other output strides keep the sweep,
/// which is faster there (64×65536, output rows 256 bytes apart: 1274 µs against 2029 µs in blocks).
///
/// Half of it is critical for 8×8 tiles of 8 bytes or less per row, which write partial lines (one thread, output
/// rows 512 bytes apart, sweep → blocks): f32 128 rows of 120 4.2 → 1.0 µs, 128 rows of 1000 42 → 9 µs, u8 512²
/// 85 → 17 µs, f16 256 rows of 250 15.6 → 3.0 µs. Wide tiles write whole lines and keep the sweep there (f32 NCHW
/// → NHWC with 128 channels: 200–215 µs swept against 274–284 µs in blocks).
pub const TRANSPOSE_CRITICAL_STRIDE: usize = 1 << 10;

/// Side (elements) of the square blocks of a transpose with a critical stride (see
/// [`TRANSPOSE_CRITICAL_STRIDE`]): 128 was within 10% of the best of 16–256 on every measured shape.
pub const TRANSPOSE_BLOCK: usize = 128;

/// Fewest ways of the L1 data cache with which a transpose whose input and output rows are both a critical stride
/// apart sweeps each square block of wide tiles in diagonals rather than columns (see `rows::transpose::diagonals`).
///
/// PERF: the two machines measured disagree, and their L1s are what tells them apart (Zen 5 cores have a 48 KiB
/// 12-way L1 by AMD's documentation — not read on that VM, which predates this rule —, the Zen 4 VM reports 32 KiB
/// 8-way). Zen 5 VM, one thread, columns → diagonals: f32 2048² streamed 606–675 → 403–443 µs, in cache f32 1024²
/// 160–170 → 141–146 µs, f16 2048² 562–605 → 453–467 µs. Zen 4 VM, diagonals → columns, best of four to six
/// alternations: one thread, f32 2048² 1.97–2.49 → 1.25–1.46 ms, 4096² 10.1 → 7.1 ms, 1024 × 4096 1.68 → 1.30 ms,
/// 512² (in L2) 66 → 48 µs, f16 2048² 1.34 → 0.98 ms, 1024² 203 → 184 µs (f32 1024² and f16 4096² within noise);
/// two threads, f32 1024² 165 → 130 µs, 4096² 6.1 → 4.5 ms, f16 4096² 3.1 → 2.8 ms, the rest within noise. The same
/// moves without the register shuffles (the tiles' loads and stores alone) on Zen 4: f32 2048² 1.67–1.82 ms in
/// diagonals, 0.89–0.98 ms in columns.
pub const TRANSPOSE_DIAGONAL_L1_WAYS: usize = 12;

/// Side (elements) of the square blocks of a transpose with a critical stride through wide tiles (whole-line
/// output rows, `Arch::tile_shape`): nothing is left half-written between passes,
/// and longer blocks give the prefetchers longer streams. One thread, 128 → 512: f32 2048² 950–965 → 815 µs, 1024²
/// 211 → 185 µs, 4096² 5.45 → 5.18 ms, 1024×4096 992 → 820 µs, 4096×1024 966 → 894 µs; f16 2048² 739 → 701 µs
/// (1024: 870 µs).
pub const TRANSPOSE_WIDE_BLOCK: usize = 512;

/// Runs of fewer rows than this (the innermost outer dimension) are lengthened by moving the longest outer
/// dimension innermost, for walks whose footprint fits the L2 cache. Each run costs a call of the row kernel
/// (~40 cycles of entry, prefetch and tail set-up): a 64 KiB rank-6 i16 slice of 64-byte reversed rows in runs of 4
/// took 3.4 µs, in runs of 32 2.3 µs (memcpy of its bytes: 0.73 µs).
pub const SHORT_RUN_ROWS: usize = 8;

/// Transposes of 2-byte elements whose output rows are a multiple of this many bytes apart keep 8×8 tiles instead
/// of the 32×16 ones (whose 16 output rows are then all written before any is continued).
///
/// PERF: f16 NHWC → NCHW, one thread, tight loops, 8×8 against 32×16 tiles: 16 channels (planes 32 KiB apart)
/// 212–251 against 325–335 µs, 64 channels 277–367 against 391–438 µs; with planes 4 KiB apart (2048×2048) the
/// 32×16 tiles win, 0.68–0.78 against 1.10–1.17 ms. (4-byte 16×16 tiles at 256 KiB: 817–855 µs against 1.01 ms
/// for 64 channels, so they keep theirs.)
pub const TALL_TILE_ALIAS_BYTES: usize = 16 << 10;

/// Rows of one transpose tile (its input rows, or its output rows) that may fall into one L1 set before the
/// transpose goes through a buffer: half the 8 ways of the L1s of the project's machines (the rest holds the lines
/// the prefetchers bring and the other operand's). See `rows::transpose::aliased_rows` and `out_rows`: 16-row f32
/// tiles reading NCHW planes 16 KiB apart (all 16 rows in one set) ran f32 NCHW → NHWC 16 × 64² in L2 at 14.7–20.5
/// µs against 7–11 µs with planes 256 bytes off a way; 8 rows per set (AVX2's 8×8 tiles) showed no loss.
pub const TRANSPOSE_ROWS_PER_SET: usize = 4;

/// Bytes of each input row a transpose whose input rows crowd into an L1 set copies into its buffer at a time (a
/// whole number of tiles' columns). 256, 512, 1024 and 2048 ran within noise of each other (f32 16 × 64²: 9.7–14.4
/// µs, f16 64 × 128²: 16.5–24.5 µs).
pub const TRANSPOSE_ROWS_CHUNK_BYTES: usize = 512;

/// Output bytes of each row of a block of a transpose whose output rows crowd into an L1 set, and the block's
/// output rows ([`TRANSPOSE_OUT_ROWS`]). 512 bytes × 32 against 128 × 64 and 1 KiB × 16, one thread, NHWC → NCHW:
/// f32 16 × 64² 10.5–13 µs against 19.3 and 9.1–9.3 µs; f16 64 × 128² 115 against 184–192 and 139–191 µs.
pub const TRANSPOSE_OUT_ROW_BYTES: usize = 512;

/// Output rows of a block of a transpose whose output rows crowd into an L1 set (see
/// [`TRANSPOSE_OUT_ROW_BYTES`]).
pub const TRANSPOSE_OUT_ROWS: usize = 32;

/// Bytes ahead of each window that the 64-byte byte-permute lanes of a stride-3 gather prefetch when the walk reads
/// from memory (its footprint beyond the last-level cache one thread can count on).
///
/// PERF: see the lane loop of the VBMI level (`arch/vbmi.rs`, `wide`). On the Zen 4 VM, one prefetch per window:
/// the public i8 4096² stride-3 gather, interleaved rounds, 502 → 394 µs (16 KiB ahead); in the trials, 8 and 16
/// KiB both won over none, a line per lane 4 KiB ahead less so.
pub const WIDE_PREFETCH_AHEAD: isize = 16 << 10;
