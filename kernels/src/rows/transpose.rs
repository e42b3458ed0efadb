//! 2-D transposes: the row (`J`, contiguous in the input) and the folded dimension (`I`, contiguous in the
//! output), through register tiles (8×8, or where the level's registers allow it tiles whose output rows are whole
//! 64-byte lines: 16×16 for 4-byte elements, 32×16 for 2-byte ones) in cache-blocked sweeps.

use super::{Body, Rows, Runner};
use crate::arch::{Arch, Ident, TileMap, TileRun, Wrap, to_line};
use crate::params::{
    TRANSPOSE_OUT_ROW_BYTES as OUT_ROW_BYTES, TRANSPOSE_OUT_ROWS as OUT_ROWS,
    TRANSPOSE_ROWS_CHUNK_BYTES as ROWS_CHUNK_BYTES, TRANSPOSE_ROWS_PER_SET as MAX_ROWS_PER_SET,
};
use crate::strategy::TileWidth;

/// Transposes a block: `ni` input rows `si` bytes apart, each with `nj` contiguous `N`-byte elements, into `nj`
/// output rows `dj` bytes apart, each with `ni` contiguous elements, mapped by `m` (whose lanes divide `N`). Edges
/// through partial register tiles where the level has them, else element by element. With `stores.stream`, whole
/// wide tiles (whole output lines) are stored non-temporally when the block's output starts on a line; the caller
/// fences.
///
/// # Safety
///
/// Every element (i, j) of the block is readable at `src + i·si + j·N` and writable at `dst + i·N + j·dj`, the
/// output elements distinct and not overlapping the input.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn transpose_block<A: Arch, const N: usize, M: TileMap>(
    a: A,
    src: *const u8,
    si: isize,
    dst: *mut u8,
    dj: isize,
    ni: usize,
    nj: usize,
    stores: Stores,
    m: M,
) {
    const { assert!(N.is_multiple_of(M::LANE), "a map's lanes divide the elements it maps") };
    let block = Block::<A, N, M> { a, src, si, dst, dj, stores, m, wrap: Wrap::NONE };
    // SAFETY: (every branch) forwarded contract; `column_of_stacks` after `column_stacks` holds.
    unsafe {
        if buffered::<A, N>(ni, si, dj, stores.stream) {
            block.through_buffer(ni, nj)
        } else if nj == 8 && column_stacks::<A, N>(ni, si, dj) {
            block.column_of_stacks(ni)
        } else if nj == 8 && tile_for::<A, N>(ni, si, dj, stores.stream) == Tile::Small {
            // PERF: a block one 8×8 tile wide goes down its column of tiles (and the last rows) without the sweeps,
            // which add nothing to one column, and without the peel and rotation rules, which need whole-line tiles:
            // their code around four tiles cost the public rank-5 permutation (4096 blocks of 32 × 8) on AVX-512
            // 1.45× its time on AVX2, whose levels have only 8×8 tiles (240–261 against 348–394 µs). One thread,
            // Zen 4 VM, V4-VBMI, four alternations: 281–389 → 180–203 µs; one image of it in cache (512 KiB) 32.4–
            // 32.8 → 21–30 µs; AVX2 unchanged.
            block.corner(ni, nj)
        } else if let Some(rows) = aliased_rows::<A, N>(ni, si, dj, stores.stream) {
            block.through_rows(rows, ni, nj)
        } else {
            block.direct(ni, nj)
        }
    }
}

/// Whether a block one 8×8 tile wide (`nj` = 8) of 4-byte elements goes down its column in line-wide stacks of
/// 8×8 tiles ([`Arch::tile_stack`]: 16 input rows, 8 output rows of one whole line each) rather than 8×8 tiles, with
/// regular stores too: the level has stacks, the block has a stack's rows, its input rows are a stack row's bytes
/// apart or a multiple and do not crowd an L1 set (see [`crowded`]; measured only on rows 32 bytes apart), its
/// output rows a multiple of a line.
///
/// PERF: one thread, Zen 4 VM, medians of 6 alternations (lower in n of 6), 8×8 tiles → stacks: the public rank-5
/// permutation (4096 blocks of 32 rows × 8 columns, output rows 64 KiB apart) 219 → 188 µs (6), two threads 115 →
/// 95 µs (6); f32 NHWC → NCHW with 8 channels, 16 × 128² 359 → 323 µs (6), 4 × 100² 31.4 → 28.1 µs (6), 32 × 112²
/// 502 → 494 µs (4); two threads ties. (Through the general sweep, stacks with regular stores lost: see
/// [`tile_for`]; its code around the tiles is what a column of them does without.) At 32-byte levels the same
/// (`--isa v3`, one thread): streamed, f32 NHWC → NCHW with 8 channels, 32 × 128² 1.73–1.94 → 0.83–0.87 ms; with
/// regular stores (min of 6–8 alternations, tight loops) the public rank-5 permutation 176 → 151 µs, median 204 →
/// 168 µs, two threads 93–114 → 92–108 µs — its access pattern alone (`cargo bench --bench patterns -- rank5
/// --isa=v3`) takes 145 µs in 32-byte pieces and 118 µs in whole lines — with 22 % more instructions (callgrind:
/// 1.31 → 1.59 M a call; a stack's 16 rows go through two 8×8 register tiles); f32 NHWC → NCHW with 8 channels
/// 0.90–1.03 of its time (16 × 128², 4 × 100², 32 × 112²; 1 % fewer instructions).
#[inline(always)]
pub(crate) fn column_stacks<A: Arch, const N: usize>(ni: usize, si: isize, dj: isize) -> bool {
    N == 4 && A::stack_tiles::<N>() && fits::<N>(ni, si, dj, (64 / N, 8)) && !crowded(64 / N, si)
}

/// The rows of a tile whose input rows crowd into too few L1 sets (see [`crowded`]), if a block goes
/// [`Block::through_rows`]: tiles of more than 8 rows (whole-line ones), output rows not a critical stride apart
/// (those go through square blocks, see [`Block::tiles`]), and stores that do not stream.
///
/// PERF: streamed blocks lost through the buffer, to the sweep of [`Block::tiles`] (one thread, f32 NCHW → NHWC,
/// channels × pixels, Zen 4 VM, two alternations at AVX2 and at AVX-512 VBMI, `t/limit`): 16 × 1024² 1.0–1.4 →
/// 0.70–0.74, 32 × 512² 0.9–1.3 → 0.77–0.91, 4 batches of 32 × 256² 0.96–1.28 → 0.62–0.86; at 64 rows and more,
/// where a sweep of all strips at each column step used to take them, see [`Block::tiles`]; 520 and 600 rows tie.
#[inline(always)]
pub(crate) fn aliased_rows<A: Arch, const N: usize>(ni: usize, si: isize, dj: isize, stream: bool) -> Option<usize> {
    let rows = tile_for::<A, N>(ni, si, dj, stream).shape::<N>().0;
    // PERF: spelled out rather than through `crowded`: `transpose_block` inlines every path of a transpose into one
    // large function per level and width, and with the call here the compiler laid out its tile loops differently
    // — f32 NHWC → NCHW with 16 channels, 16 batches of 128² streamed (which never comes here) 0.83 → 1.2–2.1 ms.
    let way = crate::params::L1_WAY_BYTES;
    // Rows `si` apart start in way / gcd(si, way) distinct line-sized slots of a way (the sets).
    let sets = (way / gcd(si.unsigned_abs() % way, way)).max(1);
    let crowded = rows > 8 && rows.div_ceil(sets) > MAX_ROWS_PER_SET;
    (crowded && !critical(dj) && !stream).then_some(rows)
}

/// Whether `rows` rows `stride` bytes apart put more than
/// [`params::TRANSPOSE_ROWS_PER_SET`](crate::params::TRANSPOSE_ROWS_PER_SET) of them into one L1 set.
#[inline(always)]
fn crowded(rows: usize, stride: isize) -> bool {
    let way = crate::params::L1_WAY_BYTES;
    // Rows `stride` apart start in way / gcd(stride, way) distinct line-sized slots of a way (the sets).
    let sets = (way / gcd(stride.unsigned_abs() % way, way)).max(1);
    rows.div_ceil(sets) > MAX_ROWS_PER_SET
}

/// Greatest common divisor (`gcd(0, b) = b`).
const fn gcd(mut a: usize, mut b: usize) -> usize {
    while a != 0 {
        (a, b) = (b % a, a);
    }
    b
}

/// Whether a block goes [`Block::through_out_rows`]: a tile's output rows crowd into a few L1 sets (see
/// [`crowded`]) and hold at least [`params::TRANSPOSE_OUT_ROW_BYTES`](crate::params::TRANSPOSE_OUT_ROW_BYTES),
/// input rows not a critical stride apart (both critical: [`buffered`] or square blocks), elements of 4 bytes or
/// less, and a walk whose footprint fits the last-level cache one thread can count on (`near`). Shorter output rows
/// lost: the public rank-5 permutation (blocks of 32 f32 rows × 8 columns 64 KiB apart) 207–277 → 267–387 µs.
///
/// PERF: NHWC → NCHW with planes a multiple of 4 KiB apart, one thread, tight loops, in tiles → through the
/// buffer: f32 16 × 64² 23.7 → 10.5–13 µs, 16 × 128² 81 → 45 µs, 16 batches of 16 × 64² 193 → 141 µs; f16 16 ×
/// 64² 14 → 6.4–9 µs, 64 × 128² 185 → 115 µs. Out of the per-thread share it lost: the public f16 NHWC → NCHW (16
/// batches of 16 × 128², a 16 MiB footprint) 0.69–0.92 ms in tiles against 0.65–1.98 ms through the buffer.
#[inline(always)]
pub(crate) fn out_rows<A: Arch, const N: usize>(ni: usize, si: isize, dj: isize, stores: Stores, near: bool) -> bool {
    let cols = tile_for::<A, N>(ni, si, dj, stores.stream).shape::<N>().1;
    let long = ni * N >= OUT_ROW_BYTES;
    N <= 4 && near && long && !critical(si) && crowded(cols, dj) && !buffered::<A, N>(ni, si, dj, stores.stream)
}

