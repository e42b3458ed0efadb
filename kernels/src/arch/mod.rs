//! Instruction-set levels: their detection, the small vector trait [`Arch`] each level implements (one file per
//! level), and the loops written once over it (contiguous copy, reverse, stride-2 gather).
//!
//! A level's token proves the CPU runs it. [`Arch::vectorize`] runs code compiled with the level's target features:
//! pulp's own dispatch for V3 and V4, a hand-written target-feature function only where pulp has no level (AVX-512
//! VBMI, and F16C for the V3 f16 conversions). Everything reached from inside must be `#[inline(always)]`.
//!
//! Every method that moves a *prefix* of a row returns how many elements it moved; a level that lacks an operation
//! moves none, and the caller finishes with scalar code. Nothing is ever counted as done without being written.

use core::fmt;
use std::sync::OnceLock;

use pulp::NullaryFnOnce;

use crate::fused::{FloatNorm, FusedConvert, Norm, NormType, RowRun, Span, WindowPairs};
use crate::tables::{BlockShuffle, LanePair, Planar, ShiftBlend, Shuffle, Spread, WideShuffle};

pub(crate) mod gather;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod map;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(target_arch = "x86_64")]
mod v3;
#[cfg(target_arch = "x86_64")]
mod v4;
#[cfg(target_arch = "x86_64")]
mod vbmi;
#[cfg(target_arch = "x86_64")]
mod wide;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use map::{AffineF16, AffineF32, Ident, TileMap};
pub(crate) use scalar::Scalar;
#[cfg(all(feature = "selftest", target_arch = "x86_64"))]
pub(crate) use {v3::V3, v4::V4, vbmi::V4Vbmi};

/// An instruction-set level the kernels are compiled for. The best available one is picked at run time; tests and
/// benchmarks can force any available level.
///
/// # Examples
///
/// ```
/// use strider::{DataType, ExecOptions, Isa, Slice1, TensorDesc};
/// println!("this CPU runs {} (of {:?})", Isa::best(), Isa::available());
/// let t = TensorDesc::new(DataType::Uint8, &[300])?;
/// let op = Slice1::new(&t, &t, &[0], &[300], &[-1])?;
/// let x: Vec<u8> = (0..300).map(|i| i as u8).collect();
/// // Every level gives the same bytes.
/// let mut outputs = Vec::new();
/// for isa in Isa::available() {
///     let mut y = vec![0u8; 300];
///     op.execute_with(&x, &mut y, &ExecOptions::default().with_isa(isa))?;
///     outputs.push(y);
/// }
/// assert!(outputs.windows(2).all(|w| w[0] == w[1]));
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Isa {
    /// Portable code, no SIMD intrinsics.
    Scalar,
    /// x86-64-v3: AVX2, FMA, BMI2 and F16C.
    V3,
    /// x86-64-v4: AVX-512 F/BW/DQ/VL (pulp's `V4`).
    V4,
    /// x86-64-v4 plus AVX-512 VBMI (byte permutes across a whole register: Ice Lake, Zen 4 and later).
    V4Vbmi,
}

impl Isa {
    /// Every level, from the most portable to the widest.
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::V3, Isa::V4, Isa::V4Vbmi];

    /// Whether this CPU runs this level (and `STRIDER_MAX_ISA`, when set to a level's name, allows it).
    pub fn is_available(self) -> bool {
        Level::of(self).is_some()
    }

    /// The level used when none is forced: the widest available.
    pub fn best() -> Isa {
        best().isa()
    }

    /// The levels this CPU runs, from the most portable to the widest.
    pub fn available() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|isa| isa.is_available()).collect()
    }

    /// Short lowercase name: `scalar`, `v3`, `v4`, `v4-vbmi`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::V3 => "v3",
            Isa::V4 => "v4",
            Isa::V4Vbmi => "v4-vbmi",
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Isa::Scalar => "scalar",
            Isa::V3 => "x86-64-v3 (AVX2)",
            Isa::V4 => "x86-64-v4 (AVX-512)",
            Isa::V4Vbmi => "x86-64-v4 + VBMI (AVX-512)",
        })
    }
}