/// [`Block::through_out_rows`]'s buffer: [`params::TRANSPOSE_OUT_ROWS`](crate::params::TRANSPOSE_OUT_ROWS) rows of
/// [`params::TRANSPOSE_OUT_ROW_BYTES`](crate::params::TRANSPOSE_OUT_ROW_BYTES) and a line.
#[repr(C, align(64))]
struct OutBuffer([core::mem::MaybeUninit<u8>; OUT_BUFFER_BYTES]);

/// Bytes of [`OutBuffer`].
const OUT_BUFFER_BYTES: usize = OUT_ROWS * (OUT_ROW_BYTES + 64);

/// [`Block::through_rows`]'s buffer: up to 32 rows of a chunk and a line.
#[repr(C, align(64))]
struct RowsBuffer([core::mem::MaybeUninit<u8>; ROWS_BUFFER_BYTES]);

/// Bytes of [`RowsBuffer`].
const ROWS_BUFFER_BYTES: usize = 32 * (ROWS_CHUNK_BYTES + 64);

/// How a transpose's stores meet the memory system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stores {
    /// Whole-line tiles store non-temporally (the strategy's policy).
    pub(crate) stream: bool,
    /// The walk's footprint stays in the caches.
    pub(crate) cached: bool,
}

/// Whether a block goes [`Block::through_buffer`]: 8×8 tiles of 1- or 2-byte elements, input and output rows both a
/// critical stride apart.
#[inline(always)]
pub(crate) fn buffered<A: Arch, const N: usize>(ni: usize, si: isize, dj: isize, stream: bool) -> bool {
    N <= MAX_BUFFERED && critical(si) && critical(dj) && tile_for::<A, N>(ni, si, dj, stream) == Tile::Small
}

/// Whether a block whose output rows are a critical stride apart sweeps its blocks of tiles in diagonals rather than
/// columns (see [`Block::tiles`]): whole-line tiles, input rows a critical stride apart too, stores that stream or
/// stay in the caches, and an L1 of at least
/// [`params::TRANSPOSE_DIAGONAL_L1_WAYS`](crate::params::TRANSPOSE_DIAGONAL_L1_WAYS) ways (`l1_ways`).
#[inline(always)]
fn diagonals(whole_lines: bool, si: isize, stores: Stores, l1_ways: usize) -> bool {
    whole_lines
        && critical(si)
        && (stores.stream || stores.cached)
        && l1_ways >= crate::params::TRANSPOSE_DIAGONAL_L1_WAYS
}

/// Whether rows `stride` bytes apart are a critical stride apart
/// ([`params::TRANSPOSE_CRITICAL_STRIDE`](crate::params::TRANSPOSE_CRITICAL_STRIDE)).
#[inline(always)]
pub(crate) fn critical(stride: isize) -> bool {
    stride.unsigned_abs().is_multiple_of(crate::params::TRANSPOSE_CRITICAL_STRIDE)
}

/// Widest element [`Block::through_buffer`] takes (its buffer is sized for it). Wider elements lost through the buffer
/// (one thread, 8×8 tiles, 2048²: f32 on AVX2 1.27 → 2.19 ms, f64 2.6 → 3.7 ms).
const MAX_BUFFERED: usize = 2;

/// Side (elements) of the square blocks [`Block::through_buffer`] moves (u8 2048², one thread: 32 410 µs, 64 288 µs,
/// 128 305 µs; 4096²: 64 2.9 ms, 128 7.0 ms).
const BUFFER_SIDE: usize = 64;

/// A block's transpose written to a buffer whose rows are a line more than a block row apart.
#[repr(C, align(64))]
struct Buffer([core::mem::MaybeUninit<u8>; BUFFER_BYTES]);

/// Bytes of the buffer: [`BUFFER_SIDE`] rows of a block row and a line.
const BUFFER_BYTES: usize = BUFFER_SIDE * (BUFFER_SIDE * MAX_BUFFERED + 64);

/// The register tile a transpose goes through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Tile {
    /// 8×8 ([`Arch::tile8`]).
    Small,
    /// The level's wide tile of `rows × cols` ([`Arch::tile_shape`]): output rows of one whole 64-byte line.
    Wide(usize, usize),
    /// 8×8 tiles stacked one 64-byte line wide, in one register pass ([`Arch::tile_stack`]): `64 / N` input rows
    /// of 8 elements, output rows of one whole line.
    Stack,
}

/// [`Tile`] kinds as constants, for [`Block::tiles`].
const SMALL: u8 = 0;
const WIDE: u8 = 1;
const STACK: u8 = 2;

impl Tile {
    /// `(rows, cols)`: input rows and columns (output rows) of one tile of `N`-byte elements.
    #[inline(always)]
    pub(crate) fn shape<const N: usize>(self) -> (usize, usize) {
        match self {
            Tile::Small => (8, 8),
            Tile::Wide(rows, cols) => (rows, cols),
            Tile::Stack => (64 / N, 8),
        }
    }

    /// Whether one tile writes each of its output rows of `N`-byte elements as one whole 64-byte line (which it
    /// can stream, and which leaves no half-written line behind).
    #[inline(always)]
    fn whole_lines<const N: usize>(self) -> bool {
        self != Tile::Small && self.shape::<N>().0 * N == 64
    }
}

/// The tile a block of `ni` input rows `si` bytes apart and output rows `dj` bytes apart goes through, where no
/// load or store of it splits across lines — input rows a multiple of the tile's row bytes apart, output rows a
/// multiple of its column bytes — and the block has that many rows: the level's wide tile ([`Arch::tile_shape`]),
/// else, when the stores stream (`stream`: the strategy's policy, and the block's output starts on a line), a
/// line-wide stack of 8×8 tiles in one pass where the level has them ([`Arch::stack_tiles`]; on 32-byte levels
/// only for input rows that do not crowd an L1 set, see [`crowded`]: their stacks read half lines of each input
/// row and come back for the other half with the next stack), else 8×8.
///
/// PERF: 16×16 f32 tiles ran a 128×128 transpose in 1.6 µs against 2.4 µs with 8×8 and a 2048×2048 one in
/// 1.17–1.24 ms against 1.37–1.79 ms, but a 1000×1000 one (rows 4000 bytes apart) slowed from 130 to 180 µs on
/// split loads and stores, and a block of 8–15 rows pays a 16-row shuffle network for half a tile. 32×16 f16
/// tiles: 256×256 12.8–13.4 → 3.3–3.4 µs, 2048×2048 1.10–1.17 → 0.68–0.78 ms, NCHW → NHWC with 32 channels 149–153
/// → 103–107 µs; see [`params::TALL_TILE_ALIAS_BYTES`](crate::params::TALL_TILE_ALIAS_BYTES) for where they lose.
///
/// Stacks exist to stream: what they win, they win by storing whole lines non-temporally, which 8×8 tiles cannot.
/// One thread, tight loops, 8×8 tiles → streamed stacks: f32 NHWC → NCHW with 8 channels (16 MiB out) 762–819 →
/// 385–388 µs, 24 channels (12 MiB) 424–469 → 288–293 µs, a rank-5 permutation with blocks of 128 rows (32 MiB)
/// 1.72 → 1.33–1.38 ms; f16 NHWC → NCHW with 32 channels (16 MiB, planes 32 KiB apart) 1.05–1.14 → 0.44–0.47 ms.
/// With regular stores they lost: f32 with 8 channels 762 → 931 µs, the public rank-5 permutation (4 MiB, blocks of
/// 32 rows) 87 → 130 µs, f16 NHWC → NCHW with 16 channels (8 MiB) 186–198 → 244–285 µs; and streamed stacks lose
/// on footprints the caches hold, where the policy does not stream (the public rank-5 permutation streamed: 87 µs
/// through 8×8 tiles, 141 µs through stacks). AVX2 has stacks of 2-byte elements (`strider bench --isa v3`, one
/// thread, Zen 4, 8×8 tiles → streamed stacks: f32 NHWC → f16 NCHW 16 × 16 × 128², whose f16 tiles these are,
/// 1.65–2.31 → 1.03–1.06 ms; f16 NHWC → NCHW with 16 channels 0.79–0.94 → 0.68 ms); its 4-byte stacks go down
/// single columns only ([`sweep_stacks`], [`column_stacks`]). With crowded input rows they lost (f32 NCHW → NHWC
/// with 64 channels 1.9 → 2.8 ms). AVX2's wide 4-byte tile is 16×16 (four 8×8 networks whose output rows are
/// stored whole): f32 2048² 1.25 → 0.52 ms, NCHW → NHWC with 64 channels `t/limit` 1.46–1.58 → 1.05–1.25.
#[inline(always)]
pub(crate) fn tile_for<A: Arch, const N: usize>(ni: usize, si: isize, dj: isize, stream: bool) -> Tile {
    let fits = |rows: usize, cols: usize| fits::<N>(ni, si, dj, (rows, cols));
    let (rows, cols) = A::tile_shape::<N>();
    let aliased = rows > cols && dj.unsigned_abs().is_multiple_of(crate::params::TALL_TILE_ALIAS_BYTES);
    if (rows, cols) != (8, 8) && fits(rows, cols) && !aliased {
        Tile::Wide(rows, cols)
    } else if stream && sweep_stacks::<A, N>() && fits(64 / N, 8) && (A::BYTES == 64 || !crowded(64 / N, si)) {
        Tile::Stack
    } else {
        Tile::Small
    }
}

/// Whether the sweeps of blocks ([`tile_for`]) take stacks of `N`-byte elements: where the level has them, but not
/// 4-byte ones at 32-byte levels (they go down single columns only, [`column_stacks`]). PERF: a constant, so that
/// the sweeps' stack arm is not compiled where it is not taken: with it, the public rank-5 permutation's 8×8 path
/// (which takes no stack) ran 15–20 % slower at `--isa v3`.
#[inline(always)]
fn sweep_stacks<A: Arch, const N: usize>() -> bool {
    A::stack_tiles::<N>() && (A::BYTES == 64 || N == 2)
}

/// Whether tiles of `rows` input rows × `cols` columns of `N`-byte elements fit a block of `ni` input rows `si`
/// bytes apart, output rows `dj` apart, without splitting a load or store across lines: the block has that many
/// rows, input rows a multiple of a tile row's bytes apart, output rows a multiple of a tile column's.
#[inline(always)]
fn fits<const N: usize>(ni: usize, si: isize, dj: isize, (rows, cols): (usize, usize)) -> bool {
    ni >= rows && si.unsigned_abs().is_multiple_of(cols * N) && dj.unsigned_abs().is_multiple_of(rows * N)
}

/// The rows `pi` and columns `pj` of a block at `src` / `dst` that [`Block::direct`] moves through 8×8 and partial
/// tiles first, so that the rest of the block starts on a line on both sides and goes through whole-line tiles
/// (streamed where the policy, `stream`, says so): `None` when the block starts on lines already, when its elements
/// are not aligned to their width, or when the rest would not take whole-line tiles. Rows `pi` align the output
/// (whose rows are then a multiple of 64 bytes apart, so all of them at once), columns `pj` the input when its rows
/// are a multiple of 64 bytes apart.
///
/// PERF: numpy places large arrays 16 bytes past a line. There the tiles' whole-line stores split in two and
/// cannot stream: one thread, the public f32 2048² transpose ran at 3.2 ms against 1.2 ms on lines; peeled, 1.35
/// ms. Output rows that follow each other (NHWC) are rotated instead (see [`rotation`]): peeled, each line a row
/// shares with the next is written in two passes.
#[inline(always)]
pub(crate) fn peel<A: Arch, const N: usize>(
    src: *const u8,
    dst: *const u8,
    (ni, nj): (usize, usize),
    si: isize,
    dj: isize,
    stream: bool,
) -> Option<(usize, usize)> {
    // (Levels and widths without whole-line tiles: nothing, known at compile time, so no edge code either.)
    let wide = A::tile_shape::<N>() != (8, 8) || sweep_stacks::<A, N>();
    let (d, s) = (dst as usize % 64, src as usize % 64);
    if !wide || (d == 0 && s == 0) || !d.is_multiple_of(N) || !s.is_multiple_of(N) {
        return None;
    }
    let pi = to_line(dst as usize, N);
    let pj = if si.unsigned_abs().is_multiple_of(64) { to_line(src as usize, N) } else { 0 };
    let (ri, rj) = (ni.checked_sub(pi)?, nj.checked_sub(pj)?);
    let tile = tile_for::<A, N>(ri, si, dj, stream);
    let (ti, tj) = tile.shape::<N>();
    ((pi, pj) != (0, 0) && tile.whole_lines::<N>() && ri >= ti && rj >= tj).then_some((pi, pj))
}

/// The rotation of a block whose output rows follow each other (`dj = ni·N`, a multiple of a line) but start `e`
/// elements past a line, if [`Block::direct`] transposes it rotated: `(e, j0)`. The rotated block starts `e`
/// elements earlier in the output, on a line, and its tiles' rows `0..e` are the block's last `e` rows one column
/// earlier ([`Wrap`]), so that every output line is one whole-line tile row (streamed where the policy says so);
/// it starts at column `j0` ≥ 1 (the first whose input is on a line when the input rows are a multiple of a line
/// apart), and the edges around it go through 8×8 and partial tiles. `None` without whole-line tiles (the level's
/// wide tiles, output rows not a critical stride apart), or when nothing is past a line.
///
/// PERF: numpy places large arrays 16 bytes past a line, where NHWC output rows of 64 f32 channels (256 bytes, one
/// after the other) share a line with the next. One thread, f32 NCHW → NHWC 1×64×256², both buffers 16 bytes past a
/// line (best of 4 alternations): peeled 2.56–3.04 ms, rotated 1.13–1.20 ms (on lines: 0.85 ms); the same with
/// scale-bias 2.80 → 1.32 ms. (Peeled, the line each row shares with the next was written in two passes; through a
/// line-aligned buffer streamed out as one run, 2.0–3.1 ms.)
#[inline(always)]
pub(crate) fn rotation<A: Arch, const N: usize>(
    src: *const u8,
    dst: *const u8,
    (ni, nj): (usize, usize),
    si: isize,
    dj: isize,
    stream: bool,
) -> Option<(usize, usize)> {
    let (_, tj) = A::tile_shape::<N>();
    let d = dst as usize % 64;
    let row = ni.checked_mul(N)?;
    let packed = dj >= 0 && dj as usize == row && row.is_multiple_of(64);
    if d == 0
        || !d.is_multiple_of(N)
        || !packed
        || critical(dj)
        || !matches!(tile_for::<A, N>(ni, si, dj, stream), Tile::Wide(..))
    {
        return None;
    }
    let s = src as usize;
    let j0 = 1 + if si.unsigned_abs().is_multiple_of(64) && s.is_multiple_of(N) { to_line(s + N, N) } else { 0 };
    (nj >= j0 + tj).then_some((d / N, j0))
}

/// The direction of a run of tiles: down a column (along i) or across a row (along j).
#[derive(Clone, Copy)]
enum Run {
    Down,
    Across,
}

/// A block being transposed: element (i, j) of `N` bytes at `src + i·si + j·N` in the input and `dst + i·N + j·dj`
/// in the output. Its methods move the edges the whole tiles leave.
///
/// PERF: methods, not closures: a closure the compiler keeps out of line is compiled without the level's target
/// features, and the tiles' intrinsics become calls (partial tiles ran 6–25× slower).
#[derive(Clone, Copy)]
struct Block<A, const N: usize, M> {
    a: A,
    src: *const u8,
    si: isize,
    dst: *mut u8,
    dj: isize,
    /// The store policy; `stores.stream`: whole wide tiles store non-temporally (every output row of the block's
    /// wide tiles starts on a line).
    stores: Stores,
    /// The map applied to every element (in the tiles' registers, or one element at a time at the edges).
    m: M,
    /// Input rows read elsewhere than `i·si` by the whole wide tiles, the block's only tiles when any are (a
    /// rotated block, see [`rotation`]).
    wrap: Wrap,
}

impl<A: Arch, const N: usize, M: TileMap> Block<A, N, M> {
    /// [`transpose_block`] through 8×8 tiles of 1- or 2-byte elements with input and output rows both a critical stride
    /// apart: square blocks transposed into a buffer whose rows are not, then copied out row by row (whole runs of the
    /// output rows).
    ///
    /// PERF: with both strides critical, the tiles' partial-line loads and stores crowd the same few cache sets
    /// whatever the block shape (one thread, u8 2048² 645 µs against 157 µs for 2064², and 166 µs when only one side
    /// is critical, 2048 × 2064). Through the buffer (one thread, u8): 2048² 631 → 284 µs, 1024² 112 → 58 µs,
    /// 2048 × 1024 302 → 122 µs, 4096 × 1024 988 → 305 µs, 4096² 4.9 → 2.7–4.2 ms; f16 on AVX2 2048² 1.09–1.12 →
    /// 1.04 ms.
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements.
    #[inline(always)]
    unsafe fn through_buffer(&self, ni: usize, nj: usize) {
        let mut buf = Buffer([core::mem::MaybeUninit::uninit(); BUFFER_BYTES]);
        // SAFETY: forwarded contract; the buffer holds BUFFER_SIDE rows of BUFFER_SIDE·N + 64 bytes (N ≤ 2).
        unsafe { self.via(buf.0.as_mut_ptr().cast(), (BUFFER_SIDE, BUFFER_SIDE), false, ni, nj) }
    }

    /// Transposes the block through the buffer `b`: blocks of `side_i` × `side_j` elements transposed into it, its
    /// rows a block row and a line apart (never a critical stride), then copied out row by row — whole runs of the
    /// output rows, streamed with `stream` when they start on a line (the caller fences).
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements; `b` is writable for `side_j` rows of
    /// `side_i·N + 64` bytes and overlaps neither operand.
    #[inline(always)]
    unsafe fn via(&self, b: *mut u8, (side_i, side_j): (usize, usize), stream: bool, ni: usize, nj: usize) {
        let pitch = side_i * N + 64;
        let mut jb = 0;
        while jb < nj {
            let cj = side_j.min(nj - jb);
            let mut ib = 0;
            while ib < ni {
                let ci = side_i.min(ni - ib);
                let (s, d) = self.at(ib, jb);
                let stores = Stores { stream: false, ..self.stores };
                let into = Block { src: s, dst: b, dj: pitch as isize, stores, ..*self };
                let stream = stream && (d as usize).is_multiple_of(64);
                // SAFETY: rows ib..ib+ci, columns jb..jb+cj are elements of the block (contract); the buffer holds
                // cj rows of `pitch` ≥ ci·N bytes and overlaps neither operand; buffer row j holds output row
                // jb + j's elements ib..ib+ci, contiguous in the output.
                unsafe {
                    into.aligned(ci, cj);
                    for j in 0..cj {
                        let to = d.wrapping_offset(j as isize * self.dj);
                        crate::arch::copy(self.a, b.add(j * pitch), to, ci * N, stream);
                    }
                }
                ib += ci;
            }
            jb += cj;
        }
    }