/// The register-level operations of one instruction-set level.
///
/// # Safety
///
/// An implementor is a token: a value exists only when the CPU runs the level (constructed by detection, or by
/// [`Arch::assume`] under the same guarantee). Its methods may then use the level's instructions.
pub(crate) unsafe trait Arch: Copy + Send + Sync + fmt::Debug + 'static {
    /// The level.
    const ISA: Isa;
    /// Bytes per register.
    const BYTES: usize;
    /// A register.
    type Reg: Copy;
    /// The level whose code this one runs for the algorithms its own instructions do not change: itself, except
    /// where a level only adds instructions those algorithms never use (AVX-512 VBMI over AVX-512: transposes and
    /// resizes are compiled once for both, the byte permutes serve other kernels). Results never depend on it.
    type Base: Arch;

    /// The token of [`Arch::Base`].
    fn base(self) -> Self::Base;

    /// The token without detection.
    ///
    /// # Safety
    ///
    /// The CPU runs the level.
    unsafe fn assume() -> Self;

    /// Runs `f` compiled with this level's target features (`f` and everything it calls must be
    /// `#[inline(always)]` to be compiled so).
    fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output;

    /// Loads a register from `BYTES` unaligned bytes.
    ///
    /// # Safety
    ///
    /// `p..p+BYTES` is readable.
    unsafe fn load(self, p: *const u8) -> Self::Reg;

    /// Stores a register to `BYTES` unaligned bytes.
    ///
    /// # Safety
    ///
    /// `p..p+BYTES` is writable.
    unsafe fn store(self, p: *mut u8, v: Self::Reg);

    /// Stores a register non-temporally (a regular store on levels without streaming stores).
    ///
    /// # Safety
    ///
    /// `p..p+BYTES` is writable and `p` is aligned to `BYTES`.
    unsafe fn stream(self, p: *mut u8, v: Self::Reg);

    /// A register of which only bytes `lo..hi` (of `0..BYTES`) are read, from `p + lo..p + hi`, the others zero;
    /// `None` at levels without fault-suppressing masked loads.
    ///
    /// # Safety
    ///
    /// `lo ≤ hi ≤ BYTES`; `p + lo..p + hi` is readable (the rest of `p..p + BYTES` need not be).
    #[inline(always)]
    unsafe fn load_part(self, _p: *const u8, _lo: usize, _hi: usize) -> Option<Self::Reg> {
        None
    }

    /// Stores the low `n` bytes of `v` at `p..p + n`; `false` (nothing stored) at levels without masked stores.
    ///
    /// # Safety
    ///
    /// `n ≤ BYTES`; `p..p + n` is writable.
    #[inline(always)]
    unsafe fn store_part(self, _p: *mut u8, _v: Self::Reg, _n: usize) -> bool {
        false
    }

    /// Whether [`Arch::reverse`] reverses `n`-byte elements at this level.
    fn reverses(n: usize) -> bool;

    /// The register's `N`-byte elements in reverse order (only called when `Self::reverses(N)`).
    fn reverse<const N: usize>(self, v: Self::Reg) -> Self::Reg;

    /// Whether [`Arch::pick2`] handles `n`-byte elements at this level.
    fn picks(n: usize) -> bool;

    /// Of the `2·BYTES/N` consecutive `N`-byte elements in `a` then `b`: the even ones in order (`NEG == false`),
    /// or the odd ones last first (`NEG == true`). Only called when `Self::picks(N)`.
    fn pick2<const N: usize, const NEG: bool>(self, a: Self::Reg, b: Self::Reg) -> Self::Reg;

    /// Copies fewer than 64 bytes.
    ///
    /// # Safety
    ///
    /// `n < 64`; `src..src+n` readable, `dst..dst+n` writable, not overlapping.
    #[inline(always)]
    unsafe fn small_copy(self, src: *const u8, dst: *mut u8, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { core::ptr::copy_nonoverlapping(src, dst, n) }
    }

    /// Runs up to `lanes` 16-byte shuffle lanes of `s` (see [`Shuffle`]): lane `l` reads its windows at
    /// `src + l·src_step + win_off[w]` and stores 16 bytes at `dst + l·dst_step`. Returns the lanes run (0 at levels
    /// without byte shuffles).
    ///
    /// # Safety
    ///
    /// Every window and store of the `lanes` lanes lies inside the row (guaranteed when the last lane starts at an
    /// element `j` with `j + s.slack ≤ n`).
    #[inline(always)]
    unsafe fn shuffle_lanes(
        self,
        _s: &Shuffle,
        _src: *const u8,
        _src_step: isize,
        _dst: *mut u8,
        _dst_step: usize,
        _lanes: usize,
    ) -> usize {
        0
    }

    /// Runs the lane pairs `pairs` (see [`LanePair`]: one window count for all) over `rows` rows of a table: row
    /// `r`'s pair `k` reads its windows at `src + r·src_step + off` and stores 32 bytes at `dst + r·dst_step + 32k`.
    /// Returns the pairs run in each row: all of them, or 0 at levels without 32-byte in-lane shuffles.
    ///
    /// # Safety
    ///
    /// In every row, every window lies inside the row's input (readable) and every store inside its output
    /// (writable), not overlapping the input (guaranteed for the pairs of a [`crate::tables::TableLanes`] built for
    /// the table, run over whole rows of it with `dst` at the first pair's output byte).
    #[inline(always)]
    unsafe fn table_pairs(
        self,
        _pairs: &[LanePair],
        _src: *const u8,
        _src_step: isize,
        _dst: *mut u8,
        _dst_step: usize,
        _rows: usize,
    ) -> usize {
        0
    }

    /// Runs `lanes` lanes of `t` (see [`Spread`]): lane `l` loads 16 bytes at `src + l·elems·width` and stores, with
    /// a byte mask, its slots at `dst + l·elems·step`. Returns the lanes run: 0 at levels without byte-masked
    /// stores. (AVX2's `vpmaskmovd`, enough for 4-byte elements, made f32 RGB → RGBX 3.5× slower on Zen 4: masked
    /// stores are microcoded on AMD.)
    ///
    /// # Safety
    ///
    /// `lanes ≤ t.lanes(n)` for a row of `n` elements contiguous at `src` (readable) and `n` slots at `dst`
    /// (their element bytes writable).
    #[inline(always)]
    unsafe fn spread_lanes(self, _t: &Spread, _src: *const u8, _dst: *mut u8, _lanes: usize) -> usize {
        0
    }

    /// Swaps the channels of a prefix of the `n` pixels at `src` into `dst` through `t` (see [`ShiftBlend`]);
    /// returns the pixels done, whose bytes it writes, and may write some bytes of the next pixel with their values
    /// (0 at levels without the loop, and for rows too short for it).
    ///
    /// # Safety
    ///
    /// The row's `n` pixels are adjacent (`t` fits them), readable at `src` and writable at `dst`, not overlapping.
    #[inline(always)]
    unsafe fn shift_blends(self, _t: &ShiftBlend, _src: *const u8, _dst: *mut u8, _n: usize) -> usize {
        0
    }

    /// Runs up to `blocks` blocks of `s` (see [`BlockShuffle`]): block `b` reads the `s.width` input registers at
    /// `src + b·src_step + s.base` and stores `s.width` registers at `dst + b·64·s.width`. Returns the blocks run (0
    /// at levels without byte permutes across registers, and for widths the level has no loop for).
    ///
    /// # Safety
    ///
    /// Every element of the blocks lies inside the row: block `b`'s 64 elements start at `src + b·src_step` (input,
    /// readable, with every byte between them) and `dst + b·64·s.width` (output, writable).
    #[inline(always)]
    unsafe fn block_lanes(
        self,
        _s: &BlockShuffle,
        _src: *const u8,
        _src_step: isize,
        _dst: *mut u8,
        _blocks: usize,
    ) -> usize {
        0
    }

    /// As [`Arch::shuffle_lanes`] with 64-byte lanes of a [`WideShuffle`] (AVX-512 VBMI only); with `far` (the
    /// walk reads from memory, not the caches), each lane also prefetches the lines a few lanes ahead where the
    /// hardware's prefetchers fall behind (see the level's loop).
    ///
    /// # Safety
    ///
    /// As [`Arch::shuffle_lanes`], with the wide tables' slack.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn wide_lanes(
        self,
        _s: &WideShuffle,
        _src: *const u8,
        _src_step: isize,
        _dst: *mut u8,
        _dst_step: usize,
        _lanes: usize,
        _far: bool,
    ) -> usize {
        0
    }

    /// Transposes 16 rows of 32 bytes (`ss` bytes apart) into 32 rows of 16 bytes at `dst` (consecutive): `dst[c·16
    /// + r]` ← `src[r·ss + c]`. The default runs [`Arch::tile8`]s.
    ///
    /// # Safety
    ///
    /// The 16 source rows of 32 bytes are readable and `dst..dst + 512` writable, not overlapping.
    #[inline(always)]
    unsafe fn tile16x32_u8(self, src: *const u8, ss: isize, dst: *mut u8) {
        for r in [0, 8] {
            for c in [0, 8, 16, 24] {
                let (s, d) = (src.wrapping_offset(r as isize * ss).wrapping_add(c), dst.wrapping_add(c * 16 + r));
                // SAFETY: rows r..r + 8, columns c..c + 8 of the source; rows c..c + 8, bytes r..r + 8 of the
                // destination (contract).
                unsafe { self.tile8::<1, Ident>(s, ss, d, 16, Ident) };
            }
        }
    }

    /// Sixteen weighted sums for each of `G` channels (a resize's horizontal taps over 16 rows at once) from taps
    /// staged in pairs: `out[c][l] = Σᵢ w[2i] · x(i, c, l, 0) + w[2i + 1] · x(i, c, l, 1)` for lanes `l < 16`, where
    /// block `i` of channel `c` (32 i16 at `src + i·step + 32c`) holds lane `l` of taps `2i` and `2i + 1` side by
    /// side, `x(i, c, l, t)` at `2k + t` for `l = PAIR_ORDER[k]` (as [`Arch::pair_bytes`] writes them), and
    /// `pairs[i]` = `w[2i]` (low 16 bits) and `w[2i + 1]` (high 16 bits), both i16: each block one multiply-add by
    /// its pair per register, no shuffle. Exact in i32 (the caller bounds the sums); every level gives the same.
    ///
    /// # Safety
    ///
    /// `src + i·step .. + 32·G` (i16, any alignment) is readable for every `i < pairs.len()`;
    /// `Σᵢ (|x[2i]|·|w[2i]| + |x[2i + 1]|·|w[2i + 1]|) < 2^31` for the values `x` read.
    #[inline(always)]
    unsafe fn taps_pairs<const G: usize>(self, src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]) {
        // SAFETY: forwarded contract.
        unsafe { pairs_lanes::<G>(src, step, pairs, out) }
    }

    /// One block of [`Arch::taps_pairs`] from two columns of 16 bytes: `out[2k] = a[l]`, `out[2k + 1] = b[l]`, widened,
    /// for `l = PAIR_ORDER[k]`, `k < 16`.
    ///
    /// # Safety
    ///
    /// 16 bytes are readable at `a` and at `b`, 32 i16 writable at `out` (any alignment), not overlapping them.
    #[inline(always)]
    unsafe fn pair_bytes(self, a: *const u8, b: *const u8, out: *mut i16) {
        for (k, &l) in PAIR_ORDER.iter().enumerate() {
            // SAFETY: byte l < 16 at a and b, i16 2k and 2k + 1 < 32 at `out` (contract).
            unsafe {
                out.add(2 * k).write_unaligned(i16::from(*a.add(l)));
                out.add(2 * k + 1).write_unaligned(i16::from(*b.add(l)));
            }
        }
    }

    /// Weighted sums of byte rows (a resize's vertical taps over u8 rows) in 16-bit fixed point: `out[x] = (Σₜ w[t]
    /// · src[t·step + x] + 2^(w.shift − 8)) >> (w.shift − 7)` for `x < n`, `t < w.taps`, where the weights come in
    /// pairs as in [`Arch::taps_pairs`] (an odd count's last high half unused, and its row never read): the sum in
    /// units of 1/128 rounded half up (a u8 resize's rows: at most 255 · 128 when the weights are non-negative and
    /// sum to 1), saturated to i16. The sum is exact in i32 (the caller bounds it): every level gives the same.
    ///
    /// # Safety
    ///
    /// `src + t·step .. + n` is readable for every `t < w.taps`; `out .. + n` is writable (i16, any alignment) and
    /// overlaps none of them; `w.pairs` holds `⌈taps/2⌉` pairs; `Σₜ 255·|w[t]| < 2^31`; `8 ≤ w.shift < 31`.
    #[inline(always)]
    unsafe fn rows_u8_q7(self, src: *const u8, step: isize, w: RowWeights<'_>, n: usize, out: *mut i16) {
        // SAFETY: forwarded contract.
        unsafe { rows_u8_q7_elements(src, step, w, n, out) }
    }

    /// One output row of a sampled u8 resize whose every output pixel reads two adjacent input pixels (two taps
    /// across), from [`PixelPairs`] `p`: for output pixel `x < p.starts.len()` and channel `c < p.g`, `out[x·g + c]`
    /// (with `p.plane`, `out[c·plane + x]`: planes `plane` apart) is `(w₀ · q(s + c) + w₁ · q(s + g + c)) as f32 ·
    /// scale`, where `s = p.starts[x]` is the byte offset of the pixel pair in the rows and `(w₀, w₁)` the i16
    /// halves of `p.cols[x]`. With row weights `p.w` (a resize filtered rows first, two taps down), `q(i)` is the
    /// [`Arch::rows_u8_q7`] sum of byte `i` of `p.rows[0]` and `p.rows[1]`: the bits of [`Arch::rows_u8_q7`] over
    /// the whole rows, then [`Arch::taps_i16`] over them and the same conversion, both passes at once without
    /// summing the columns no output reads. Without (the horizontal pass of a resize filtered columns first), `q(i)`
    /// is byte `i` of `p.rows[0]`: the bits of [`Arch::taps_pairs`] over the bytes and its conversion. The default
    /// computes one element at a time.
    ///
    /// # Safety
    ///
    /// `rows[t] + starts[x] .. + 2·g` is readable for every `x` and row `t` read, and `rows[t] .. + row_bytes` too;
    /// `out` holds `starts.len()·g` elements, or `g·plane` with `plane ≥ starts.len()`; `w`, if any, holds one pair
    /// (two taps) and `8 ≤ w.shift < 31`; `1 ≤ g ≤ 4`; `Σ 255·|w| < 2^31`, `Σ 32767·|cols| < 2^31`.
    #[inline(always)]
    unsafe fn sampled_row_u8(self, p: &PixelPairs<'_>, out: &mut [f32]) {
        // SAFETY: forwarded contract.
        unsafe { sampled_row_elements(p, out, 0) }
    }

    /// Sixteen weighted sums of i16 for each of `G` channels (a resize's horizontal taps over 16 rows in
    /// [`Arch::rows_u8_q7`]'s fixed point): `out[c][l] = Σₜ w[t] · src[t·step + c·16 + l]`, `step` in elements, where
    /// the taps' weights come in pairs, `pairs[i]` = `w[2i]` (low 16 bits) and `w[2i + 1]` (high 16 bits), both i16.
    /// Exact in i32 (the caller bounds the sums); every level gives the same.
    ///
    /// # Safety
    ///
    /// `src + t·step .. + 16·G` (i16, any alignment) is readable for every `t < 2·pairs.len()`;
    /// `Σₜ 32767·|w[t]| < 2^31`.
    #[inline(always)]
    unsafe fn taps_i16<const G: usize>(self, src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]) {
        // SAFETY: forwarded contract.
        unsafe { taps_lanes::<G>(src, step, pairs, out) }
    }

    /// Transposes an 8×8 tile of `N`-byte elements: `dst` row `c` element `r` ← `m`(`src` row `r` element `c`);
    /// rows are `ss` / `ds` bytes apart. The default moves one element at a time. Every tile method applies its
    /// map `m` (whose lanes divide `N`) to the values it stores.
    ///
    /// # Safety
    ///
    /// The 8 source rows of 8 elements are readable and the 8 destination rows writable, not overlapping.
    #[inline(always)]
    unsafe fn tile8<const N: usize, M: TileMap>(self, src: *const u8, ss: isize, dst: *mut u8, ds: isize, m: M) {
        // SAFETY: forwarded contract.
        unsafe { tile8_elements::<N, M>(src, ss, dst, ds, m) }
    }

    /// Shape `(rows, cols)` of the tile [`Arch::tile`] transposes for `N`-byte elements: `rows` source rows of `cols`
    /// elements. (8, 8), or larger where the level can write output rows of a whole 64-byte line (AVX-512: 16×16
    /// for 4-byte elements, 32×16 for 2-byte ones; AVX2: 16×16 for 4-byte elements, as four 8×8 networks).
    #[inline(always)]
    fn tile_shape<const N: usize>() -> (usize, usize) {
        (8, 8)
    }

    /// Transposes a tile of [`Arch::tile_shape`] `N`-byte elements (the layout of [`Arch::tile8`]). With `stream`,
    /// tiles whose destination rows are whole 64-byte lines are stored non-temporally (the caller fences before
    /// the data is read elsewhere); other tiles ignore it.
    ///
    /// # Safety
    ///
    /// As [`Arch::tile8`], for the tile's rows and columns; with `stream`, every destination row starts on a
    /// 64-byte boundary.
    #[inline(always)]
    unsafe fn tile<const N: usize, M: TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        stream: bool,
        m: M,
    ) {
        let _ = stream;
        // SAFETY: forwarded contract (the default shape is 8×8).
        unsafe { self.tile8::<N, M>(src, ss, dst, ds, m) }
    }

    /// Transposes the [`TileRun`] `run` of tiles of [`Arch::tile`] (a column or a row of tiles of a block). Where
    /// the level has registers for it, each tile's stores are interleaved with the next tile's loads; the default is
    /// one [`Arch::tile`] after the other.
    ///
    /// # Safety
    ///
    /// As [`Arch::tile`], for each of the run's tiles with its rows wrapped.
    #[inline(always)]
    unsafe fn tile_run<const N: usize, M: TileMap>(self, run: TileRun, stream: bool, m: M) {
        // SAFETY: forwarded contract.
        unsafe { tile_run_by_one::<Self, N, M>(self, run, stream, m) }
    }

    /// Whether [`Arch::tile_stack`] moves `N`-byte elements in one register pass (else it is [`Arch::tile8`]s
    /// and the caller keeps 8×8 tiles).
    #[inline(always)]
    fn stack_tiles<const N: usize>() -> bool {
        false
    }

    /// Transposes a stack of 8×8 tiles one 64-byte line wide: `64 / N` source rows of 8 elements into 8
    /// destination rows of `64 / N` (the layout of [`Arch::tile8`]; `N` ≤ 8). Where [`Arch::stack_tiles`] says so,
    /// in one register pass whose destination rows are whole lines (stored non-temporally with `stream`; the
    /// caller fences); the default is [`Arch::tile8`]s.
    ///
    /// # Safety
    ///
    /// As [`Arch::tile8`], for the stack's rows and columns; with `stream`, every destination row starts on a
    /// 64-byte boundary.
    #[inline(always)]
    unsafe fn tile_stack<const N: usize, M: TileMap>(
        self,
        src: *const u8,
        ss: isize,
        dst: *mut u8,
        ds: isize,
        stream: bool,
        m: M,
    ) {
        let _ = stream;
        // SAFETY: forwarded contract.
        unsafe { tile_stack_by_8::<Self, N, M>(self, src, ss, dst, ds, m) }
    }

    /// Transposes `rows × cols` elements (`rows`, `cols` ≤ 16) as a partial register tile: `dst` row `c`
    /// element `r` ← `src` row `r` element `c`, nothing else touched. Returns `false`, having done nothing, on
    /// levels without a partial tile for `N` (the caller then moves the elements one at a time).
    ///
    /// # Safety
    ///
    /// The `rows` source rows of `cols` elements are readable and the `cols` destination rows of `rows` elements
    /// writable, not overlapping.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile_part<const N: usize, M: TileMap>(
        self,
        _src: *const u8,
        _ss: isize,
        _dst: *mut u8,
        _ds: isize,
        _rows: usize,
        _cols: usize,
        _m: M,
    ) -> bool {
        false
    }

    /// Whether [`Arch::tiles_f32_to_f16`] converts in 32×16 register tiles (else it moves one element at a time
    /// and callers keep their buffered path): levels with wide 2-byte tiles ([`Arch::tile_shape`]`::<2>()` =
    /// (32, 16)), and AVX2, whose 32×16 tiles win here but lost to its 8×8 ones in plain transposes (see
    /// `avx2_cast_tiles32x16`).
    #[inline(always)]
    fn cast_tiles() -> bool {
        Self::tile_shape::<2>() == (32, 16)
    }

    /// Transposes and converts f32 into f16 (rounding to nearest even, as [`Arch::f32_to_f16`]): `ni` input rows
    /// `si` bytes apart, each of `nj` contiguous f32, into `nj` output rows `dj` bytes apart, each of `ni`
    /// contiguous f16; with `stream` the output lines may be stored non-temporally (the caller fences). Levels with
    /// [`Arch::cast_tiles`] convert in 32×16 tiles' registers as they load them; the default moves one element at a
    /// time.
    ///
    /// # Safety
    ///
    /// `ni` is a multiple of 32 and `nj` of 16; the `ni × nj` input elements are readable and the output elements
    /// writable, not overlapping them; with `stream`, every output row starts on a 64-byte boundary and `dj` is a
    /// multiple of 64.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tiles_f32_to_f16(
        self,
        src: *const u8,
        si: isize,
        dst: *mut u8,
        dj: isize,
        ni: usize,
        nj: usize,
        _stream: bool,
    ) {
        for i in 0..ni {
            for j in 0..nj {
                let (s, d) = (
                    src.wrapping_offset(i as isize * si + 4 * j as isize),
                    dst.wrapping_offset(2 * i as isize + j as isize * dj),
                );
                // SAFETY: element (i, j) on both sides (the contract).
                unsafe {
                    let x = f32::from_bits(u32::from_le_bytes(s.cast::<[u8; 4]>().read_unaligned()));
                    d.cast::<[u8; 2]>().write_unaligned(crate::float::f32_to_f16_scalar(x).to_le_bytes());
                }
            }
        }
    }

    /// Interleaves a prefix of `n` pixels from `planes` planes (`plane_stride` bytes apart) into contiguous pixels of
    /// `planes` elements at `dst`; returns the pixels done.
    ///
    /// # Safety
    ///
    /// Plane `i` holds `n` readable elements at `src + i·plane_stride`; `dst` has `n·planes` writable elements; `t`
    /// was built for (`N`, `planes`, interleave).
    #[inline(always)]
    unsafe fn interleave<const N: usize>(
        self,
        _t: &Planar,
        _src: *const u8,
        _plane_stride: isize,
        _dst: *mut u8,
        _n: usize,
    ) -> usize {
        0
    }

    /// The inverse: `n` pixels of `t.slots` elements (`t.planes` of them used) into planes `plane_stride` bytes
    /// apart at `dst`; returns the pixels done. `src` is channel 0 of output pixel 0; the others follow it, or
    /// precede it when `t` reverses the pixels ([`Planar::step_base`]); `t`'s masks order the channels. Kernels
    /// load whole windows (`t.slots` elements a pixel) and store the first `t.planes` results.
    ///
    /// # Safety
    ///
    /// The windows of the `n` pixels (`slots·N` bytes each, where [`Planar::step_base`] puts them) are readable;
    /// plane `i` has `n` writable elements at `dst + i·plane_stride`, not overlapping them; `t` was built for `N`
    /// and deinterleave.
    #[inline(always)]
    unsafe fn deinterleave<const N: usize>(
        self,
        _t: &Planar,
        _src: *const u8,
        _dst: *mut u8,
        _plane_stride: isize,
        _n: usize,
    ) -> usize {
        0
    }

    /// Normalizes a prefix of the span's `n` elements of type `k.from` at `s.src` into `s.dst`: the value in f32
    /// (exact), `x·scale + bias` (product, then sum, each rounded to nearest even), stored as f32, as f16 rounded to
    /// nearest even, or as a one-byte integer rounded to nearest even and saturated, NaN giving 0 (see
    /// [`NormType`]); returns the elements done. With `s.stream` the stores are non-temporal (the caller fences).
    ///
    /// # Safety
    ///
    /// `n` readable input elements at `src`, `n` writable output elements at `dst`, not overlapping; with
    /// `stream`, `dst` is a multiple of 64 (the span's fields).
    #[inline(always)]
    unsafe fn normalize_run(self, _k: Norm, _s: Span, _scale: f32, _bias: f32) -> usize {
        0
    }

    /// [`Arch::normalize_run`] with a pair per element from a periodic pattern: element `i` of the call takes
    /// the pair at `(phase + i) mod p.period()` of `p`; returns the elements done.
    ///
    /// # Safety
    ///
    /// As [`Arch::normalize_run`].
    #[inline(always)]
    unsafe fn normalize_periodic(self, _k: Norm, _s: Span, _p: &crate::tables::Periodic, _phase: usize) -> usize {
        0
    }

    /// [`Arch::deinterleave`] fused with the conversion `k`, in registers, over the `rows.count` rows of a run (row
    /// `r`'s pixels and planes `r·rows.in_step` / `r·rows.out_step` bytes from the first's): one-byte pixels
    /// normalized as [`Arch::normalize_run`] does, or f32 pixels cast to f16 or normalized (`x·scale + bias`,
    /// product then sum, into f16 rounded to nearest even or f32); plane `i` takes `params[i]` (scale, bias).
    /// Returns the pixels done in each row (the same for all; 0 where the level has no such kernel). With `stream`
    /// the stores are non-temporal (the caller fences).
    ///
    /// # Safety
    ///
    /// As [`Arch::deinterleave`] for the kind's input elements (1 or 4 bytes), for every row of the run, with plane
    /// `i` holding `n` writable *output* elements; with `stream`, every row's `dst` and `plane_stride` are
    /// multiples of 64.
    #[inline(always)]
    unsafe fn deinterleave_convert(
        self,
        _k: FusedConvert,
        _t: &Planar,
        _s: Span,
        _plane_stride: isize,
        _params: &[[f32; 2]; 4],
        _rows: RowRun,
    ) -> usize {
        0
    }

    /// Normalizes `blocks` (the span's `n`) blocks of 16 one-byte pixels (`k.from` is `U8` or `I8`) in each of the
    /// `rows.count` rows of a run, read through the shuffles of `w` (block `b`'s pixel 0 at `src + 16·b·w.step` in
    /// the first row, each row `rows.in_step` / `rows.out_step` bytes after the previous), into a contiguous run of
    /// each row's output, as [`Arch::normalize_run`] or [`Arch::normalize_periodic`] would convert the pixels' bytes
    /// put in order: one read, no buffer. Returns the blocks done in each row (all, or 0 where the level has no such kernel). With
    /// `stream` the stores are non-temporal (the caller fences).
    ///
    /// # Safety
    ///
    /// In every row, every byte of each block's pixels' span readable and `16·blocks·w.channels` writable output
    /// elements at its `dst`, not overlapping any input; with `stream`, every row's `dst` a multiple of 64.
    #[inline(always)]
    unsafe fn convert_windows(
        self,
        _k: Norm,
        _w: &crate::tables::PixelWindows,
        _s: Span,
        _rows: RowRun,
        _pairs: WindowPairs<'_>,
    ) -> usize {
        0
    }

    /// Converts a prefix of `n` f16 (bits) at `src` to f32 at `dst`, exactly; returns the elements done.
    ///
    /// # Safety
    ///
    /// As [`CastFn`](crate::convert::CastFn).
    #[inline(always)]
    unsafe fn f16_to_f32(self, _src: *const u8, _dst: *mut u8, _n: usize) -> usize {
        0
    }

    /// Converts a prefix of `n` f32 at `src` to f16 bits at `dst`, rounded to nearest even; returns the elements
    /// done.
    ///
    /// # Safety
    ///
    /// As [`CastFn`](crate::convert::CastFn).
    #[inline(always)]
    unsafe fn f32_to_f16(self, _src: *const u8, _dst: *mut u8, _n: usize) -> usize {
        0
    }

    /// `y = x·scale + bias` on a prefix of `n` f16 (bits) at `src` into f16 at `dst`: widened exactly, a product
    /// then a sum in f32 (never fused), rounded once to nearest even; returns the elements done. `src` may equal
    /// `dst`.
    ///
    /// # Safety
    ///
    /// As [`AffineFn`](crate::convert::AffineFn).
    #[inline(always)]
    unsafe fn affine_f16(self, _src: *const u8, _dst: *mut u8, _n: usize, _scale: f32, _bias: f32) -> usize {
        0
    }

    /// Converts a prefix of `n` f32 at `src` to u8 at `dst` rounded half up and saturated, NaN giving 0 (a u8
    /// resize's rows: Pillow's and OpenCV's rounding); returns the elements done.
    ///
    /// # Safety
    ///
    /// As [`CastFn`](crate::convert::CastFn).
    #[inline(always)]
    unsafe fn f32_to_u8_half_up(self, _src: *const u8, _dst: *mut u8, _n: usize) -> usize {
        0
    }

    /// Converts a prefix of `n` f64 at `src` to f32 at `dst` rounded to odd
    /// ([`f64_to_f32_odd_scalar`](crate::float::f64_to_f32_odd_scalar)); returns the elements done.
    ///
    /// # Safety
    ///
    /// As [`CastFn`](crate::convert::CastFn).
    #[inline(always)]
    unsafe fn f64_to_f32_odd(self, _src: *const u8, _dst: *mut u8, _n: usize) -> usize {
        0
    }
}