    /// [`transpose_block`] for input rows that crowd into a few L1 sets (see [`aliased_rows`]): each strip of
    /// `rows` input rows (one tile's) is copied a chunk at a time into a buffer whose rows are a chunk and a line
    /// apart, and transposed out of it. Column super-blocks as the sweep of [`Block::tiles`]; rows past the last
    /// whole strip go [`Block::direct`].
    ///
    /// PERF: a tile's loads of 16 (f32) or 32 (f16) rows a multiple of 4 KiB apart all fall into one set of an
    /// 8-way L1, and the lines the prefetchers bring for the next tile evict each other. One thread, tight loops,
    /// f32 NCHW → NHWC with planes a multiple of 4 KiB apart ran at 2.3–3.5× memcpy in L2 (16 × 64² 19 µs) against
    /// 1.1–1.2× for planes 256 bytes off (16 × 64 × 65: 9.5 µs).
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements; `rows` ≤ 32 and `rows · N` ≤ 64.
    #[inline(always)]
    unsafe fn through_rows(&self, rows: usize, ni: usize, nj: usize) {
        let mut buf = RowsBuffer([core::mem::MaybeUninit::uninit(); ROWS_BUFFER_BYTES]);
        let b = buf.0.as_mut_ptr().cast::<u8>();
        let cols = ROWS_CHUNK_BYTES / N;
        let pitch = ROWS_CHUNK_BYTES + 64;
        let sj = (crate::params::TRANSPOSE_L2_BYTES / (ni * N).max(1)).max(cols) / cols * cols;
        let nit = ni / rows * rows;
        let mut j0 = 0;
        while j0 < nj {
            let j1 = (j0 + sj).min(nj);
            let mut i = 0;
            while i < nit {
                let mut j = j0;
                while j < j1 {
                    let c = cols.min(j1 - j);
                    // SAFETY: rows i..i+rows ≤ ni, columns j..j+c ≤ nj are elements of the block (contract); the
                    // buffer holds `rows` ≤ 32 rows of `pitch` ≥ c·N bytes and overlaps neither operand; buffer row r
                    // holds input row i + r's columns j..j+c.
                    unsafe {
                        for r in 0..rows {
                            crate::arch::copy(self.a, self.at(i + r, j).0, b.add(r * pitch), c * N, false);
                        }
                        let from = Block { src: b, si: pitch as isize, dst: self.at(i, j).1, ..*self };
                        from.aligned(rows, c);
                    }
                    j += c;
                }
                i += rows;
            }
            j0 = j1;
        }
        if nit < ni {
            // SAFETY: rows nit..ni, all columns, of the block.
            unsafe { self.shift(nit, 0).aligned(ni - nit, nj) };
        }
    }

    /// [`transpose_block`] for output rows that crowd into a few L1 sets (see [`out_rows`]): blocks of
    /// [`params::TRANSPOSE_OUT_ROWS`](crate::params::TRANSPOSE_OUT_ROWS) output rows ×
    /// [`params::TRANSPOSE_OUT_ROW_BYTES`](crate::params::TRANSPOSE_OUT_ROW_BYTES) transposed into a buffer whose
    /// rows are a block row and a line apart, then copied out row by row (whole runs of the output rows, streamed when
    /// the policy says so and they start on a line).
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements.
    #[inline(always)]
    unsafe fn through_out_rows(&self, ni: usize, nj: usize) {
        let mut buf = OutBuffer([core::mem::MaybeUninit::uninit(); OUT_BUFFER_BYTES]);
        let stream = self.stores.stream && self.dj.unsigned_abs().is_multiple_of(64);
        // SAFETY: forwarded contract; the buffer holds OUT_ROWS rows of OUT_ROW_BYTES + 64 bytes.
        unsafe { self.via(buf.0.as_mut_ptr().cast(), (OUT_ROW_BYTES / N, OUT_ROWS), stream, ni, nj) }
    }

    /// [`transpose_block`] without the buffer: the tiles write the output directly.
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements.
    #[inline(always)]
    unsafe fn direct(&self, ni: usize, nj: usize) {
        // (One expansion of the sweeps and one of the edge tiles for every case: `direct` is inlined into every
        // transposing kernel, and a second copy of each added 13% to the text and tripled the test build.)
        let (si, dj) = (self.si, self.dj);
        let tj = A::tile_shape::<N>().1;
        // The rest of the block: from (pi, pj) on, rotated by e rows (nothing peeled or rotated: all of it).
        let ((pi, pj), e, (ri, rj), edges) =
            match rotation::<A, N>(self.src, self.dst, (ni, nj), si, dj, self.stores.stream) {
                Some((e, j0)) => {
                    // Columns j0..j1 of the rotated block: its row i' is the block's row i' - e, or for i' < e the row
                    // ni - e + i' one column earlier (whose output precedes, dj = ni·N).
                    let j1 = j0 + (nj - j0) / tj * tj;
                    let edges =
                        [(0, 0, ni, j0 - 1), (0, j0 - 1, ni - e, 1), (ni - e, j1 - 1, e, 1), (0, j1, ni, nj - j1)];
                    ((0, j0), e, (ni, j1 - j0), edges)
                }
                None => {
                    let (pi, pj) =
                        peel::<A, N>(self.src, self.dst, (ni, nj), si, dj, self.stores.stream).unwrap_or((0, 0));
                    (
                        (pi, pj),
                        0,
                        (ni - pi, nj - pj),
                        [(0, 0, pi, nj), (pi, 0, ni - pi, pj), (0, 0, 0, 0), (0, 0, 0, 0)],
                    )
                }
            };
        // (Blocks on lines skip the loop: its four empty rectangles cost the 8×8-tile rank-5 permutation's 4096
        // blocks of 32 × 8 about 100 instructions each.)
        for (i0, j0, rows, cols) in edges.into_iter().take(if (pi, pj) == (0, 0) { 0 } else { 4 }) {
            // SAFETY: each rectangle is in the block: peeled, rows 0..pi then columns 0..pj of rows pi..ni (pi ≤ ni,
            // pj ≤ nj by `peel`); rotated, what columns j0..j1 of the rotated block leave (1 ≤ j0 ≤ j1 ≤ nj, e < ni
            // by `rotation`).
            unsafe { self.shift(i0, j0).corner(rows, cols) };
        }
        let (src, dst) = self.at(pi, pj);
        let offset = (ni as isize).wrapping_mul(si).wrapping_sub(N as isize);
        let rest = Block {
            src: src.wrapping_offset(-(e as isize) * si),
            dst: dst.wrapping_sub(e * N),
            wrap: Wrap { rows: e, offset, every: false },
            ..*self
        };
        // SAFETY: peeled, the rest of the block from (pi, pj) on; rotated, element (i', j) of the rotated block is
        // the block's (i' - e, j0 + j), or for i' < e its (ni - e + i', j0 + j - 1): elements of the block for
        // j < j1 - j0 (j0 ≥ 1), at the same addresses (dj = ni·N); its tiles are wide, with every row of them.
        unsafe { rest.aligned(ri, rj) }
    }

    /// [`Block::direct`] once the block is peeled (see [`peel`]).
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements.
    #[inline(always)]
    unsafe fn aligned(&self, ni: usize, nj: usize) {
        // A wide tile or stack at (i, j) writes output rows that start at dst + i·N + j·dj: on a line boundary for
        // every tile when dst is (i·N is a multiple of ti·N = 64 bytes, dj of 64 by `tile_for`).
        let stream = self.stores.stream && (self.dst as usize).is_multiple_of(64);
        let tile = match tile_for::<A, N>(ni, self.si, self.dj, stream) {
            // (Fewer columns than the tile's: 8×8 tiles do what they can.)
            t if nj < t.shape::<N>().1 => Tile::Small,
            t => t,
        };
        let block = Block { stores: Stores { stream: stream && tile.whole_lines::<N>(), ..self.stores }, ..*self };
        // SAFETY: forwarded contract; each kind with its tile.
        unsafe {
            match tile {
                Tile::Small => block.tiles::<SMALL>(tile, ni, nj),
                Tile::Wide(..) => block.tiles::<WIDE>(tile, ni, nj),
                Tile::Stack => block.tiles::<STACK>(tile, ni, nj),
            }
        }
    }