/// Elements a run of one-byte integers into one-byte integers must have for a level to try its pair's fixed-point
/// form ([`FixedAffine::guess`](crate::float::FixedAffine::guess), checked on [`RAMP`] against the float kernel:
/// about 45 ns, what 4096 elements gain — one thread, Zen 4, `--isa v3`, 24 planes of 64×64: 8.5 → 7.1 µs).
pub(crate) const FIXED_RUN_MIN: usize = 4096;

/// Every byte value once, in order: what a kernel of one-byte inputs is checked or tabulated on.
pub(crate) static RAMP: [u8; 256] = {
    let mut r = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        r[i] = i as u8;
        i += 1;
    }
    r
};

/// [`Arch::tile_run`] one [`Arch::tile`] after the other.
///
/// # Safety
///
/// As [`Arch::tile_run`].
#[inline(always)]
pub(super) unsafe fn tile_run_by_one<A: Arch, const N: usize, M: TileMap>(a: A, run: TileRun, stream: bool, m: M) {
    let TileRun { src, ss, wrap, dst, ds, count, steps } = run;
    let (mut s, mut d, mut wrap) = (src, dst, wrap);
    for _ in 0..count {
        // SAFETY: forwarded contract, for tile k (wrapped rows one element at a time: the transposes wrap rows
        // only for tiles whose rows are whole lines, which levels with their own `tile_run` have).
        unsafe {
            if wrap.rows == 0 {
                a.tile::<N, M>(s, ss, d, ds, stream, m)
            } else {
                elements_out_of_line::<N, M>(A::tile_shape::<N>(), s, ss, wrap, d, ds, m)
            }
        };
        (s, d, wrap) = (s.wrapping_offset(steps.0), d.wrapping_offset(steps.1), wrap.rest());
    }
}

/// [`Arch::tile_stack`] as [`Arch::tile8`]s: source rows 0..8, 8..16, and so on.
///
/// # Safety
///
/// As [`Arch::tile_stack`] without `stream`.
#[inline(always)]
pub(crate) unsafe fn tile_stack_by_8<A: Arch, const N: usize, M: TileMap>(
    a: A,
    src: *const u8,
    ss: isize,
    dst: *mut u8,
    ds: isize,
    m: M,
) {
    for t in 0..64 / N / 8 {
        // SAFETY: tile t of the stack: source rows 8t..8t+8, destination elements 8t..8t+8 (contract).
        unsafe { a.tile8::<N, M>(src.wrapping_offset(8 * t as isize * ss), ss, dst.wrapping_add(8 * t * N), ds, m) };
    }
}

/// [`Arch::taps_i16`] one lane at a time.
///
/// # Safety
///
/// As [`Arch::taps_i16`].
#[inline(always)]
pub(crate) unsafe fn taps_lanes<const G: usize>(src: *const i16, step: usize, pairs: &[i32], out: &mut [[i32; 16]; G]) {
    *out = [[0; 16]; G];
    for (i, &p) in pairs.iter().enumerate() {
        let (w0, w1) = (i32::from(p as i16), p >> 16);
        for (c, o) in out.iter_mut().enumerate() {
            let (a, b) = (src.wrapping_add(2 * i * step + c * 16), src.wrapping_add((2 * i + 1) * step + c * 16));
            for (l, o) in o.iter_mut().enumerate() {
                // SAFETY: lane l of channel c of taps 2i and 2i + 1 (contract).
                let (x0, x1) = unsafe { (i32::from(a.add(l).read_unaligned()), i32::from(b.add(l).read_unaligned())) };
                *o = o.wrapping_add(x0.wrapping_mul(w0).wrapping_add(x1.wrapping_mul(w1)));
            }
        }
    }
}