    /// [`Block::direct`] through `tile`, whose kind `K` is a constant so that each sweep's loop is compiled for one
    /// tile.
    ///
    /// PERF: the public rank-5 permutation (8×8 tiles, 4096 blocks of 32 rows; one thread, tight loops) ran in
    /// 104–110 µs with a `wide` flag tested per tile, 122–123 µs with a match on three kinds per tile, and 85–91 µs
    /// with one loop per kind.
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × nj` elements; `tile` is of kind `K`.
    #[inline(always)]
    unsafe fn tiles<const K: u8>(&self, tile: Tile, ni: usize, nj: usize) {
        let (ti, tj) = tile.shape::<N>();
        let wide = tile.whole_lines::<N>();
        // Tiles whose rows are half lines or less leave partial lines behind: output rows half the critical stride
        // apart already crowd them into 8 of the 64 L1 sets.
        let critical_bytes = crate::params::TRANSPOSE_CRITICAL_STRIDE / if wide { 1 } else { 2 };
        let critical_out = self.dj.unsigned_abs().is_multiple_of(critical_bytes);
        // (Input rows a critical stride apart are fine for the sweep: it reads ti of them at a time.)
        let full = nj / tj * tj;
        let nit = ni / ti * ti;
        if critical_out {
            // PERF: output rows a critical stride apart share a few L1 sets, and the sweep below leaves hundreds of
            // partly written lines of them between its passes. Square blocks keep the lines a block touches few
            // enough to stay cached: within a block, tj output rows at a time are written along i, reading tj columns
            // of every input row of the block.
            let b = if wide { crate::params::TRANSPOSE_WIDE_BLOCK } else { crate::params::TRANSPOSE_BLOCK };
            // PERF: with input rows a critical stride apart too, a column of tiles reads every input row of the
            // block at the same offset (the same few cache sets, one after the other); diagonals of tiles move to
            // the next column with every row. One thread, wide tiles, column order → diagonals, streamed: f32 2048²
            // 648–675 → 409–443 µs, 1024×4096 672–692 → 434–459 µs; in cache: f32 1024² 160–170 → 141–146 µs, f16
            // 2048² 562–605 → 453–467 µs, 4096² 2.9–3.0 → 2.1–2.5 ms. Regular stores out of the caches lost (f32
            // 2048², 2 threads: 381–389 → 436–442 µs), and so did input rows not critical (f32 2048² from rows 2064
            // apart: 389–399 µs in columns, 415–439 in diagonals). 8×8 tiles keep columns, whose next tile
            // completes the lines this one half-writes. All on the Zen 5 VM: the Zen 4 VM, whose L1 has fewer
            // ways, ran every case faster in columns (see params::TRANSPOSE_DIAGONAL_L1_WAYS).
            let diagonal = diagonals(wide, self.si, self.stores, crate::cache::CacheSizes::get().l1d_ways());
            let mut jb = 0;
            while jb < full {
                let je = (jb + b).min(full);
                let mut ib = 0;
                while ib < nit {
                    let ie = (ib + b).min(nit);
                    // Tiles (t, u) of the block, t along i and u along j (ie - ib and je - jb are whole tiles).
                    let (nti, ntj) = ((ie - ib) / ti, (je - jb) / tj);
                    for d in 0..ntj {
                        if !diagonal {
                            // SAFETY: rows ib..ib + nti·ti, columns jb + d·tj.. are a column of whole tiles of the
                            // block (d < ntj).
                            unsafe { self.tile_run::<K>((ti, tj), ib, jb + d * tj, nti, Run::Down) };
                            continue;
                        }
                        for t in 0..nti {
                            // Tile t of diagonal d is in column t + d (mod ntj): each (t, u) once.
                            let u = (t + d) % ntj;
                            // SAFETY: rows ib + t·ti.., columns jb + u·tj.. are a whole tile of the block (t < nti,
                            // u < ntj).
                            unsafe { self.tile::<K>(ib + t * ti, jb + u * tj) };
                        }
                    }
                    ib = ie;
                }
                // SAFETY: rows nit..ni, columns jb..je ≤ nj of the block.
                unsafe { self.rows_from(tj, (nit, ni), (jb, je)) };
                jb = je;
            }
        } else {
            // PERF: two-level blocking. A super-block of columns is sized so that all its output rows (columns × ni
            // elements) stay in L2; inside it, ti input rows at a time are swept across all its columns, so only ti
            // input streams are live (sweeping all ni rows per column block kept 64 streams live for a 64-channel
            // NCHW → NHWC, more than the prefetchers follow), and the output lines, completed over the successive
            // passes, are still in L2 when the next pass returns to them.
            //
            // PERF: streamed too. A sweep of all ni rows at each column step, each input row prefetched two tiles
            // ahead (once measured faster on the public f32 NCHW → NHWC with 64 channels: 615–651 → 487–505 µs), lost
            // on the Zen 4 VM at both widths (one thread, `t/limit`, medians of 2–3 alternations; AVX2 / AVX-512
            // VBMI): 64 × 65536 2.3–3.4 / 1.2–1.4 → 0.73–0.85 / 0.68–0.81, 128 × 65536 3.6–3.8 / 3.7–4.5 → 0.96–1.03
            // / 0.91–1.02, 96 × 40000 1.6–2.0 / 2.0–2.1 → 0.66–0.77 / 0.71–0.76, 4 batches of 64 × 16384 1.6 /
            // 1.0–1.1 → 0.74–0.79 / 0.71–0.89; two threads alike (64 × 65536: 1.8–3.0 / 0.9 → 0.7–0.9 / 0.65–0.76).
            // At AVX2, whose tile reads each input line in halves, it fell off a cliff (3.4 ms against 0.8 ms).
            let sj = ((crate::params::TRANSPOSE_L2_BYTES / (ni * N).max(1)) / tj * tj).max(tj);
            let mut j0 = 0;
            while j0 < full {
                let j1 = (j0 + sj).min(full);
                let mut i = 0;
                while i + ti <= ni {
                    // SAFETY: rows i..i+ti, columns j0..j1 are a row of whole tiles of the block (i + ti ≤ ni;
                    // j1 - j0 is a multiple of tj, j1 ≤ full ≤ nj).
                    unsafe { self.tile_run::<K>((ti, tj), i, j0, (j1 - j0) / tj, Run::Across) };
                    i += ti;
                }
                // SAFETY: rows i..ni, columns j0..j1 ≤ nj of the block.
                unsafe { self.rows_from(tj, (i, ni), (j0, j1)) };
                j0 = j1;
            }
        }
        let mut i = 0;
        while full < nj && i < ni {
            // SAFETY: rows i..min(ni, i + ti) and columns full..nj are elements of the block.
            unsafe { self.shift(i, full).corner((ni - i).min(ti), nj - full) };
            i += ti;
        }
    }

    /// The addresses of element (i, j).
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> (*const u8, *mut u8) {
        let (i, j) = (i as isize, j as isize);
        let w = N as isize;
        (self.src.wrapping_offset(i * self.si + j * w), self.dst.wrapping_offset(i * w + j * self.dj))
    }

    /// The block whose element (0, 0) is this one's (i, j).
    #[inline(always)]
    fn shift(&self, i: usize, j: usize) -> Self {
        let (src, dst) = self.at(i, j);
        Block { src, dst, ..*self }
    }

    /// Transposes the whole tile of kind `K` at (i, j).
    ///
    /// # Safety
    ///
    /// The tile's rows and columns are elements of the block, as in [`transpose_block`].
    #[inline(always)]
    unsafe fn tile<const K: u8>(&self, i: usize, j: usize) {
        let (s, d) = self.at(i, j);
        // SAFETY: forwarded contract.
        unsafe {
            match K {
                SMALL => self.a.tile8::<N, M>(s, self.si, d, self.dj, self.m),
                WIDE => self.a.tile::<N, M>(s, self.si, d, self.dj, self.stores.stream, self.m),
                _ => self.a.tile_stack::<N, M>(s, self.si, d, self.dj, self.stores.stream, self.m),
            }
        }
    }

    /// Transposes `count` whole tiles of kind `K` from (i, j) on, down a column of tiles or across a row of them:
    /// wide tiles through [`Arch::tile_run`], whose tiles' loads and stores interleave.
    ///
    /// # Safety
    ///
    /// Every tile of the run is a whole tile of the block, as in [`transpose_block`].
    #[inline(always)]
    unsafe fn tile_run<const K: u8>(&self, (ti, tj): (usize, usize), i: usize, j: usize, count: usize, run: Run) {
        let (di, dj) = match run {
            Run::Down => (ti, 0),
            Run::Across => (0, tj),
        };
        if K == WIDE {
            // Wrapped rows (block rows 0..wrap.rows < ti) are in the first tile of a run down from row 0, in every
            // tile of a run across row 0.
            let wrap = if i == 0 { Wrap { every: matches!(run, Run::Across), ..self.wrap } } else { Wrap::NONE };
            let ((s, d), (s1, d1)) = (self.at(i, j), self.at(i + di, j + dj));
            let steps = ((s1 as isize).wrapping_sub(s as isize), (d1 as isize).wrapping_sub(d as isize));
            // SAFETY: forwarded contract; tile k of the run is at (i + k·di, j + k·dj), `steps` apart.
            unsafe {
                self.a.tile_run::<N, M>(
                    TileRun { src: s, ss: self.si, wrap, dst: d, ds: self.dj, count, steps },
                    self.stores.stream,
                    self.m,
                )
            };
            return;
        }
        for k in 0..count {
            // SAFETY: forwarded contract, for tile k of the run.
            unsafe { self.tile::<K>(i + k * di, j + k * dj) };
        }
    }

    /// Transposes rows `i0..i1` (fewer than a tile's rows), columns `j0..j1`, `t` columns at a time.
    ///
    /// # Safety
    ///
    /// The rows and columns are elements of the block, as in [`transpose_block`].
    #[inline(always)]
    unsafe fn rows_from(&self, t: usize, (i0, i1): (usize, usize), (j0, j1): (usize, usize)) {
        let mut j = j0;
        while i0 < i1 && j < j1 {
            // SAFETY: rows i0..i1, columns j..min(j1, j + t) of the block (contract).
            unsafe { self.shift(i0, j).corner(i1 - i0, (j1 - j).min(t)) };
            j += t;
        }
    }

    /// [`transpose_block`] for a block one 8×8 tile wide through line-wide stacks down its column (see
    /// [`column_stacks`]), streamed where the policy says so and the block's output starts on a line; the last rows
    /// through [`Block::corner`].
    ///
    /// # Safety
    ///
    /// As [`transpose_block`], for the block's `ni × 8` elements; [`column_stacks`] holds.
    #[inline(always)]
    unsafe fn column_of_stacks(&self, ni: usize) {
        let rows = 64 / N;
        // Every stack's output rows start at dst + i·N + j·dj: on a line when dst is (i·N a multiple of 64, dj of 64).
        let stream = self.stores.stream && (self.dst as usize).is_multiple_of(64);
        let full = ni / rows * rows;
        for i in (0..full).step_by(rows) {
            let (s, d) = self.at(i, 0);
            // SAFETY: rows i..i + rows ≤ ni, the block's 8 columns (contract); with `stream`, output rows on lines.
            unsafe { self.a.tile_stack::<N, M>(s, self.si, d, self.dj, stream, self.m) };
        }
        if full < ni {
            // SAFETY: rows full..ni, the block's 8 columns.
            unsafe { self.shift(full, 0).corner(ni - full, 8) };
        }
    }

    /// Transposes the first `rows × cols` elements: whole 8×8 tiles where they fit, the rest through
    /// [`Block::part`], at most 16 rows and columns at a time.
    ///
    /// # Safety
    ///
    /// The elements are in the block, as in [`transpose_block`].
    #[inline(always)]
    unsafe fn corner(&self, rows: usize, cols: usize) {
        let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
        for i in (0..r8).step_by(8) {
            for j in (0..c8).step_by(8) {
                let (s, d) = self.at(i, j);
                // SAFETY: rows i..i+8 ≤ rows, columns j..j+8 ≤ cols (contract).
                unsafe { self.a.tile8::<N, M>(s, self.si, d, self.dj, self.m) };
            }
        }
        for i in (0..rows).step_by(16) {
            if c8 < cols {
                // SAFETY: rows i..min(rows, i + 16), columns c8..cols.
                unsafe { self.shift(i, c8).part((rows - i).min(16), cols - c8) };
            }
        }
        for j in (0..c8).step_by(16) {
            if r8 < rows {
                // SAFETY: rows r8..rows (fewer than 8), columns j..min(c8, j + 16).
                unsafe { self.shift(r8, j).part(rows - r8, (c8 - j).min(16)) };
            }
        }
    }

    /// Transposes the first `rows × cols` elements (each at most 16): a partial register tile where the level has
    /// one, else one element at a time.
    ///
    /// # Safety
    ///
    /// The elements are in the block, as in [`transpose_block`].
    #[inline(always)]
    unsafe fn part(&self, rows: usize, cols: usize) {
        // SAFETY: forwarded contract.
        if unsafe { self.a.tile_part::<N, M>(self.src, self.si, self.dst, self.dj, rows, cols, self.m) } {
            return;
        }
        // SAFETY: forwarded contract (element (i, j) at src + i·si + j·N, dst + i·N + j·dj).
        unsafe {
            crate::arch::elements_out_of_line::<N, M>(
                (rows, cols),
                self.src,
                self.si,
                Wrap::NONE,
                self.dst,
                self.dj,
                self.m,
            )
        };
    }
}

/// The transposing row kernel: a row is a block of `ni` × `len`, mapped by `m`.
#[derive(Clone, Copy)]
pub(crate) struct TransposeBody<A, const N: usize, M> {
    a: A,
    ni: usize,
    si: isize,
    dj: isize,
    len: usize,
    stores: Stores,
    m: M,
}

impl<A: Arch, const N: usize, M: TileMap> Body for TransposeBody<A, N, M> {
    body_fields!();

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        // SAFETY: the row's block is in bounds (Rows contract).
        unsafe { transpose_block::<A, N, M>(self.a, src, self.si, dst, self.dj, self.ni, len, self.stores, self.m) }
    }

    fn streams(&self) -> bool {
        self.stores.stream
    }
}

/// The transposing row kernel of blocks that go [`Block::through_out_rows`] (its own body, so that the tiles'
/// loops of [`TransposeBody`] are compiled as they were measured).
#[derive(Clone, Copy)]
pub(crate) struct OutRowsBody<A, const N: usize, M>(TransposeBody<A, N, M>);

impl<A: Arch, const N: usize, M: TileMap> Body for OutRowsBody<A, N, M> {
    type A = A;

    #[inline(always)]
    fn arch(&self) -> A {
        self.0.a
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.0.len
    }

    #[inline(always)]
    unsafe fn run(&self, src: *const u8, dst: *mut u8, len: usize) {
        let t = &self.0;
        const { assert!(N.is_multiple_of(M::LANE), "a map's lanes divide the elements it maps") };
        let block =
            Block::<A, N, M> { a: t.a, src, si: t.si, dst, dj: t.dj, stores: t.stores, m: t.m, wrap: Wrap::NONE };
        // SAFETY: the row's block is in bounds (Rows contract).
        unsafe { block.through_out_rows(t.ni, len) }
    }

    fn streams(&self) -> bool {
        self.0.stores.stream
    }
}

/// Builds the transposing row kernel of tile width `tile` (`stores`: its store policy; `near`: the walk's
/// footprint fits the last-level cache one thread can count on).
#[allow(clippy::too_many_arguments)]
pub(super) fn build<A: Arch>(
    a: A,
    tile: TileWidth,
    ni: usize,
    si: isize,
    dj: isize,
    len: usize,
    (stores, near): (Stores, bool),
    f: &mut dyn FnMut(&dyn Rows),
) {
    let m = Ident;
    match tile {
        TileWidth::W1 => build_mapped::<A, 1, _>(a, m, ni, si, dj, len, (stores, near), f),
        TileWidth::W2 => build_mapped::<A, 2, _>(a, m, ni, si, dj, len, (stores, near), f),
        TileWidth::W4 => build_mapped::<A, 4, _>(a, m, ni, si, dj, len, (stores, near), f),
        // (Wider elements never go through the buffer of output rows.)
        TileWidth::W8 => f(&Runner(TransposeBody::<A, 8, _> { a, ni, si, dj, len, stores, m })),
        TileWidth::W16 => f(&Runner(TransposeBody::<A, 16, _> { a, ni, si, dj, len, stores, m })),
    }
}

/// The transposing row kernel of `N`-byte elements mapped by `m` in the tiles' registers (a scale-bias that moves
/// like a transpose), otherwise as [`build`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_mapped<A: Arch, const N: usize, M: TileMap>(
    a: A,
    m: M,
    ni: usize,
    si: isize,
    dj: isize,
    len: usize,
    (stores, near): (Stores, bool),
    f: &mut dyn FnMut(&dyn Rows),
) {
    with(TransposeBody::<A, N, M> { a, ni, si, dj, len, stores, m }, near, f)
}

/// Calls `f` with the row kernel of `body`: through the buffer of output rows where [`out_rows`] says so (its own
/// body, see [`OutRowsBody`]).
fn with<A: Arch, const N: usize, M: TileMap>(body: TransposeBody<A, N, M>, near: bool, f: &mut dyn FnMut(&dyn Rows)) {
    if out_rows::<A, N>(body.ni, body.si, body.dj, body.stores, near) {
        f(&Runner(OutRowsBody(body)))
    } else {
        f(&Runner(body))
    }
}

/// A transpose of one block compiled for a level and a store kind: `(src, si, dst, dj, ni, nj)` as
/// [`transpose_block`].
pub(crate) type BlockFn = unsafe fn(*const u8, isize, *mut u8, isize, usize, usize);

/// The [`BlockFn`] of tile width `tile` at level `A`; with `stream`, whole output lines stream (the caller fences);
/// with `out_rows` (regular stores, elements of 4 bytes or less), every block goes [`Block::through_out_rows`]
/// (see [`out_rows_of`]).
///
/// Streamed, a block is one row of the transposing row kernel ([`TransposeBody`]) run through
/// [`Runner::unfenced`]: the same compiled code as the transposes that are not staged rather than a copy of every
/// path per level and width (−0.3 MB of `.text`; the streamed cases move more bytes than the caches hold, and ran
/// as fast). With regular stores, blocks that stay in the caches, the copy compiled for regular stores stays: one
/// thread, tight loops, through the row kernel, f32 NHWC → f16 NCHW 16 × 16 × 64² ran 85–89 → 90–93 µs and f16 →
/// f32 1024² transposed 119–125 → 129–135 µs.
pub(crate) fn block_fn<A: Arch>(tile: TileWidth, stream: bool, out_rows: bool) -> BlockFn {
    struct Job<A, const N: usize, const OUT: bool>(A, *const u8, isize, *mut u8, isize, usize, usize);
    impl<A: Arch, const N: usize, const OUT: bool> pulp::NullaryFnOnce for Job<A, N, OUT> {
        type Output = ();
        #[inline(always)]
        fn call(self) {
            let Job(a, src, si, dst, dj, ni, nj) = self;
            // Staged conversions keep tiles in columns (the order they were measured with).
            let stores = Stores { stream: false, cached: false };
            if OUT {
                let block = Block::<A, N, Ident> { a, src, si, dst, dj, stores, m: Ident, wrap: Wrap::NONE };
                // SAFETY: forwarded from the BlockFn contract (that of transpose_block).
                unsafe { block.through_out_rows(ni, nj) }
            } else {
                // SAFETY: forwarded from the BlockFn contract.
                unsafe { transpose_block::<A, N, Ident>(a, src, si, dst, dj, ni, nj, stores, Ident) }
            }
        }
    }
    /// # Safety
    ///
    /// As [`transpose_block`], on a CPU running level `A`.
    unsafe fn entry<A: Arch, const N: usize, const STREAM: bool, const OUT: bool>(
        src: *const u8,
        si: isize,
        dst: *mut u8,
        dj: isize,
        ni: usize,
        nj: usize,
    ) {
        // SAFETY: the caller guarantees the level.
        let a = unsafe { A::assume() };
        if !STREAM {
            return a.vectorize(Job::<A, N, OUT>(a, src, si, dst, dj, ni, nj));
        }
        let stores = Stores { stream: true, cached: false };
        let body = TransposeBody::<A, N, Ident> { a, ni, si, dj, len: nj, stores, m: Ident };
        // SAFETY: forwarded from the BlockFn contract (that of transpose_block): the block is the row.
        unsafe { Runner(body).unfenced(src, dst, nj) }
    }
    fn of<A: Arch, const STREAM: bool>(tile: TileWidth) -> BlockFn {
        match tile {
            TileWidth::W1 => entry::<A, 1, STREAM, false>,
            TileWidth::W2 => entry::<A, 2, STREAM, false>,
            TileWidth::W4 => entry::<A, 4, STREAM, false>,
            TileWidth::W8 => entry::<A, 8, STREAM, false>,
            TileWidth::W16 => entry::<A, 16, STREAM, false>,
        }
    }
    match (stream, out_rows, tile) {
        (false, true, TileWidth::W1) => entry::<A, 1, false, true>,
        (false, true, TileWidth::W2) => entry::<A, 2, false, true>,
        (false, true, TileWidth::W4) => entry::<A, 4, false, true>,
        (true, ..) => of::<A, true>(tile),
        _ => of::<A, false>(tile),
    }
}

/// [`out_rows`] for tile width `tile`: whether a converting transpose's blocks of `ni` input rows `si` bytes apart,
/// output rows `dj` apart, go through the buffer of output rows ([`block_fn`]'s `out_rows`). Not when streamed.
///
/// PERF: one thread, tight loops, best of three, f32 NHWC → f16 NCHW (convert first, then transposed in blocks of
/// 256 pixels), tiles → through the buffer: 16 channels of 64² 17.5 → 11.0 µs, 128² 52 → 38 µs, 64 channels of 64²
/// 71.6 → 56.1 µs; f32 → u8 16 of 64² 13.3 → 7.2 µs. Output rows not crowded lost (planes of 100² 21.7 → 28.1 µs,
/// NCHW → NHWC 8.2 → 13.7 µs): the rule of [`out_rows`] keeps them in tiles.
pub(crate) fn out_rows_of<A: Arch>(
    tile: TileWidth,
    ni: usize,
    si: isize,
    dj: isize,
    stores: Stores,
    near: bool,
) -> bool {
    !stores.stream
        && match tile {
            TileWidth::W1 => out_rows::<A, 1>(ni, si, dj, stores, near),
            TileWidth::W2 => out_rows::<A, 2>(ni, si, dj, stores, near),
            TileWidth::W4 => out_rows::<A, 4>(ni, si, dj, stores, near),
            TileWidth::W8 | TileWidth::W16 => false,
        }
}

#[cfg(all(feature = "selftest", target_arch = "x86_64"))]
#[strider_kernels_macros::selftests]
mod tests {
    use super::{Tile, buffered, tile_for};
    use crate::arch::{Scalar, V3, V4, V4Vbmi};

    /// A named choice of a block of `ni` input rows `si` bytes apart with output rows `dj` bytes apart, and the
    /// answer it must give.
    type Case<T> = (&'static str, fn(usize, isize, isize) -> T, usize, isize, isize, T);

    fn check<T: PartialEq + core::fmt::Debug>(cases: &[Case<T>]) {
        for (name, choose, ni, si, dj, want) in cases {
            assert_eq!(&choose(*ni, *si, *dj), want, "{name}");
        }
    }

    /// Pins which blocks go through wide tiles and stacks (a level property: no CPU feature is needed to ask).
    #[test]
    fn wide_tiles_for_line_aligned_blocks() {
        fn streamed<A: crate::arch::Arch, const N: usize>(ni: usize, si: isize, dj: isize) -> Tile {
            tile_for::<A, N>(ni, si, dj, true)
        }
        let (square, tall, small, stack) = (Tile::Wide(16, 16), Tile::Wide(32, 16), Tile::Small, Tile::Stack);
        let cases: [Case<Tile>; 27] = [
            // The public f32 NCHW → NHWC with 64 channels (64 input rows 256 KiB apart, output rows 256 bytes
            // apart), the 2048×2048 transpose, f16 planes 4 KiB apart, f32 NHWC → NCHW with 64 channels.
            ("f32 to NHWC", tile_for_regular::<V4, 4>, 64, 262_144, 256, square),
            ("f32 2048²", streamed::<V4Vbmi, 4>, 2048, 8192, 8192, square),
            ("f32 negative rows", tile_for_regular::<V4, 4>, 16, -64, 64, square),
            ("f32 to NCHW", tile_for_regular::<V4, 4>, 65536, 256, 262_144, square),
            ("f16 4 KiB", tile_for_regular::<V4, 2>, 32, 4096, 4096, tall),
            ("f16 to NCHW", tile_for_regular::<V4Vbmi, 2>, 16384, 64, 4096, tall),
            // f16 NHWC → NCHW with 16 channels: planes 32 KiB apart alias (params::TALL_TILE_ALIAS_BYTES); streamed,
            // stacks of four 8×8 tiles.
            ("f16 aliased planes", tile_for_regular::<V4Vbmi, 2>, 16384, 32, 32768, small),
            ("f16 aliased planes streamed", streamed::<V4Vbmi, 2>, 16384, 32, 32768, stack),
            // f32 NHWC → NCHW with 8 or 24 channels (pixels 32 or 96 bytes apart): stacks only when streamed.
            ("f32 8 channels", streamed::<V4, 4>, 65536, 32, 262_144, stack),
            ("f32 24 channels", streamed::<V4Vbmi, 4>, 256, 96, 1024, stack),
            ("f32 negative pixels", streamed::<V4, 4>, 16, -32, 1024, stack),
            ("f32 8 channels regular", tile_for_regular::<V4, 4>, 65536, 32, 262_144, small),
            ("f32 stack split stores", streamed::<V4, 4>, 256, 32, 1056, small),
            ("f32 AVX2 pixels", streamed::<V3, 4>, 65536, 32, 262_144, small),
            ("f16 AVX2 pixels", streamed::<V3, 2>, 16384, 32, 32768, stack),
            ("f16 AVX2 pixels regular", tile_for_regular::<V3, 2>, 16384, 32, 32768, small),
            ("u8 pixels", streamed::<V4Vbmi, 1>, 65536, 8, 65536, small),
            // Rows that split lines, too few rows, other widths, levels without 64-byte registers.
            ("f32 split lines", streamed::<V4, 4>, 1000, 4000, 4000, small),
            ("f32 split stores", tile_for_regular::<V4, 4>, 64, 262_144, 96, small),
            ("f32 15 rows", streamed::<V4, 4>, 15, 4096, 4096, small),
            ("f16 31 rows", tile_for_regular::<V4, 2>, 31, 4096, 4096, small),
            ("f16 split loads", tile_for_regular::<V4, 2>, 64, 48, 4096, small),
            ("f16 split stores", tile_for_regular::<V4, 2>, 64, 4096, 32, small),
            ("f64", streamed::<V4, 8>, 64, 4096, 4096, small),
            ("u8", tile_for_regular::<V4, 1>, 64, 4096, 4096, small),
            // AVX2 stacks read half lines of their input rows: none where those crowd an L1 set.
            ("AVX2 crowded rows", streamed::<V3, 2>, 64, 4096, 4096, small),
            ("AVX2 crowded planes", streamed::<V3, 2>, 64, 262_144, 256, small),
        ];
        check(&cases);
        check(&[("scalar", streamed::<Scalar, 2>, 64, 4096, 4096, small)]);
    }

    /// Pins which blocks are peeled so that whole-line tiles start on lines: element-aligned buffers past a line
    /// (numpy's are 16 bytes past one), the input's columns only when its rows are a multiple of a line apart, and
    /// only where the rest takes whole-line tiles.
    #[test]
    fn peeled_blocks() {
        let at = |past: usize| (4096 + past) as *const u8;
        let f32_2048 = |s, d| super::peel::<V4, 4>(at(s), at(d), (2048, 2048), 8192, 8192, true);
        assert_eq!(f32_2048(16, 16), Some((12, 12)));
        assert_eq!(f32_2048(0, 16), Some((12, 0)));
        assert_eq!(f32_2048(60, 0), Some((0, 1)));
        assert_eq!(f32_2048(0, 0), None);
        assert_eq!(f32_2048(16, 2), None); // not element-aligned
        // f16 32×16 tiles: 24 rows peeled, at least 32 left; rows 96 bytes apart keep their columns.
        assert_eq!(super::peel::<V4Vbmi, 2>(at(16), at(16), (2048, 64), 4096, 4096, false), Some((24, 24)));
        assert_eq!(super::peel::<V4Vbmi, 2>(at(16), at(16), (55, 64), 4096, 4096, false), None);
        assert_eq!(super::peel::<V4Vbmi, 2>(at(16), at(16), (56, 64), 96, 4096, false), Some((24, 0)));
        // Blocks too small for a whole tile after peeling, rows that split lines, levels without whole-line tiles.
        assert_eq!(super::peel::<V4, 4>(at(16), at(16), (27, 64), 8192, 8192, true), None);
        assert_eq!(super::peel::<V4, 4>(at(16), at(16), (2048, 2048), 8016, 8016, true), None);
        // AVX2's 16×16 f32 tiles peel as AVX-512's; its 8-byte tiles are 8×8.
        assert_eq!(super::peel::<V3, 4>(at(16), at(16), (2048, 2048), 8192, 8192, true), Some((12, 12)));
        assert_eq!(super::peel::<V3, 8>(at(16), at(16), (2048, 2048), 16384, 16384, true), None);
    }

    /// Pins which blocks [`Block::direct`] rotates: output rows packed one after another (whole lines), past a line
    /// by whole elements, on wide tiles; the rotated block starts at the first column past 0 whose input is on a line
    /// when the input rows are a multiple of a line apart.
    #[test]
    fn rotated_blocks() {
        let at = |past: usize| (4096 + past) as *const u8;
        // f32 NCHW → NHWC, 64 channels: 256-byte output rows; input planes 256 KiB apart.
        let nhwc = |s, d, nj| super::rotation::<V4, 4>(at(s), at(d), (64, nj), 256 << 10, 256, true);
        assert_eq!(nhwc(16, 16, 65536), Some((4, 12)));
        assert_eq!(nhwc(0, 16, 65536), Some((4, 16)));
        assert_eq!(nhwc(60, 4, 65536), Some((1, 1)));
        assert_eq!(nhwc(16, 0, 65536), None); // the output on a line: peeled, not rotated
        assert_eq!(nhwc(16, 2, 65536), None); // not element-aligned
        assert_eq!(nhwc(16, 16, 28), Some((4, 12)));
        assert_eq!(nhwc(16, 16, 27), None); // no whole tile after the first columns
        // Input elements that no column puts on a line: from column 1; input rows not a multiple of a line apart
        // take no wide tiles.
        assert_eq!(super::rotation::<V4, 4>(at(17), at(16), (64, 300), 320 * 4, 256, false), Some((4, 1)));
        assert_eq!(super::rotation::<V4, 4>(at(16), at(16), (64, 300), 300 * 4, 256, false), None);
        // f16, 32×16 tiles: rows of 32 channels (one line), 2 bytes past one.
        assert_eq!(super::rotation::<V4Vbmi, 2>(at(16), at(2), (32, 4096), 8192, 64, true), Some((1, 24)));
        // Output rows that are not packed, not whole lines, or a critical stride apart; levels without wide tiles.
        assert_eq!(super::rotation::<V4, 4>(at(16), at(16), (64, 4096), 16384, 320, true), None);
        assert_eq!(super::rotation::<V4, 4>(at(16), at(16), (24, 4096), 16384, 96, true), None);
        assert_eq!(super::rotation::<V4, 4>(at(16), at(16), (1024, 4096), 16384, 4096, true), None);
        assert_eq!(super::rotation::<V3, 8>(at(16), at(16), (64, 4096), 32768, 512, true), None);
        // AVX2's 16×16 f32 tiles rotate as AVX-512's.
        assert_eq!(super::rotation::<V3, 4>(at(16), at(16), (64, 65536), 256 << 10, 256, true), Some((4, 12)));
    }

    /// Pins which blocks of tiles are swept in diagonals: whole-line tiles with both strides critical, stores
    /// streamed or cached, on an L1 of 12 ways or more (the Zen 5 VM's; the Zen 4 VM's 8-way L1 keeps columns).
    #[test]
    fn diagonal_sweeps() {
        let stores = |stream, cached| super::Stores { stream, cached };
        // f32 2048² (rows 8 KiB apart): streamed (one thread) or cached, not with regular stores out of the caches
        // (two threads, 32 MiB).
        assert!(super::diagonals(true, 8192, stores(true, false), 12));
        assert!(super::diagonals(true, -8192, stores(false, true), 16));
        assert!(!super::diagonals(true, 8192, stores(false, false), 12));
        // Input rows not critical (2064 f32 apart), or 8×8 tiles (partial lines).
        assert!(!super::diagonals(true, 8256, stores(true, true), 12));
        assert!(!super::diagonals(false, 8192, stores(true, true), 12));
        // An 8-way L1: columns, whatever the rest.
        assert!(!super::diagonals(true, 8192, stores(true, false), 8));
        assert!(!super::diagonals(true, 8192, stores(false, true), 8));
    }

    /// Pins which blocks go through a buffer of input rows: whole-line tiles of 16 or 32 rows whose rows crowd into
    /// an L1 set, output rows not critical, stores that do not stream.
    #[test]
    fn aliased_row_blocks() {
        let rows = |ni, si, dj, stream| super::aliased_rows::<V4, 4>(ni, si, dj, stream);
        // f32 NCHW → NHWC, 16 channels of 64² (planes 16 KiB apart), 32 channels of 64 × 80 (20 KiB); with a
        // negative plane stride.
        assert_eq!(rows(16, 16384, 64, false), Some(16));
        assert_eq!(rows(32, 20480, 128, false), Some(16));
        assert_eq!(rows(32, 20480, 128, true), None);
        assert_eq!(rows(16, -16384, 64, false), Some(16));
        // Planes 2 KiB apart put 8 rows into each of 2 sets; 1 KiB apart, 4 into each of 4 (fine).
        assert_eq!(rows(16, 2048 + 8192, 64, false), Some(16));
        assert_eq!(rows(16, 1024 + 8192, 64, false), None);
        // Planes 256 bytes off a way, 8×8 tiles (too few rows), output rows critical, the streamed public 64-channel
        // case.
        assert_eq!(rows(16, 16640, 64, false), None);
        assert_eq!(rows(15, 16384, 64, false), None);
        assert_eq!(rows(16, 16384, 4096, false), None);
        assert_eq!(rows(64, 262_144, 256, true), None);
        assert_eq!(rows(64, 262_144, 256, false), Some(16));
        // f16: 32-row tiles, planes 1 KiB apart put 8 rows into each of 4 sets; AVX2's f32 tiles are 16×16 too, f64
        // and AVX2's f16 ones 8×8.
        assert_eq!(super::aliased_rows::<V4Vbmi, 2>(32, 1024 + 4096, 64, false), Some(32));
        assert_eq!(super::aliased_rows::<V3, 4>(16, 16384, 64, false), Some(16));
        assert_eq!(super::aliased_rows::<V3, 2>(32, 1024 + 4096, 64, false), None);
        assert_eq!(super::aliased_rows::<V4, 8>(16, 16384, 128, false), None);
    }

    /// Pins which blocks go through a buffer of output rows: output rows that crowd into an L1 set and hold 512
    /// bytes or more, input rows not critical, elements of 4 bytes or less, footprints within a thread's share.
    #[test]
    fn out_row_blocks() {
        let regular = super::Stores { stream: false, cached: true };
        let f32_rows = |ni, si, dj, near| super::out_rows::<V4Vbmi, 4>(ni, si, dj, regular, near);
        // f32 NHWC → NCHW with 16 channels of 64² (planes 16 KiB apart), in the share or not; 40 channels of 64 × 80
        // (20 KiB); planes 8 KiB + 2 KiB apart (8 of the 16 output rows of a tile in each of 2 sets).
        assert!(f32_rows(4096, 64, 16384, true));
        assert!(!f32_rows(4096, 64, 16384, false));
        assert!(f32_rows(5120, 160, 20480, true));
        assert!(f32_rows(2560, 64, 10240, true));
        // Planes 256 bytes off a way, 1 KiB + 8 KiB apart (4 rows per set), output rows of 128 bytes (the public
        // rank-5 permutation: 32 rows × 8 columns 64 KiB apart), input rows critical too.
        assert!(!f32_rows(4096, 64, 16640, true));
        assert!(!f32_rows(4096, 64, 9216, true));
        assert!(!f32_rows(32, 32, 65536, true));
        assert!(!f32_rows(4096, 4096, 16384, true));
        // f16 and u8 pixels into planes 32 or 64 KiB apart; AVX2's 8×8 tiles; f64.
        assert!(super::out_rows::<V4, 2>(16384, 32, 32768, regular, true));
        assert!(super::out_rows::<V4Vbmi, 1>(65536, 16, 65536, regular, true));
        assert!(super::out_rows::<V3, 4>(4096, 64, 16384, regular, true));
        assert!(!super::out_rows::<V4, 8>(4096, 128, 32768, regular, true));
    }

    /// Pins which staged (converting) transposes' blocks go through the buffer of output rows: blocks of 256 f16
    /// pixels (32-byte input rows in the staging buffer) into planes 8 KiB apart, not into planes 20000 bytes apart,
    /// not streamed, not of 8-byte elements.
    #[test]
    fn staged_out_row_blocks() {
        use crate::strategy::TileWidth;
        let (regular, streamed) =
            (super::Stores { stream: false, cached: true }, super::Stores { stream: true, cached: false });
        assert!(super::out_rows_of::<V4>(TileWidth::W2, 256, 32, 8192, regular, true));
        assert!(super::out_rows_of::<V3>(TileWidth::W1, 512, 16, 4096, regular, true));
        assert!(!super::out_rows_of::<V4>(TileWidth::W2, 256, 32, 20000, regular, true));
        assert!(!super::out_rows_of::<V4>(TileWidth::W2, 256, 32, 8192, streamed, true));
        assert!(!super::out_rows_of::<V4>(TileWidth::W2, 256, 32, 8192, regular, false));
        assert!(!super::out_rows_of::<V4>(TileWidth::W8, 128, 128, 32768, regular, true));
    }

    /// [`tile_for`] with regular stores.
    fn tile_for_regular<A: crate::arch::Arch, const N: usize>(ni: usize, si: isize, dj: isize) -> Tile {
        tile_for::<A, N>(ni, si, dj, false)
    }

    #[test]
    fn column_stack_blocks() {
        use super::column_stacks;
        use crate::arch::{Scalar, V3, V4, V4Vbmi};
        // (ni, si, dj)
        assert!(column_stacks::<V4, 4>(32, 32, 65536), "the public rank-5 permutation's blocks");
        assert!(column_stacks::<V4Vbmi, 4>(16384, 32, 65536), "NHWC → NCHW with 8 channels");
        assert!(column_stacks::<V4, 4>(16, -64, 448), "negative input rows, output rows 7 lines apart");
        assert!(!column_stacks::<V4, 4>(8, 32, 65536), "fewer rows than a stack");
        assert!(!column_stacks::<V4, 4>(32, 36, 65536), "input rows not a stack row apart");
        assert!(!column_stacks::<V4, 4>(32, 32, 400), "output rows not a multiple of a line apart");
        assert!(!column_stacks::<V4, 4>(32, 4096, 65536), "input rows crowding an L1 set");
        assert!(!column_stacks::<V4, 2>(64, 16, 65536), "measured for 4-byte elements");
        assert!(column_stacks::<V3, 4>(16384, 32, 65536), "AVX2: NHWC → NCHW with 8 channels");
        assert!(column_stacks::<V3, 4>(32, 32, 65536), "AVX2: the public rank-5 permutation's blocks");
        assert!(!column_stacks::<V3, 4>(32, 4096, 65536), "AVX2, input rows crowding an L1 set");
        assert!(!column_stacks::<Scalar, 4>(32, 32, 65536), "no stacks at the portable level");
    }

    /// Pins which blocks go through the buffer: 8×8 tiles of 1- or 2-byte elements with both strides critical.
    #[test]
    fn buffered_blocks() {
        let cases: [Case<bool>; 9] = [
            ("u8 2048²", buffered_regular::<V4Vbmi, 1>, 2048, 2048, 2048, true),
            ("u8 negative rows", buffered_regular::<V4, 1>, 64, -1024, 4096, true),
            ("u8 AVX2", buffered_regular::<V3, 1>, 64, 1024, 1024, true),
            ("f16 AVX2", buffered_regular::<V3, 2>, 64, 4096, 4096, true),
            ("u8 input only", buffered_regular::<V4, 1>, 64, 2048, 2064, false),
            ("u8 output only", buffered_regular::<V4, 1>, 64, 2064, 2048, false),
            // f16 on AVX-512 goes through 32×16 tiles; 4-byte elements lost through the buffer.
            ("f16 wide tiles", buffered_regular::<V4, 2>, 2048, 4096, 4096, false),
            ("f32 AVX2", buffered_regular::<V3, 4>, 2048, 8192, 8192, false),
            ("f64", buffered_regular::<V4, 8>, 2048, 16384, 16384, false),
        ];
        check(&cases);
        // f16 rows 16 KiB apart on both sides (no 32×16 tile: params::TALL_TILE_ALIAS_BYTES): buffered with regular
        // stores, streamed through stacks on AVX-512.
        check(&[
            ("f16 16 KiB", buffered_regular::<V4, 2>, 64, 16384, 16384, true),
            ("f16 16 KiB streamed", |ni, si, dj| buffered::<V4, 2>(ni, si, dj, true), 64, 16384, 16384, false),
        ]);
    }

    /// [`buffered`] with regular stores.
    fn buffered_regular<A: crate::arch::Arch, const N: usize>(ni: usize, si: isize, dj: isize) -> bool {
        buffered::<A, N>(ni, si, dj, false)
    }
}