/// The order of the lanes in a block of [`Arch::taps_pairs`]: AVX2's in-lane interleave of two registers of 16
/// i16 (`vpunpck{l,h}wd`), which pairing then needs no lane-crossing permute for.
pub(crate) const PAIR_ORDER: [usize; 16] = [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15];

/// [`Arch::taps_pairs`] one lane at a time.
///
/// # Safety
///
/// As [`Arch::taps_pairs`].
#[inline(always)]
pub(crate) unsafe fn pairs_lanes<const G: usize>(
    src: *const i16,
    step: usize,
    pairs: &[i32],
    out: &mut [[i32; 16]; G],
) {
    *out = [[0; 16]; G];
    for (i, &p) in pairs.iter().enumerate() {
        let (w0, w1) = (i32::from(p as i16), p >> 16);
        for (c, o) in out.iter_mut().enumerate() {
            let block = src.wrapping_add(i * step + c * 32);
            for (k, &l) in PAIR_ORDER.iter().enumerate() {
                // SAFETY: lane l of block i of channel c, at 2k (contract).
                let (x0, x1) = unsafe { (block.add(2 * k).read_unaligned(), block.add(2 * k + 1).read_unaligned()) };
                o[l] = o[l].wrapping_add(i32::from(x0).wrapping_mul(w0).wrapping_add(i32::from(x1).wrapping_mul(w1)));
            }
        }
    }
}

/// The weights of one output row of a resize's vertical pass over u8 rows (see [`Arch::rows_u8_q7`]): `taps` i16
/// weights in pairs, in fixed point with `shift` fractional bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowWeights<'a> {
    pub(crate) pairs: &'a [i32],
    pub(crate) taps: usize,
    pub(crate) shift: u32,
}

impl RowWeights<'_> {
    /// Weight `t`.
    #[inline(always)]
    fn at(&self, t: usize) -> i32 {
        let p = self.pairs[t / 2];
        if t.is_multiple_of(2) { i32::from(p as i16) } else { p >> 16 }
    }

    /// The exact sum of element `x` of the tap rows.
    ///
    /// # Safety
    ///
    /// As [`Arch::rows_u8_q7`].
    #[inline(always)]
    unsafe fn sum(&self, src: *const u8, step: isize, x: usize) -> i32 {
        let mut acc = 0i32;
        for t in 0..self.taps {
            // SAFETY: element x of tap row t (contract).
            let v = i32::from(unsafe { *src.wrapping_offset(t as isize * step).add(x) });
            acc = acc.wrapping_add(v.wrapping_mul(self.at(t)));
        }
        acc
    }

    /// `sum` in [`Arch::rows_u8_q7`]'s units.
    #[inline(always)]
    fn q7(&self, sum: i32) -> i16 {
        let s = self.shift - 7;
        (sum.wrapping_add(1 << (s - 1)) >> s).clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
    }
}

/// The operands of [`Arch::sampled_row_u8`]: one output row of a sampled u8 resize whose output pixels each read a
/// pair of adjacent input pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PixelPairs<'a> {
    /// The two tap rows (with row weights), or the one input row (twice).
    pub(crate) rows: [*const u8; 2],
    /// Bytes of each row.
    pub(crate) row_bytes: usize,
    /// The rows' weights (two taps down), or none: the first row's bytes as they are.
    pub(crate) w: Option<RowWeights<'a>>,
    /// Per output pixel, the byte offset of its pair of input pixels in the rows, and its two column weights (the
    /// i16 halves).
    pub(crate) starts: &'a [usize],
    pub(crate) cols: &'a [i32],
    /// Bytes (channels) per pixel, and the plane stride of an output of planes (none: pixels).
    pub(crate) g: usize,
    pub(crate) plane: Option<usize>,
    /// The factor of the exact sums.
    pub(crate) scale: f32,
}

/// [`Arch::sampled_row_u8`] one element at a time, from output pixel `from` on.
///
/// # Safety
///
/// As [`Arch::sampled_row_u8`].
#[inline(always)]
pub(crate) unsafe fn sampled_row_elements(p: &PixelPairs<'_>, out: &mut [f32], from: usize) {
    let (rows, g) = (p.rows, p.g);
    let step = rows[1] as isize - rows[0] as isize;
    // SAFETY: byte i of the rows read (contract).
    let q = |i: usize| unsafe {
        match p.w {
            Some(w) => i32::from(w.q7(w.sum(rows[0], step, i))),
            None => i32::from(*rows[0].add(i)),
        }
    };
    for (x, (&s, &c2)) in p.starts.iter().zip(p.cols).enumerate().skip(from) {
        let (w0, w1) = (i32::from(c2 as i16), c2 >> 16);
        for c in 0..g {
            let acc = q(s + c).wrapping_mul(w0).wrapping_add(q(s + g + c).wrapping_mul(w1));
            out[p.plane.map_or(x * g + c, |pl| c * pl + x)] = acc as f32 * p.scale;
        }
    }
}

/// [`Arch::rows_u8_q7`] in plain loops: the sums of a chunk of elements built tap by tap (each tap row read front to
/// back into i32 accumulators: a loop the compiler vectorizes), then rounded. The same exact sums in another order.
///
/// PERF: element by element (each sum's taps read down a column of the rows, a loop no compiler vectorizes), the
/// rows-first pass of a u8 resize was most of the portable level's time: `--isa scalar`, one thread, 2560×1600 →
/// 320×200 RGB bilinear antialiased, 438 M instructions a call, 17 per tap of each element.
///
/// # Safety
///
/// As [`Arch::rows_u8_q7`].
#[inline(always)]
pub(crate) unsafe fn rows_u8_q7_elements(src: *const u8, step: isize, w: RowWeights<'_>, n: usize, out: *mut i16) {
    const CHUNK: usize = 256;
    let mut sums = [0i32; CHUNK];
    for x0 in (0..n).step_by(CHUNK) {
        let sums = &mut sums[..CHUNK.min(n - x0)];
        sums.fill(0);
        for t in 0..w.taps {
            let (wt, at) = (w.at(t), src.wrapping_offset(t as isize * step).wrapping_add(x0));
            // SAFETY: elements x0.. x0 + sums.len() (≤ n) of tap row t are readable (contract).
            let row = unsafe { core::slice::from_raw_parts(at, sums.len()) };
            for (s, &v) in sums.iter_mut().zip(row) {
                *s = s.wrapping_add(i32::from(v).wrapping_mul(wt));
            }
        }
        for (x, &s) in sums.iter().enumerate() {
            // SAFETY: element x0 + x < n of the output (contract).
            unsafe { out.add(x0 + x).write_unaligned(w.q7(s)) };
        }
    }
}

/// Transposes an 8×8 tile of `N`-byte elements one element at a time (see [`Arch::tile8`]).
///
/// # Safety
///
/// As [`Arch::tile8`].
#[inline(always)]
pub(crate) unsafe fn tile8_elements<const N: usize, M: TileMap>(
    src: *const u8,
    ss: isize,
    dst: *mut u8,
    ds: isize,
    m: M,
) {
    // SAFETY: forwarded contract, an 8×8 tile without wrapped rows.
    unsafe { tile_elements::<N, M>((8, 8), src, ss, Wrap::NONE, dst, ds, m) }
}

/// Transposes a tile of `rows × cols` `N`-byte elements one element at a time: `dst` row `c` element `r` ← `m`(the
/// element `c` of the source row `r`, at `src + r·ss + wrap.of(r)`).
///
/// # Safety
///
/// The tile's source rows of `cols` elements are readable and its `cols` destination rows of `rows` elements `ds`
/// bytes apart writable, not overlapping.
#[inline(always)]
pub(crate) unsafe fn tile_elements<const N: usize, M: TileMap>(
    (rows, cols): (usize, usize),
    src: *const u8,
    ss: isize,
    wrap: Wrap,
    dst: *mut u8,
    ds: isize,
    m: M,
) {
    for r in 0..rows {
        let row = src.wrapping_offset(r as isize * ss + wrap.of(r));
        for c in 0..cols {
            // SAFETY: element (r, c) of the tile, in bounds by the contract.
            unsafe {
                let v = row.wrapping_add(c * N).cast::<[u8; N]>().read_unaligned();
                dst.wrapping_offset(c as isize * ds)
                    .wrapping_add(r * N)
                    .cast::<[u8; N]>()
                    .write_unaligned(m.element(v));
            }
        }
    }
}

/// [`tile_elements`] out of line: one copy per element size and map, shared by every level, for the elements the
/// transposes move one at a time where a tile does not fit (corners, wrapped rows, parts of tiles).
///
/// PERF: inlined (and unrolled) wherever a sweep of a transposing kernel leaves such elements, these loops took
/// 379 KB of text over the levels; they move a few elements per block (the public transposes: the same
/// instructions at `--isa v3`).
///
/// # Safety
///
/// As [`tile_elements`].
#[inline(never)]
pub(crate) unsafe fn elements_out_of_line<const N: usize, M: TileMap>(
    shape: (usize, usize),
    src: *const u8,
    ss: isize,
    wrap: Wrap,
    dst: *mut u8,
    ds: isize,
    m: M,
) {
    // SAFETY: forwarded contract.
    unsafe { tile_elements::<N, M>(shape, src, ss, wrap, dst, ds, m) }
}

/// The first source rows of the tiles of a run that lie elsewhere than their stride says: rows `0..rows` at
/// `offset` bytes past `src + r·ss`, in the run's first tile or in `every` tile (a transpose block rotated so that
/// its output rows start on lines, see `rotation` in `rows::transpose`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wrap {
    /// Rows of a tile that are wrapped (from the first).
    pub(crate) rows: usize,
    /// Bytes past its strided place where a wrapped row is.
    pub(crate) offset: isize,
    /// Whether every tile of the run has them wrapped (a run across a row of tiles), or only the first (down a
    /// column).
    pub(crate) every: bool,
}

impl Wrap {
    /// No row wrapped.
    pub(crate) const NONE: Wrap = Wrap { rows: 0, offset: 0, every: false };

    /// The wrap of the run's tiles after the first.
    #[inline(always)]
    pub(crate) fn rest(self) -> Wrap {
        if self.every { self } else { Wrap::NONE }
    }

    /// The offset of source row `r` of a tile.
    #[inline(always)]
    pub(crate) fn of(self, r: usize) -> isize {
        if r < self.rows { self.offset } else { 0 }
    }
}

/// A run of `count` whole tiles ([`Arch::tile_run`]): tile `k`'s source rows from `src + k·steps.0`, `ss` bytes
/// apart, the first `wrap.rows` of the first tile (of every tile with `wrap.every`) `wrap.offset` bytes past their
/// strided place; its destination rows from `dst + k·steps.1`, `ds` bytes apart.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TileRun {
    pub(crate) src: *const u8,
    pub(crate) ss: isize,
    pub(crate) wrap: Wrap,
    pub(crate) dst: *mut u8,
    pub(crate) ds: isize,
    pub(crate) count: usize,
    pub(crate) steps: (isize, isize),
}

impl TileRun {
    /// One tile, no row wrapped.
    #[inline(always)]
    pub(crate) fn one(src: *const u8, ss: isize, dst: *mut u8, ds: isize) -> TileRun {
        TileRun { src, ss, wrap: Wrap::NONE, dst, ds, count: 1, steps: (0, 0) }
    }

    /// The run's tiles with wrapped rows (none, the first, or all of them with `wrap.every`) and the rest, which
    /// wrap none.
    #[inline(always)]
    pub(crate) fn split_wrapped(self) -> (TileRun, TileRun) {
        let w = self.wrap;
        let k = if w.rows == 0 {
            0
        } else if w.every {
            self.count
        } else {
            self.count.min(1)
        };
        let skip = |step: isize| step.wrapping_mul(k as isize);
        let (src, dst) = (self.src.wrapping_offset(skip(self.steps.0)), self.dst.wrapping_offset(skip(self.steps.1)));
        (TileRun { count: k, ..self }, TileRun { src, dst, wrap: Wrap::NONE, count: self.count - k, ..self })
    }
}

/// Prefetches the bytes `[a, b)` of the row at `row`: into L1, or only into L2 when `far` (rows fetched several
/// rows ahead, see [`params::PREFETCH_ROWS`](crate::params::PREFETCH_ROWS)).
#[inline(always)]
pub(crate) fn prefetch(row: *const u8, a: isize, b: isize, far: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1};
        if far { lines::<_MM_HINT_T1>(row, a, b) } else { lines::<_MM_HINT_T0>(row, a, b) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (row, a, b, far);
}

/// [`prefetch`] with the hint `H`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lines<const H: i32>(row: *const u8, a: isize, b: isize) {
    let line = |p: isize| {
        // SAFETY: a prefetch is only a hint and never faults, whatever the address.
        unsafe { core::arch::x86_64::_mm_prefetch::<H>(row.wrapping_offset(p).cast()) }
    };
    let mut p = a;
    // PERF: four lines per step: a run of rows of 1 KiB prefetches 16 lines per row, and one per step spent four
    // instructions on each.
    while p + 192 < b {
        line(p);
        line(p + 64);
        line(p + 128);
        line(p + 192);
        p += 256;
    }
    while p < b {
        line(p);
        p += 64;
    }
}

/// Copies `bytes` contiguous bytes through the level's registers: the first and last register unaligned (they may
/// overlap the middle), the middle with stores aligned to the register — regular or non-temporal — unrolled 4×.
///
/// PERF: on the project's Zen VMs glibc's `memcpy` of 1 KiB rows ran at half the speed of this loop, and
/// non-temporal stores beat it by another 30% once the output exceeds the caches. (Between the two, see
/// [`copy_strings`].)
///
/// # Safety
///
/// `src..src+bytes` readable, `dst..dst+bytes` writable, not overlapping.
#[inline(always)]
pub(crate) unsafe fn copy<A: Arch>(a: A, src: *const u8, dst: *mut u8, bytes: usize, stream: bool) {
    let v = A::BYTES;
    if v < 32 {
        // SAFETY: forwarded contract.
        unsafe { core::ptr::copy_nonoverlapping(src, dst, bytes) };
        return;
    }
    if bytes < 2 * v {
        if bytes < 64 {
            // SAFETY: forwarded contract.
            unsafe { a.small_copy(src, dst, bytes) };
        } else {
            // SAFETY: 64 ≤ bytes < 2·v: two overlapping registers cover the range.
            unsafe {
                let (x, y) = (a.load(src), a.load(src.add(bytes - v)));
                a.store(dst, x);
                a.store(dst.add(bytes - v), y);
            }
        }
        return;
    }
    if stream && let Some((head, end)) = stream_lines(dst as usize, bytes) {
        // SAFETY: [0, head) and [end, bytes) are under 64 bytes each (`stream_lines`), copied by plain stores;
        // [head, end) is whole lines, a multiple of v ∈ {32, 64} long, streamed in aligned registers. Every access
        // stays inside both ranges.
        unsafe {
            a.small_copy(src, dst, head);
            copy_registers::<A, true>(a, src, dst, head, end);
            a.small_copy(src.add(end), dst.add(end), bytes - end);
        }
        return;
    }
    // SAFETY: bytes ≥ 2·v. The head register covers [0, v), the tail register [bytes-v, bytes); the middle loop
    // covers [head, end) with head = distance to the next v-aligned output address (≤ v) and end = bytes - v, in
    // whole registers whose stores are v-aligned; every access stays inside both ranges.
    unsafe {
        let first = a.load(src);
        let last = a.load(src.add(bytes - v));
        let head = v - (dst as usize & (v - 1));
        let end = bytes - v;
        let i = copy_registers::<A, false>(a, src, dst, head, end);
        if i < end {
            a.store(dst.add(i), a.load(src.add(i)));
        }
        a.store(dst, first);
        a.store(dst.add(end), last);
    }
}

/// Copies `bytes` contiguous bytes with the CPU's string move (`rep movsb`) and returns true, if the run is one it
/// wins on: at least `min` bytes long ([`params::REP_MOVSB_MIN_BYTES`](crate::params::REP_MOVSB_MIN_BYTES) for
/// runs whose output is not already in the nearest caches,
/// [`params::REP_MOVSB_NEAR_MIN_BYTES`](crate::params::REP_MOVSB_NEAR_MIN_BYTES) for the others), at most
/// [`CacheSizes::rep_movsb_max`](crate::cache::CacheSizes::rep_movsb_max) (0 without fast strings), and at the same
/// offset in a line on both sides; else copies nothing and returns false. Not for streamed runs. Its stores skip
/// reading the lines they fill, which register stores must do; in L1 it runs at half the registers' speed (16 KiB:
/// 101 against 62 ns).
///
/// # Safety
///
/// `src..src+bytes` readable, `dst..dst+bytes` writable, not overlapping.
#[inline(always)]
pub(crate) unsafe fn copy_strings(src: *const u8, dst: *mut u8, bytes: usize, min: usize) -> bool {
    let long = bytes >= min;
    #[cfg(target_arch = "x86_64")]
    if long && (src as usize ^ dst as usize).is_multiple_of(64) && bytes <= crate::cache::CacheSizes::rep_movsb_max() {
        // SAFETY: forwarded contract; the CPU has ERMS (`rep_movsb_max` is 0 otherwise).
        unsafe { rep_movsb(src, dst, bytes) };
        return true;
    }
    let _ = (src, dst, long);
    false
}

/// Copies `bytes` bytes with the CPU's string move (`rep movsb`), which on CPUs with enhanced fast strings moves
/// whole lines without reading the destination's first.
///
/// # Safety
///
/// `src..src+bytes` readable, `dst..dst+bytes` writable, not overlapping.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn rep_movsb(src: *const u8, dst: *mut u8, bytes: usize) {
    // SAFETY: `rep movsb` copies rcx bytes from rsi to rdi forwards (the direction flag is clear on entry to Rust
    // code by the ABI), inside the ranges of the contract; it clobbers only the registers named.
    unsafe {
        core::arch::asm!(
            "rep movsb",
            inout("rcx") bytes => _,
            inout("rsi") src => _,
            inout("rdi") dst => _,
            options(nostack, preserves_flags)
        );
    }
}

/// Moves whole registers from byte `i` of `src` to the same bytes of `dst` while one ends at or before `end`, four
/// per step (a step's loads before its stores), non-temporally with `STREAM`; returns the offset it stopped at.
///
/// # Safety
///
/// `src+i..src+end` readable, `dst+i..dst+end` writable, not overlapping; with `STREAM`, `dst + i` is aligned to
/// the register.
#[inline(always)]
unsafe fn copy_registers<A: Arch, const STREAM: bool>(
    a: A,
    src: *const u8,
    dst: *mut u8,
    mut i: usize,
    end: usize,
) -> usize {
    let v = A::BYTES;
    /// Stores `x` at `p`, non-temporally with `STREAM` (a function, not a closure: a closure kept out of line
    /// loses the level's target features).
    ///
    /// # Safety
    ///
    /// A register's bytes writable at `p`, aligned to the register with `STREAM`.
    #[inline(always)]
    unsafe fn put<A: Arch, const STREAM: bool>(a: A, p: *mut u8, x: A::Reg) {
        // SAFETY: forwarded contract.
        unsafe { if STREAM { a.stream(p, x) } else { a.store(p, x) } }
    }
    // SAFETY: every register moved lies in [i, end) of both ranges (the contract); streamed ones stay aligned, as
    // they start at an aligned `i` and advance by whole registers.
    unsafe {
        while i + 4 * v <= end {
            let (x0, x1) = (a.load(src.add(i)), a.load(src.add(i + v)));
            let (x2, x3) = (a.load(src.add(i + 2 * v)), a.load(src.add(i + 3 * v)));
            put::<A, STREAM>(a, dst.add(i), x0);
            put::<A, STREAM>(a, dst.add(i + v), x1);
            put::<A, STREAM>(a, dst.add(i + 2 * v), x2);
            put::<A, STREAM>(a, dst.add(i + 3 * v), x3);
            i += 4 * v;
        }
        while i + v <= end {
            put::<A, STREAM>(a, dst.add(i), a.load(src.add(i)));
            i += v;
        }
    }
    i
}

/// The bytes `[head, end)` of an output of `bytes` bytes at address `dst` that a streaming copy stores non-temporally:
/// the whole 64-byte lines it covers, or `None` when it covers none. The bytes before and after go through
/// regular stores, which then never share a line with non-temporal ones.
///
/// PERF: a line written both ways is fetched for the regular store after the non-temporal one evicted it (or
/// the write-combining buffer is flushed half full). The first streaming copy stored each row's first and last
/// register over the streamed lines; with rows that do not start on a line that was every row, twice: one thread,
/// buffers 16 bytes past a line (as numpy places its large arrays), the public f32 vflip ran at 1.34 ms against
/// 0.48 ms line-aligned, an f32 → f16 cast (flushed from its staging buffer by this copy) at 2.5× its aligned time.
#[inline(always)]
pub(crate) fn stream_lines(dst: usize, bytes: usize) -> Option<(usize, usize)> {
    let head = dst.wrapping_neg() & 63;
    let end = head + bytes.checked_sub(head)? / 64 * 64;
    (end > head).then_some((head, end))
}

/// Elements of `width` bytes from `addr` up to the next 64-byte line (none on a line): the head a streaming kernel
/// stores normally before its non-temporal part.
#[inline(always)]
pub(crate) fn to_line(addr: usize, width: usize) -> usize {
    addr.wrapping_neg() % 64 / width
}

/// Of `n` elements of `width` bytes (a power of two up to 64) stored from the start of a 64-byte line, how many
/// fill whole lines: the most a streaming kernel stores non-temporally, leaving the rest to regular stores (see
/// [`stream_lines`]: a line is never written both ways).
#[inline(always)]
pub(crate) fn line_elements(n: usize, width: usize) -> usize {
    debug_assert!(width.is_power_of_two() && width <= 64);
    n / (64 / width) * (64 / width)
}

/// Copies a prefix of a reversed row (stride −1 element) in whole registers; returns the elements done.
///
/// # Safety
///
/// Elements `0..n` of the row lie at `src − i·N` (readable) and `dst + i·N` (writable, not overlapping the source).
/// With `stream`, `dst` is on a 64-byte line, and only the registers of whole lines are stored non-temporally (the
/// rest with regular stores: [`line_elements`]).
#[inline(always)]
pub(crate) unsafe fn reverse<A: Arch, const N: usize>(
    a: A,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    stream: bool,
) -> usize {
    if !A::reverses(N) {
        return 0;
    }
    let per = A::BYTES / N;
    let lines = if stream { line_elements(n, N) } else { 0 };
    let mut i = 0;
    while i + per <= n {
        // SAFETY: the register at src-(i+per-1)·N holds elements i..i+per of the row; dst+i·N.. their outputs
        // (on a line, and a whole register of it, when streamed: lines is a multiple of per).
        unsafe {
            let r = a.reverse::<N>(a.load(src.wrapping_sub((i + per - 1) * N)));
            if i + per <= lines {
                a.stream(dst.add(i * N), r);
            } else {
                a.store(dst.add(i * N), r);
            }
        }
        i += per;
    }
    if i < n {
        // The last r < per elements: the top r elements of the register that would hold elements i..i+per (the
        // lower ones lie outside the row and are not read), reversed into the low r of the output register.
        let r = n - i;
        // SAFETY: bytes (per-r)·N..BYTES of the register at src-(i+per-1)·N are elements i+r-1 down to i of the
        // row; the r·N bytes at dst+i·N are their outputs.
        unsafe {
            if let Some(v) = a.load_part(src.wrapping_sub((i + per - 1) * N), (per - r) * N, A::BYTES)
                && a.store_part(dst.add(i * N), a.reverse::<N>(v), r * N)
            {
                i = n;
            }
        }
    }
    i
}

/// Copies a prefix of a row gathered with stride +2 (`neg == false`) or −2 elements; returns the elements done.
///
/// # Safety
///
/// Elements `0..n` lie at `src ± 2i·N` (readable, with every byte between them) and `dst + i·N` (writable). With
/// `stream`, `dst` is on a 64-byte line, and the elements done fill whole lines, all stored non-temporally (the
/// caller moves the rest with regular stores: a line written both ways costs a fetch after the write-combining
/// buffer's flush, see [`stream_lines`]).
#[inline(always)]
pub(crate) unsafe fn gather2<A: Arch, const N: usize>(
    a: A,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    neg: bool,
    stream: bool,
) -> usize {
    if !A::picks(N) {
        return 0;
    }
    // SAFETY: forwarded contract.
    unsafe {
        match (neg, stream) {
            (false, false) => gather2_loop::<A, N, false, false>(a, src, dst, n),
            (false, true) => gather2_loop::<A, N, false, true>(a, src, dst, n),
            (true, false) => gather2_loop::<A, N, true, false>(a, src, dst, n),
            (true, true) => gather2_loop::<A, N, true, true>(a, src, dst, n),
        }
    }
}

/// [`gather2`] with its direction and store kind fixed, two registers per step.
///
/// # Safety
///
/// As [`gather2`].
#[inline(always)]
unsafe fn gather2_loop<A: Arch, const N: usize, const NEG: bool, const STREAM: bool>(
    a: A,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) -> usize {
    let per = A::BYTES / N;
    // The two loads of output register j cover 2·per elements starting at an even element (positive stride) or
    // at the odd element below the lowest one needed (negative): one element beyond the needed ones, which lies
    // inside the row while j·per + per < n. The loops take the registers that end before element n − 1; streamed,
    // only those of whole lines (a multiple of per: lines hold whole registers).
    //
    // PERF: streamed AVX2 rows of 192 f32 (12 lines) ended in a register the loops cannot take (no part loads at
    // that level), stored by the caller's lanes into the line whose first half was just streamed. One thread,
    // Zen 4, `--isa v3`, the public f32 16×3×512² crop 384 stride 2: 3.4–3.8 ms, against 1.5 ms with regular stores
    // and 0.77 ms for AVX-512 (whose registers are whole lines).
    let end = if STREAM { line_elements(n.saturating_sub(1), N) } else { n.saturating_sub(1) };
    let one = |i: usize| {
        // SAFETY: as above, all 2·BYTES bytes read lie between elements of the row (i + per < n).
        unsafe {
            let p = if NEG { src.wrapping_sub((2 * (i + per - 1) + 1) * N) } else { src.wrapping_add(2 * i * N) };
            let r = a.pick2::<N, NEG>(a.load(p), a.load(p.add(A::BYTES)));
            if STREAM {
                a.stream(dst.add(i * N), r);
            } else {
                a.store(dst.add(i * N), r);
            }
        }
    };
    let mut i = 0;
    // PERF: two independent registers per step (one per step, with the direction tested inside the loop, ran the
    // 16 KiB f32 sweep at 2.4× memcpy).
    while i + 2 * per <= end {
        one(i);
        one(i + per);
        i += 2 * per;
    }
    while i + per <= end {
        one(i);
        i += per;
    }
    // Streamed, the last register is taken only when it is a whole line.
    if i < n && n - i <= per && (!STREAM || (n - i == per && A::BYTES == 64)) {
        // The last r ≤ per elements through the same register pair, reading only the bytes between the row's
        // elements: (2r − 1)·N bytes from the pair's start (positive), or up to its end (negative). Levels without
        // part loads leave them to the caller's shuffle lanes.
        //
        // PERF: a last whole register went to the shuffle lanes too, whose setup cost as much as the rest of a
        // short row (V3: ~50 instructions per row of 128 f32). Through the pair, one thread, Zen 4, best of six
        // alternations: the public hw_stride2 slice (rows end in one) 242 → 220 µs, crop 384 1.23 → 1.14 ms (on
        // Zen 5 it ran 124 → 128 µs, within that machine's noise).
        let (r, b) = (n - i, A::BYTES);
        let need = (2 * r - 1) * N;
        let (lo, hi) = if NEG { (2 * b - need, 2 * b) } else { (0, need) };
        let p = if NEG { src.wrapping_sub((2 * (i + per - 1) + 1) * N) } else { src.wrapping_add(2 * i * N) };
        // Bytes lo..hi of the pair at p lie between the row's elements i..n (all readable, contract); each register
        // reads its share of them.
        let part = |q: *const u8, lo: usize, hi: usize| {
            // SAFETY: bytes lo..hi at q are readable (above); all of them when they are the whole register.
            unsafe { if lo == 0 && hi == b { Some(a.load(q)) } else { a.load_part(q, lo, hi) } }
        };
        if let (Some(x), Some(y)) =
            (part(p, lo.min(b), hi.min(b)), part(p.wrapping_add(b), lo.max(b) - b, hi.max(b) - b))
        {
            let v = a.pick2::<N, NEG>(x, y);
            let d = dst.wrapping_add(i * N);
            if STREAM && r == per {
                // SAFETY: the r·N = BYTES bytes at d are the outputs; d is aligned to the register as every
                // streamed one (the contract, advanced by whole registers).
                unsafe { a.stream(d, v) };
                i = n;
            // SAFETY: the r·N bytes at d are the outputs.
            } else if unsafe { a.store_part(d, v, r * N) } {
                i = n;
            }
        }
    }
    i
}

/// A detected level together with its token.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Level {
    Scalar(Scalar),
    #[cfg(target_arch = "x86_64")]
    V3(v3::V3),
    #[cfg(target_arch = "x86_64")]
    V4(v4::V4),
    #[cfg(target_arch = "x86_64")]
    V4Vbmi(vbmi::V4Vbmi),
}

/// Work generic over the instruction-set level.
pub(crate) trait Job {
    type Output;
    fn run<A: Arch>(self, a: A) -> Self::Output;
}

impl Level {
    /// The token for `isa`, if this CPU has it: detected once per level (a forced level is looked up on every
    /// call; PERF: detecting it each time cost ~33 instructions, 1 ns of the 17 ns a 4×4 copy takes).
    pub(crate) fn of(isa: Isa) -> Option<Level> {
        static LEVELS: OnceLock<[Option<Level>; 4]> = OnceLock::new();
        let at = Isa::ALL.iter().position(|&i| i == isa)?;
        LEVELS.get_or_init(|| Isa::ALL.map(Level::detect))[at]
    }

    /// [`Level::of`], detected now.
    fn detect(isa: Isa) -> Option<Level> {
        if max_isa().is_some_and(|max| isa > max) {
            return None;
        }
        match isa {
            Isa::Scalar => Some(Level::Scalar(Scalar)),
            #[cfg(target_arch = "x86_64")]
            Isa::V3 => v3::V3::try_new().map(Level::V3),
            #[cfg(target_arch = "x86_64")]
            Isa::V4 => v4::V4::try_new().map(Level::V4),
            #[cfg(target_arch = "x86_64")]
            Isa::V4Vbmi => vbmi::V4Vbmi::try_new().map(Level::V4Vbmi),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }

    pub(crate) fn isa(self) -> Isa {
        match self {
            Level::Scalar(_) => Isa::Scalar,
            #[cfg(target_arch = "x86_64")]
            Level::V3(_) => Isa::V3,
            #[cfg(target_arch = "x86_64")]
            Level::V4(_) => Isa::V4,
            #[cfg(target_arch = "x86_64")]
            Level::V4Vbmi(_) => Isa::V4Vbmi,
        }
    }

    /// Runs `job` with the level's token.
    pub(crate) fn dispatch<J: Job>(self, job: J) -> J::Output {
        match self {
            Level::Scalar(a) => job.run(a),
            #[cfg(target_arch = "x86_64")]
            Level::V3(a) => job.run(a),
            #[cfg(target_arch = "x86_64")]
            Level::V4(a) => job.run(a),
            #[cfg(target_arch = "x86_64")]
            Level::V4Vbmi(a) => job.run(a),
        }
    }
}

/// The widest level `STRIDER_MAX_ISA` allows (`scalar`, `v3`, `v4`, `v4-vbmi`), read once; `None` when unset or
/// unrecognized (with a one-line warning). Levels above it count as unavailable, as on a CPU without them: to
/// compare levels, to work around a CPU or virtual machine that misreports a feature, or to test the fallbacks.
fn max_isa() -> Option<Isa> {
    static MAX: OnceLock<Option<Isa>> = OnceLock::new();
    *MAX.get_or_init(|| {
        let name = crate::env::var("STRIDER_MAX_ISA")?;
        let isa = Isa::ALL.into_iter().find(|i| i.name().eq_ignore_ascii_case(name.trim()));
        if isa.is_none() {
            let names: Vec<&str> = Isa::ALL.iter().map(|i| i.name()).collect();
            crate::env::warn(&format!(
                "STRIDER_MAX_ISA={name:?} ignored: it must be one of {}; every level of this CPU is used",
                names.join(", ")
            ));
        }
        isa
    })
}

#[cold]
#[inline(never)]
fn detect() -> Level {
    [Isa::V4Vbmi, Isa::V4, Isa::V3].into_iter().find_map(Level::of).unwrap_or(Level::Scalar(Scalar))
}

/// The widest level this CPU runs, detected once.
#[inline]
pub(crate) fn best() -> Level {
    static BEST: OnceLock<Level> = OnceLock::new();
    *BEST.get_or_init(detect)
}

#[cfg(feature = "selftest")]
mod tests;

/// This module's tests and its files' (see `crate::selftests`).
#[cfg(feature = "selftest")]
pub(crate) fn selftests() -> Vec<(&'static str, fn())> {
    [tests::cases::tests(), gather::tests::tests(), map::tests::tests()].concat()
}
