#![deny(clippy::arithmetic_side_effects)]
//! Where a walk's strategy is chosen: which dimension is the row, what the row kernel absorbs, and how elements
//! move along it ([`Movement`], one enum whose variants carry their tables). Pure integer code over a proven
//! [`Walk`]; the geometry it picks comes from the walk, so a wrong choice here can be slow, never unsafe.

use core::fmt;
use std::sync::Arc;

use crate::cache::CacheSizes;
use crate::params;
use crate::plan::{Dim, ElementOp};
use crate::tables::{
    BlockShuffle, Periodic, PixelWindows, Planar, ShiftBlend, Shuffle, Spread, TableLanes, WideShuffle,
};
use crate::walk::{Geometry, PlanError, Walk};
use crate::width::Width;

/// How the innermost dimension (the row) of a walk is moved; derived from its strategy.
///
/// # Examples
///
/// ```
/// use strider::{DataType, Identity, RowKind, TensorDesc};
/// // HWC → CHW of 3 channels: pixels deinterleaved into planes.
/// let hwc = TensorDesc::nhwc(DataType::Uint8, [1, 3, 64, 64])?;
/// let chw = TensorDesc::nchw(DataType::Uint8, [1, 3, 64, 64])?;
/// assert_eq!(Identity::new(&hwc, &chw)?.row_kind(), RowKind::Deinterleave { planes: 3 });
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RowKind {
    /// Both operands contiguous: one bulk copy (or conversion) per row.
    Copy,
    /// Output contiguous, input stepping back one element: a reversed row.
    Reverse,
    /// Output contiguous, input stride 0: one element repeated.
    Broadcast,
    /// Output contiguous, input stride `stride` elements (|stride| ≥ 2).
    Gather {
        /// Input step in elements.
        stride: isize,
    },
    /// Anything else (strided output, input strides that are not whole elements).
    Strided,
    /// Short rows: the innermost dimensions are absorbed into a table of (input, output) offsets, one element per
    /// entry (tiny and high-rank walks, where loop overhead would dominate).
    Table {
        /// Elements per table row.
        len: usize,
    },
    /// The output's contiguous dimension is not the input's: a 2-D transpose of the two, through cache-line
    /// blocks of 8×8 in-register tiles.
    Transpose {
        /// Extent of the output-contiguous dimension folded into the kernel.
        rows: usize,
    },
    /// Planes into interleaved elements (CHW → HWC with 2 to 4 channels).
    Interleave {
        /// Number of planes (channels).
        planes: usize,
    },
    /// Interleaved elements into planes (HWC → CHW with 2 to 4 channels).
    Deinterleave {
        /// Number of planes (channels).
        planes: usize,
    },
    /// Interleaved pixels whose channels are written in reverse order (BGR ↔ RGB, RGBA → ABGR), the pixels read
    /// forwards, backwards or subsampled: byte shuffles over whole pixels.
    Swap {
        /// Channels per pixel.
        channels: usize,
    },
    /// No input: the row's values are computed from their indices (`DML_FILL_VALUE_SEQUENCE`).
    Sequence,
    /// A conversion of interleaved pixels written contiguously (channels-last in and out): whole pixels read
    /// forwards, backwards, subsampled or with their channels reversed, converted in runs with a repeating pattern
    /// of per-channel parameters.
    Pixels {
        /// Channels per pixel.
        channels: usize,
    },
}

impl fmt::Display for RowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowKind::Copy => f.write_str("contiguous copy"),
            RowKind::Reverse => f.write_str("reverse"),
            RowKind::Broadcast => f.write_str("broadcast"),
            RowKind::Gather { stride } => write!(f, "gather (input stride {stride})"),
            RowKind::Strided => f.write_str("strided"),
            RowKind::Table { len } => write!(f, "table of {len} offsets"),
            RowKind::Transpose { rows } => write!(f, "transpose ({rows} rows, register tiles)"),
            RowKind::Interleave { planes } => write!(f, "interleave of {planes} planes"),
            RowKind::Deinterleave { planes } => write!(f, "deinterleave into {planes} planes"),
            RowKind::Swap { channels } => write!(f, "channel swap of {channels}-channel pixels"),
            RowKind::Sequence => f.write_str("sequence computed from indices"),
            RowKind::Pixels { channels } => write!(f, "runs of {channels}-channel pixels converted whole"),
        }
    }
}

impl RowKind {
    /// The kind of a row of `width`-byte elements with the given byte strides.
    pub fn classify(width: usize, in_stride: isize, out_stride: isize) -> RowKind {
        classify(width, width, in_stride, out_stride)
    }
}

/// The kind of a row reading `iw`-byte and writing `ow`-byte elements.
fn classify(iw: usize, ow: usize, in_stride: isize, out_stride: isize) -> RowKind {
    let (iw, ow) = (iw as isize, ow as isize);
    if out_stride != ow {
        return RowKind::Strided;
    }
    match in_stride {
        s if s == iw => RowKind::Copy,
        s if Some(s) == iw.checked_neg() => RowKind::Reverse,
        0 => RowKind::Broadcast,
        s if s.checked_rem(iw) == Some(0) => RowKind::Gather { stride: s.checked_div(iw).unwrap_or(s) },
        _ => RowKind::Strided,
    }
}

/// Shuffle tables for a reversed or gathered row whose pattern no register permute expresses, widest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes {
    pub(crate) block: Option<BlockShuffle>,
    /// Blends of shifted loads (channel swaps of adjacent three-channel pixels, 32-byte levels).
    pub(crate) shifts: Option<ShiftBlend>,
    pub(crate) wide: Option<WideShuffle>,
    pub(crate) narrow: Option<Shuffle>,
    /// Contiguous elements into wider slots (the other direction: RGB → RGBX).
    pub(crate) spread: Option<Spread>,
}

impl Lanes {
    fn new(width: usize, k: isize) -> Lanes {
        // PERF: a 16-byte lane holding one element is a plain element copy with a shuffle's set-up on top (rows of
        // 16-byte elements read with stride −2: 145 instructions per 8-element row through such lanes).
        // Likewise 64-byte lanes of four 16-byte elements ran at 0.66× the speed of the element copies.
        Lanes {
            block: BlockShuffle::new(width, k, width),
            shifts: None,
            wide: WideShuffle::new(width, k).filter(|t| t.elems > 4),
            narrow: Shuffle::new(width, k).filter(|t| t.elems > 1),
            spread: None,
        }
    }

    /// Lanes for a strided row reading `iw`-byte and writing `ow`-byte elements: out of wider slots into contiguous
    /// elements ([`Lanes::stepping`], for the input's width) and from contiguous elements into wider slots
    /// ([`Spread`], for the output's); `None` when neither has tables. A conversion gathers its input into a buffer
    /// and scatters its output from one, so it may use both; a copy uses the one whose other side is contiguous.
    fn strided(iw: usize, ow: usize, in_stride: isize, out_stride: isize) -> Option<Lanes> {
        let gather = (in_stride != isize::try_from(iw).ok()?).then(|| Lanes::stepping(iw, in_stride)).flatten();
        let spread = (out_stride != isize::try_from(ow).ok()?).then(|| Spread::new(ow, out_stride)).flatten();
        match gather {
            Some(lanes) => Some(Lanes { spread, ..lanes }),
            None => spread.map(Lanes::spreading),
        }
    }

    /// Lanes that only spread contiguous elements into wider slots.
    fn spreading(spread: Spread) -> Lanes {
        Lanes { block: None, shifts: None, wide: None, narrow: None, spread: Some(spread) }
    }

    /// Lanes for `width`-byte elements `step` bytes apart (not a whole number of elements: RGB pixels in RGBX
    /// slots, step 4), or `None` when no lane width has tables for them.
    ///
    /// PERF: u8 RGBX → RGB, 8 × 128² pixels, one thread, Zen 4: one 3-byte element at a time 52–55 µs.
    fn stepping(width: usize, step: isize) -> Option<Lanes> {
        let lanes = Lanes {
            block: None,
            shifts: None,
            wide: WideShuffle::stepping(width, step).filter(|t| t.elems > 4),
            narrow: Shuffle::stepping(width, step).filter(|t| t.elems > 1),
            spread: None,
        };
        (lanes.wide.is_some() || lanes.narrow.is_some()).then_some(lanes)
    }
}

/// An element width the transposing kernels take (a power of two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TileWidth {
    W1,
    W2,
    W4,
    W8,
    W16,
}

impl TileWidth {
    pub(crate) fn of(bytes: usize) -> Option<TileWidth> {
        Some(match bytes {
            1 => TileWidth::W1,
            2 => TileWidth::W2,
            4 => TileWidth::W4,
            8 => TileWidth::W8,
            16 => TileWidth::W16,
            _ => return None,
        })
    }
}

/// How elements move along the row (and the folded dimension). For a conversion the movement is that of the
/// *input* elements into a contiguous staging buffer (for the row kinds), or of the *converted* elements out of it
/// (for the transposing kinds).
#[derive(Clone, Debug)]
pub(crate) enum Movement {
    /// Both operands contiguous.
    Copy,
    /// Input stride −1 element, output contiguous.
    Reverse(Lanes),
    /// Input stride `stride` elements (|stride| ≥ 2), output contiguous.
    Gather { stride: isize, lanes: Lanes },
    /// Input stride 0, output contiguous.
    Broadcast,
    /// Any strides, one element at a time — or, for a contiguous output whose input elements are a few bytes more
    /// than their width apart (RGB pixels in RGBX slots), through the byte-shuffle `Lanes` first.
    Strided(Option<Lanes>),
    /// A table row (the geometry holds the offsets; the lanes move whole rows through registers).
    Table(TableLanes),
    /// 2-D transpose of the row (input-contiguous) and the folded dimension (output-contiguous).
    Transpose(TileWidth),
    /// Planes (the folded dimension) into interleaved pixels (the row); with `Some`, a widening conversion that
    /// interleaves the planes' input elements first (the tables move input-width elements) and converts the pixels
    /// after ([`InterleaveFirst`]).
    Interleave(Planar, Option<InterleaveFirst>),
    /// Interleaved pixels (the row) into planes (the folded dimension).
    Deinterleave(Planar),
    /// Pixels (the row) whose channels (the folded dimension, input stride −1 element) are written in reverse
    /// order: `unit` is the channel width, `lanes` the swapping shuffle tables of the pixel width and stride.
    Swap { unit: usize, lanes: Lanes },
    /// Values computed from their indices (a sequence: the "input" addresses are indices, never read).
    Generate,
    /// A conversion of interleaved pixels (the row) of `channels` channels (the folded dimension, input stride ±1
    /// element): runs of pixels are read whole as `read` says, then converted, a normalization's pairs taken from
    /// `pattern` when they vary along the channels, and written contiguously — or, with `write`, whole output
    /// pixels that many bytes apart (padded pixels), through `spread` where it has tables.
    Pixels {
        channels: usize,
        read: PixelRead,
        pattern: Option<Arc<Periodic>>,
        write: Option<isize>,
        /// (Boxed: the other lanes' tables make `Lanes` large.)
        spread: Option<Box<Lanes>>,
        /// One-byte pixels read other than contiguously into a contiguous output: blocks of 16 read in order in
        /// registers, where a conversion's kernel takes them ([`Arch::convert_windows`](crate::arch::Arch)).
        windows: Option<Box<PixelWindows>>,
    },
}

/// How the pixels of a [`Movement::Pixels`] row are read, each pixel one element of the pixel's width.
#[derive(Clone, Debug)]
pub(crate) enum PixelRead {
    /// Contiguously.
    Copy,
    /// With stride −1 pixel (a mirrored row).
    Reverse(Lanes),
    /// With stride `stride` pixels.
    Gather { stride: isize, lanes: Lanes },
    /// `step` bytes apart, not a whole number of pixels (RGB pixels in RGBX slots).
    Step { step: isize, lanes: Lanes },
    /// `step` bytes apart, their channels reversed (BGR ↔ RGB, BGRX → RGB).
    Swap { step: isize, lanes: Lanes },
}

/// A walk's chosen execution: geometry, movement, and the default store policy.
#[derive(Clone, Debug)]
pub(crate) struct Strategy {
    geometry: Geometry,
    movement: Movement,
    /// The width the movement's kernel moves: the element width of a copy; for a conversion the input width (row
    /// kinds) or the output width (transposing kinds).
    width: Width,
    op: ElementOp,
    /// Bytes the walk touches (output plus the input lines it reads).
    footprint: usize,
    /// Whether the rows may stream at all, and where.
    streamable: Streamable,
}

/// How a call chooses its store kind ([`Strategy::store_choice`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StoreChoice {
    /// The rule's kind (non-temporal when `true`).
    Rule(bool),
    /// Measured between the two kinds, starting from the rule's.
    Measured {
        /// The rule's kind.
        rule: bool,
    },
}

impl StoreChoice {
    /// The rule's kind (non-temporal when `true`).
    pub(crate) fn rule(self) -> bool {
        match self {
            StoreChoice::Rule(rule) | StoreChoice::Measured { rule } => rule,
        }
    }
}

/// A widening conversion of planes into pixels done in that order: the planes' narrow input elements interleaved
/// into pixels in a buffer, then the pixels converted into the output as contiguous pixels are, a normalization's
/// pairs taken from `pattern` when they vary along the planes (else its one pair).
///
/// PERF: converted first, each plane run went through the buffer at the output's width (a u8 → f32 pixel: 12 bytes
/// written and read again, against 3), and the f32 pixels were interleaved by shuffles. One thread, Zen 4, tight
/// loops, `--isa v3` / AVX-512: u8 NCHW 8×3×128² → f32 NHWC normalized 38.1 → 22.1 / 26.0 → 18.6 µs (NHWC → NHWC
/// runs 17 µs), into f16 33.5 → 28.1 / 20.3 → 16.3, f16 → f32 36.8 → 25.7 / 28.4 → 22.9; 32×3×224² → f32 NHWC
/// (interleaved rounds, from memory) 561 → 361 / 462 → 348 µs. Same-width and narrowing conversions gained nothing
/// (f32 → f32, f32 → f16) and keep converting first.
#[derive(Clone, Debug)]
pub(crate) struct InterleaveFirst {
    pub(crate) pattern: Option<Arc<Periodic>>,
}

/// Which rows may store non-temporally (when the footprint asks for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Streamable {
    /// Never: table rows, rows shorter than [`params::STREAM_MIN_SHORT_ROW_BYTES`], short rows of other kinds.
    No,
    /// Rows of at least [`params::STREAM_MIN_ROW_BYTES`].
    Always,
    /// Shorter copied rows, wherever the output is (the copy keeps their partial lines apart).
    Short,
    /// Shorter gathered rows of whole lines, when the output is placed so that every row starts on a line (known
    /// at run time): contiguous output rows and outer output strides that are whole lines.
    WholeLines,
}

impl Strategy {
    /// Chooses the strategy of `walk`.
    ///
    /// # Errors
    ///
    /// [`PlanError::Inconsistent`] if no geometry could be derived (a bug, reported rather than run).
    pub(crate) fn choose(walk: &Walk) -> Result<Strategy, PlanError> {
        let plan = walk.plan();
        let op = *plan.op();
        let (iw, ow) = (plan.in_width(), plan.out_width());
        let dims = walk.dims();
        let rank = dims.len();
        let last = rank.saturating_sub(1); // a walk has at least one dimension
        let row = dims[last];
        let converting = !matches!(op, ElementOp::Copy { .. });
        let width_of = |bytes: usize| Width::from_bytes(bytes).ok_or(PlanError::Inconsistent);

        let (mut geometry, movement, width) = if op.is_sequence() {
            // Values from indices: the last dimension is the row, whatever its strides (no input to tile).
            let g = walk.geometry(last, None).ok_or(PlanError::Inconsistent)?;
            (g, Movement::Generate, width_of(ow)?)
        } else if let Some((g, m, w)) = swap(walk, iw, converting) {
            (g, m, w)
        } else if let Some((g, m, w)) = transpose(walk, iw, ow, &op) {
            (g, m, w)
        } else if let Some((g, m, w)) = pixels(walk, iw, ow, &op) {
            (g, m, w)
        } else if row.extent.saturating_mul(ow) < params::TABLE_ROW_BYTES && rank >= 2 {
            // Absorb the innermost dimensions into a table row of at most TABLE_MAX elements.
            let keep = (0..last)
                .rev()
                .scan(row.extent, |len, k| {
                    *len = len.saturating_mul(dims[k].extent);
                    (*len <= params::TABLE_MAX).then_some(k)
                })
                .last()
                .unwrap_or(last);
            match walk.tabulate(keep, params::TABLE_MAX) {
                Some(g) if keep < last => {
                    let lanes = g.table().map(|t| TableLanes::new(iw, t.inputs())).unwrap_or_default();
                    (g, Movement::Table(lanes), width_of(iw)?)
                }
                _ => row_geometry(walk, iw, ow)?,
            }
        } else {
            row_geometry(walk, iw, ow)?
        };

        // Footprint: the bytes the walk touches — its output plus the input it actually reads. Input read with
        // every k-th element as the densest step pulls in up to a whole cache line per element; a denser dimension
        // elsewhere (the channels of a deinterleave, the rows of a transpose) reads the lines' other elements, so
        // the densest input step over all dimensions decides; skipped outer slices cost nothing.
        let out_bytes = walk.bytes_written();
        let w = iw as isize;
        let densest =
            dims.iter().filter(|d| d.extent > 1 && d.in_stride != 0).map(|d| d.in_stride.unsigned_abs()).min();
        let amplification = match densest {
            None => 0, // every dimension broadcast: one element read
            Some(step) => {
                (step as isize).checked_div(w).unwrap_or(1).clamp(1, (64isize.checked_div(w).unwrap_or(1)).max(1))
                    as usize
            }
        };
        let read = if op.is_sequence() { 0 } else { walk.elements().saturating_mul(iw).saturating_mul(amplification) };
        let footprint = out_bytes.saturating_add(read);
        if footprint <= CacheSizes::get().l2() {
            geometry.lengthen_runs();
        }
        // A transposing row moves a whole block: its folded rows count.
        let block_rows = match movement {
            Movement::Transpose(_) => geometry.fold().map_or(1, |i| i.extent),
            _ => 1,
        };
        let row_bytes = geometry.row().extent.saturating_mul(ow).saturating_mul(block_rows);
        let g = &geometry;
        let whole_lines = g.row().out_stride.unsigned_abs() == ow
            && row_bytes.is_multiple_of(64)
            && g.out_strides()[..g.outer_rank()].iter().all(|&s| s.unsigned_abs().is_multiple_of(64));
        let streamable = match movement {
            _ if geometry.table().is_some() || row_bytes < params::STREAM_MIN_SHORT_ROW_BYTES => Streamable::No,
            _ if row_bytes >= params::STREAM_MIN_ROW_BYTES => Streamable::Always,
            Movement::Copy | Movement::Generate => Streamable::Short,
            Movement::Gather { .. } if whole_lines => Streamable::WholeLines,
            _ => Streamable::No,
        };
        Ok(Strategy { geometry, movement, width, op, footprint, streamable })
    }

    /// The geometry the nest and row kernel walk.
    pub(crate) fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// How elements move along the row.
    pub(crate) fn movement(&self) -> &Movement {
        &self.movement
    }

    /// The width the movement's kernel moves.
    pub(crate) fn width(&self) -> Width {
        self.width
    }

    /// What happens to each element.
    pub(crate) fn op(&self) -> &ElementOp {
        &self.op
    }

    /// The table of a walk that is one table row of at most [`params::TINY_MAX`] elements, which runs element by
    /// element without the machinery of larger walks.
    pub(crate) fn tiny(&self) -> Option<&crate::walk::Table> {
        let g = &self.geometry;
        // Parameters go through the row kernels; a sequence has no input elements to move.
        let simple = !matches!(self.op, ElementOp::Normalize { .. } | ElementOp::Sequence { .. });
        let one_row = g.rows() == 1 && matches!(self.movement, Movement::Table(_));
        g.table().filter(|t| simple && one_row && t.inputs().len() <= params::TINY_MAX)
    }

    /// Whether non-temporal stores are the default when the walk is split across `threads` threads and its first
    /// output element is at address `out`: the footprint reaches [`Strategy::threshold`], and the rows are long,
    /// copied, or gathered as whole lines at line-aligned addresses ([`Streamable`]).
    pub(crate) fn stream(&self, threads: usize, out: usize) -> bool {
        self.store_choice(threads, out).rule()
    }

    /// How the store kind of a call split across `threads` threads with its first output element at `out` is
    /// chosen: by [`Strategy::stream`] alone, or — when the rule streams a footprint below
    /// [`params::STORE_PROBE_BAND`] times the threshold, where which kind wins depends on what else uses the cache
    /// at the time — by measuring calls of both kinds, starting from the rule's (`measure`). Not below the
    /// threshold, where the rule's regular stores win by keeping the footprint in the cache from call to call,
    /// which a short probe after streamed calls does not see; not for transposes, whose blocks take other tiles
    /// when they stream (see the constant's measurements).
    pub(crate) fn store_choice(&self, threads: usize, out: usize) -> StoreChoice {
        let threshold = self.threshold(threads);
        let stream = self.rows_stream(out) && self.footprint >= threshold;
        let near = self.footprint < threshold.saturating_mul(params::STORE_PROBE_BAND);
        if stream && near && !matches!(self.movement, Movement::Transpose(_)) {
            StoreChoice::Measured { rule: stream }
        } else {
            StoreChoice::Rule(stream)
        }
    }

    /// Whether the rows may stream at all with the first output element at `out` ([`Streamable`]).
    fn rows_stream(&self, out: usize) -> bool {
        match self.streamable {
            Streamable::No => false,
            Streamable::Always | Streamable::Short => true,
            Streamable::WholeLines => out.is_multiple_of(64),
        }
    }

    /// The footprint from which a walk split across `threads` threads streams: the machine's streaming threshold,
    /// a fraction of it for transposes into rows that share L1 sets and for short rows.
    fn threshold(&self, threads: usize) -> usize {
        let threshold = CacheSizes::get().stream_threshold_for(threads);
        let (num, den) = match self.streamable {
            _ if self.aliased_planes() => params::STREAM_ALIASED_PLANES_FRACTION,
            Streamable::Short | Streamable::WholeLines => params::STREAM_SHORT_ROWS_FRACTION,
            _ => (1, 1),
        };
        threshold.checked_div(den).unwrap_or(threshold).saturating_mul(num)
    }

    /// Whether this is a transpose into output rows a multiple of [`params::L1_WAY_BYTES`] apart (NHWC → NCHW into
    /// planes of 2K f16 or 1K f32 elements, 2-D transposes of such rows), whose tiles' stores all fall into one L1
    /// set: these stream from a smaller footprint (see [`params::STREAM_ALIASED_PLANES_FRACTION`]).
    fn aliased_planes(&self) -> bool {
        let dj = self.geometry.row().out_stride.unsigned_abs();
        matches!(self.movement, Movement::Transpose(_)) && dj.is_multiple_of(params::L1_WAY_BYTES)
    }

    /// Whether the footprint stays in the caches: below the one-thread streaming threshold (the same one
    /// [`Strategy::stream`] uses).
    pub(crate) fn cached(&self) -> bool {
        self.footprint < self.threshold(1)
    }

    /// Whether the footprint exceeds L2: the output of the last call is not in the nearest caches.
    pub(crate) fn beyond_l2(&self) -> bool {
        self.footprint > CacheSizes::get().l2()
    }

    /// Whether the footprint fits the last-level cache one thread can count on.
    pub(crate) fn near(&self) -> bool {
        self.footprint < CacheSizes::get().llc_per_thread()
    }

    /// The public name of the row kernel.
    pub(crate) fn kind(&self) -> RowKind {
        let g = &self.geometry;
        match &self.movement {
            Movement::Copy => RowKind::Copy,
            Movement::Reverse(_) => RowKind::Reverse,
            Movement::Gather { stride, .. } => RowKind::Gather { stride: *stride },
            Movement::Broadcast => RowKind::Broadcast,
            Movement::Strided(_) => RowKind::Strided,
            Movement::Table(_) => RowKind::Table { len: g.row().extent },
            Movement::Transpose(_) => RowKind::Transpose { rows: g.fold().map_or(1, |d| d.extent) },
            Movement::Interleave(t, _) => RowKind::Interleave { planes: t.planes },
            Movement::Deinterleave(t) => RowKind::Deinterleave { planes: t.planes },
            Movement::Swap { .. } => RowKind::Swap { channels: g.fold().map_or(1, |d| d.extent) },
            Movement::Generate => RowKind::Sequence,
            Movement::Pixels { channels, .. } => RowKind::Pixels { channels: *channels },
        }
    }
}

/// The plain geometry (last dimension as the row) and the movement its strides call for.
fn row_geometry(walk: &Walk, iw: usize, ow: usize) -> Result<(Geometry, Movement, Width), PlanError> {
    let rank = walk.dims().len();
    let g = walk.geometry(rank.saturating_sub(1), None).ok_or(PlanError::Inconsistent)?;
    let row = g.row();
    let movement = match classify(iw, ow, row.in_stride, row.out_stride) {
        RowKind::Copy => Movement::Copy,
        RowKind::Reverse => Movement::Reverse(Lanes::new(iw, -1)),
        RowKind::Broadcast => Movement::Broadcast,
        RowKind::Gather { stride } => Movement::Gather { stride, lanes: Lanes::new(iw, stride) },
        _ => Movement::Strided(Lanes::strided(iw, ow, row.in_stride, row.out_stride)),
    };
    Ok((g, movement, Width::from_bytes(iw).ok_or(PlanError::Inconsistent)?))
}

/// Recognizes a channel swap of a copy: the innermost dimension (channels) reads backwards one element at a time
/// and writes forwards, and the next one (pixels) writes whole pixels contiguously and reads them at least a pixel
/// apart (whole pixels, or wider slots: BGRX → RGB). The pixels become the row, their channels are folded into
/// byte-shuffle tables of the pixel's width (16 bytes at most); `None` when no shuffle tables exist for the stride.
fn swap(walk: &Walk, iw: usize, converting: bool) -> Option<(Geometry, Movement, Width)> {
    let dims = walk.dims();
    let rank = dims.len();
    if converting || rank < 2 {
        return None;
    }
    let (cpos, ppos) = (rank.checked_sub(1)?, rank.checked_sub(2)?);
    let (c, p) = (dims[cpos], dims[ppos]);
    let w = isize::try_from(iw).ok()?;
    let pixel = c.extent.checked_mul(iw)?;
    let pw = isize::try_from(pixel).ok()?;
    if c.extent < 2 || c.in_stride != w.checked_neg()? || c.out_stride != w || p.out_stride != pw {
        return None;
    }
    let width = Width::from_bytes(pixel)?;
    let lanes = swap_lanes(pixel, p.in_stride, iw);
    if lanes.wide.is_none() && lanes.narrow.is_none() {
        return None;
    }
    Some((walk.geometry(ppos, Some(cpos))?, Movement::Swap { unit: iw, lanes }, width))
}

/// The shuffle tables of `pixel`-byte pixels `step` bytes apart, their `unit`-byte channels reversed (blocks for
/// adjacent pixels only).
fn swap_lanes(pixel: usize, step: isize, unit: usize) -> Lanes {
    let k =
        isize::try_from(pixel).ok().filter(|&pw| step.checked_rem(pw) == Some(0)).and_then(|pw| step.checked_div(pw));
    Lanes {
        block: k.and_then(|k| BlockShuffle::new(pixel, k, unit)),
        shifts: ShiftBlend::new(pixel, step, unit),
        wide: WideShuffle::swapping(pixel, step, unit),
        narrow: Shuffle::swapping(pixel, step, unit),
        spread: None,
    }
}

/// Recognizes interleaved pixels of a conversion written contiguously (channels-last in and out, where the
/// channels alone would make rows of 2 to 16 elements): the innermost dimension (channels) reads forwards or
/// backwards one element at a time and writes contiguously, the next (pixels) writes whole pixels one after the
/// other and reads them with a whole-pixel stride. The pixels become the row, read whole as elements of the
/// pixel's width into a buffer and converted in runs; a normalization whose pairs vary along the channels alone
/// takes them from a repeating pattern (parameters that vary along the pixels are left to the other kinds).
fn pixels(walk: &Walk, iw: usize, ow: usize, op: &ElementOp) -> Option<(Geometry, Movement, Width)> {
    let dims = walk.dims();
    let rank = dims.len();
    if matches!(op, ElementOp::Copy { .. } | ElementOp::Sequence { .. }) || rank < 2 {
        return None;
    }
    let (cpos, ppos) = (rank.checked_sub(1)?, rank.checked_sub(2)?);
    let (c, px) = (dims[cpos], dims[ppos]);
    let channels = c.extent;
    let pixel = channels.checked_mul(iw)?;
    let (w, pw) = (isize::try_from(iw).ok()?, isize::try_from(pixel).ok()?);
    let out_pixel = isize::try_from(channels.checked_mul(ow)?).ok()?;
    let width = Width::from_bytes(pixel)?;
    if !(2..=16).contains(&channels) || c.out_stride != isize::try_from(ow).ok()? {
        return None;
    }
    // Output pixels apart (padded pixels, a strided output): converted runs are written pixel by pixel.
    let write = match px.out_stride {
        s if s == out_pixel => None,
        0 => return None,
        s => {
            Width::from_bytes(channels.checked_mul(ow)?)?;
            Some(s)
        }
    };
    // Rows too short to pay for a run go into tables.
    if px.extent.saturating_mul(channels).saturating_mul(ow) < params::TABLE_ROW_BYTES {
        return None;
    }
    let swapped = match c.in_stride {
        s if s == w => false,
        s if Some(s) == w.checked_neg() => true,
        _ => return None,
    };
    // Pixels a whole number of pixels apart (`k`), or at least one apart in wider slots (RGBX: `step` bytes).
    let step = px.in_stride;
    let k = step.checked_div(pw).filter(|_| step.checked_rem(pw) == Some(0));
    if k == Some(0) || step.unsigned_abs() < pixel {
        return None;
    }
    let g = walk.geometry(ppos, Some(cpos))?;
    let pattern = match op {
        ElementOp::Normalize { .. } if g.row_aux() != 0 => return None,
        ElementOp::Normalize { from, to } if g.fold_aux() != 0 => {
            // (One-byte integers into one-byte integers: the pattern's fixed-point form for these types too.)
            let sign = |t: crate::convert::ElemType| match t {
                crate::convert::ElemType::U8 => Some(false),
                crate::convert::ElemType::I8 => Some(true),
                _ => None,
            };
            Some(Arc::new(Periodic::new(&walk.pairs_along(cpos)?, sign(*from).zip(sign(*to)))?))
        }
        _ => None,
    };
    let read = match (swapped, k) {
        (false, Some(1)) => PixelRead::Copy,
        (false, Some(-1)) => PixelRead::Reverse(Lanes::new(pixel, -1)),
        (false, Some(k)) => PixelRead::Gather { stride: k, lanes: Lanes::new(pixel, k) },
        (false, None) => PixelRead::Step { step, lanes: Lanes::stepping(pixel, step)? },
        (true, _) => PixelRead::Swap { step, lanes: swap_lanes(pixel, step, iw) },
    };
    let spread =
        write.and_then(|s| Spread::new(usize::try_from(out_pixel).ok()?, s)).map(|t| Box::new(Lanes::spreading(t)));
    let windows = (iw == 1 && write.is_none() && !matches!(read, PixelRead::Copy))
        .then(|| PixelWindows::new(channels, step, swapped))
        .flatten()
        .map(Box::new);
    Some((g, Movement::Pixels { channels, read, pattern, write, spread, windows }, width))
}

/// Recognizes a transpose: the row (the output's contiguous dimension, `I`) is strided in the input while another
/// dimension `J` is contiguous in the input. Folds one of the two into the kernel and makes the other the row:
/// tiles when both have at least 8 elements, interleave when `I` has 2 to 4 (planes into pixels), deinterleave
/// when `J` has 2 to 4 (pixels into planes). A conversion's kernels move converted (output-width) elements.
fn transpose(walk: &Walk, iw: usize, ow: usize, op: &ElementOp) -> Option<(Geometry, Movement, Width)> {
    let converting = !op.is_copy();
    let dims = walk.dims();
    let rank = dims.len();
    if rank < 2 {
        return None;
    }
    let ipos = rank.saturating_sub(1);
    let i: Dim = dims[ipos];
    let (iws, ows) = (iw as isize, ow as isize);
    // (A row that repeats one input element is a broadcast, not a transpose of identical input rows: the
    // broadcast rows fill whole output lines, streamed where the policy says so.)
    if i.out_stride != ows || i.in_stride == iws || i.in_stride == 0 {
        return None;
    }
    // J: contiguous in the input, forwards — or backwards for a deinterleave, whose tables reverse the channels.
    let find = |stride: isize| (0..ipos).rev().find(|&k| dims[k].in_stride == stride);
    let jpos = find(iws).or_else(|| find(iws.checked_neg()?))?;
    let j = dims[jpos];
    let forward = j.in_stride == iws;
    // The kernels move elements of this width: a conversion converts input runs first and moves output elements
    // (transpose, interleave), except that a deinterleave moves the input pixels first and converts plane runs.
    let kw = if converting { ow } else { iw };
    if forward && i.extent >= 8 && j.extent >= 8 {
        let tile = TileWidth::of(kw)?;
        return Some((walk.geometry(jpos, Some(ipos))?, Movement::Transpose(tile), Width::from_bytes(kw)?));
    }
    if forward
        && (2..=4).contains(&i.extent)
        && j.extent >= 16
        && Some(j.out_stride) == (i.extent as isize).checked_mul(ows)
    {
        let g = walk.geometry(jpos, Some(ipos))?;
        // Widening: the narrow input elements through the buffer (see `InterleaveFirst`), when the pixels' pairs
        // form a pattern of the planes (or are one pair). (Sequences never get here: `Strategy::choose`.)
        let first = (converting && ow > iw && g.row_aux() == 0)
            .then(|| match op {
                ElementOp::Normalize { .. } if g.fold_aux() != 0 => {
                    Some(InterleaveFirst { pattern: Some(Arc::new(Periodic::new(&walk.pairs_along(ipos)?, None)?)) })
                }
                _ => Some(InterleaveFirst { pattern: None }),
            })
            .flatten();
        let kw = if first.is_some() { iw } else { kw };
        let t = Planar::new(kw, i.extent, true)?;
        return Some((g, Movement::Interleave(t, first), Width::from_bytes(kw)?));
    }
    // Pixels (I) follow each other forwards or backwards (a mirrored row), `slots` elements apart: their channels
    // (RGB), or wider slots whose extra elements nothing reads into a plane (RGBX, BGRA without its alpha).
    let slots = i.in_stride.unsigned_abs().checked_div(iw).filter(|_| i.in_stride.unsigned_abs().is_multiple_of(iw));
    if (2..=4).contains(&j.extent) && i.extent >= 16 && slots.is_some_and(|s| (j.extent..=4).contains(&s)) {
        let t = Planar::deinterleave(iw, j.extent, slots?, i.in_stride < 0, !forward)?;
        return Some((walk.geometry(ipos, Some(jpos))?, Movement::Deinterleave(t), Width::from_bytes(iw)?));
    }
    None
}

#[cfg(feature = "selftest")]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
#[strider_kernels_macros::selftests]
mod tests {
    use super::*;
    use crate::plan::Plan;

    /// The strategy of a copy of `width`-byte elements from input byte `in_base` over `(extent, in_stride,
    /// out_stride)` dimensions (byte strides).
    fn strategy(width: usize, in_base: usize, dims: &[(usize, isize, isize)]) -> Strategy {
        let dims = dims.iter().map(|&(extent, in_stride, out_stride)| Dim { extent, in_stride, out_stride }).collect();
        Strategy::choose(&Walk::new(&Plan::copy(width, in_base, 0, dims)).unwrap()).unwrap()
    }

    fn kind(width: usize, dims: &[(usize, isize, isize)]) -> RowKind {
        strategy(width, 4096, dims).kind()
    }

    #[test]
    fn classify_rows() {
        assert_eq!(RowKind::classify(4, 4, 4), RowKind::Copy);
        assert_eq!(RowKind::classify(4, -4, 4), RowKind::Reverse);
        assert_eq!(RowKind::classify(4, 0, 4), RowKind::Broadcast);
        assert_eq!(RowKind::classify(4, -12, 4), RowKind::Gather { stride: -3 });
        assert_eq!(RowKind::classify(4, 6, 4), RowKind::Strided);
        assert_eq!(RowKind::classify(4, 4, 8), RowKind::Strided);
    }

    #[test]
    fn strategies_of_named_layouts() {
        assert_eq!(kind(4, &[(100, 4, 4)]), RowKind::Copy);
        assert_eq!(kind(1, &[(2, 64, 16), (16, 1, 1)]), RowKind::Table { len: 32 });
        // 2-D transpose: output rows of 20 (input stride 80), input rows of 20 contiguous.
        assert_eq!(kind(4, &[(20, 4, 80), (20, 80, 4)]), RowKind::Transpose { rows: 20 });
        assert_eq!(kind(2, &[(64, 2, 6), (3, 128, 2)]), RowKind::Interleave { planes: 3 });
        assert_eq!(kind(2, &[(3, 2, 128), (64, 6, 2)]), RowKind::Deinterleave { planes: 3 });
        // One value per channel spread over its plane (a per-channel bias materialized): broadcast rows, not a
        // transpose of identical input rows.
        assert_eq!(kind(4, &[(64, 4, 50176), (12544, 0, 4)]), RowKind::Broadcast);
    }

    /// Pixels in wider slots (RGBX, BGRA: 3 channels 4 elements apart, forwards or mirrored) deinterleave into
    /// planes through tables that skip the unused slot, like pixels that fill theirs; slots past 4, or narrower
    /// than the channels, have none.
    #[test]
    fn slotted_pixels_deinterleave() {
        let tables = |width: usize, dims: &[(usize, isize, isize)]| match strategy(width, 4096, dims).movement {
            Movement::Deinterleave(t) => Some((t.planes, t.slots, t.lead, t.reverse_pixels, t.reverse_channels)),
            _ => None,
        };
        assert_eq!(tables(2, &[(3, 2, 128), (64, 8, 2)]), Some((3, 4, 0, false, false)));
        assert_eq!(tables(2, &[(3, 2, 128), (64, -8, 2)]), Some((3, 4, 1, true, false)));
        assert_eq!(tables(1, &[(3, -1, 64), (64, 4, 1)]), Some((3, 4, 0, false, true)));
        assert_eq!(tables(4, &[(2, 4, 256), (64, 12, 4)]), Some((2, 3, 0, false, false)));
        assert_eq!(tables(2, &[(3, 2, 128), (64, 10, 2)]), None);
        assert_eq!(kind(2, &[(3, 2, 128), (64, 8, 2)]), RowKind::Deinterleave { planes: 3 });
    }

    /// One-byte pixels read mirrored, with their channels reversed, or out of wider slots, into a contiguous output
    /// take the windows that read them in order in registers (`Arch::convert_windows`); contiguous pixels need none,
    /// and wider elements, padded outputs and pixels too far apart for a load per 8 elements have none.
    #[test]
    fn byte_pixels_read_through_windows() {
        use crate::convert::ElemType::{F16, F32, U8};
        let windows = |from, to, dims: &[(usize, isize, isize)]| {
            let dims = dims.iter().map(|&(extent, in_stride, out_stride)| Dim { extent, in_stride, out_stride });
            let plan = Plan::new(ElementOp::Cast { from, to }, 16384, 0, dims.collect());
            match Strategy::choose(&Walk::new(&plan).unwrap()).unwrap().movement {
                Movement::Pixels { windows, .. } => Some(windows.map(|w| (w.channels, w.step))),
                m => panic!("{m:?}"),
            }
        };
        assert_eq!(windows(U8, F32, &[(1024, -3, 12), (3, 1, 4)]), Some(Some((3, -3))));
        assert_eq!(windows(U8, F32, &[(1024, 3, 12), (3, -1, 4)]), Some(Some((3, 3))));
        assert_eq!(windows(U8, F16, &[(1024, 4, 6), (3, 1, 2)]), Some(Some((3, 4))));
        assert_eq!(windows(U8, F16, &[(1024, -4, 8), (4, -1, 2)]), Some(Some((4, -4))));
        assert_eq!(windows(U8, F32, &[(1024, 8, 16), (4, 1, 4)]), Some(Some((4, 8))));
        assert_eq!(windows(U8, F32, &[(1024, 3, 12), (3, 1, 4)]), Some(None));
        assert_eq!(windows(F32, F16, &[(1024, -12, 6), (3, 4, 2)]), Some(None));
        assert_eq!(windows(U8, F32, &[(1024, -3, 16), (3, 1, 4)]), Some(None));
        assert_eq!(windows(U8, F32, &[(1024, 6, 12), (3, 1, 4)]), Some(None));
    }

    /// Pixels out of padded slots (RGBX → RGB: 3-byte elements 4 bytes apart) are strided rows that run through
    /// byte-shuffle lanes; elements written apart, or too far apart for a lane's windows, have none.
    #[test]
    fn unpadding_rows_take_shuffle_lanes() {
        let lanes = |width: usize, in_stride: isize, out_stride: isize| match strategy(
            width,
            4096,
            &[(64, in_stride, out_stride)],
        )
        .movement
        {
            Movement::Strided(lanes) => lanes.map(|l| (l.narrow.is_some(), l.wide.is_some())),
            ref m => panic!("{m:?}"),
        };
        assert_eq!(lanes(3, 4, 3), Some((true, true)));
        assert_eq!(lanes(6, 8, 6), Some((true, true)));
        assert_eq!(lanes(12, 16, 12), Some((false, true)));
        assert_eq!(lanes(3, -4, 3), Some((true, true)));
        // Into wider slots: no gathering lanes.
        assert_eq!(lanes(3, 3, 4), Some((false, false)));
        assert_eq!(lanes(3, 1000, 3), None);
    }

    /// Pins the streaming policy of transposes: output rows a multiple of an L1 way apart stream from half the
    /// threshold, other transposes (and copies) from the threshold itself — on whatever caches this host reports.
    #[test]
    fn transposes_into_aliased_rows_stream_from_half_the_threshold() {
        let threshold = CacheSizes::get().stream_threshold_for(1);
        // An f32 transpose of ni rows of nj (output rows ni elements apart) whose footprint (8·ni·nj bytes) is
        // `share` of the threshold.
        let transpose = |ni: usize, share: f64| {
            let nj = (threshold as f64 * share / (8 * ni) as f64) as usize;
            let s = strategy(4, 0, &[(nj, 4, 4 * ni as isize), (ni, 4 * nj as isize, 4)]);
            assert_eq!(s.kind(), RowKind::Transpose { rows: ni });
            s
        };
        // 4 KiB output rows: streamed from half the threshold on.
        assert!(transpose(1024, 0.75).stream(1, 0));
        assert!(!transpose(1024, 0.45).stream(1, 0));
        // 4160-byte rows: from the threshold.
        assert!(!transpose(1040, 0.75).stream(1, 0));
        assert!(transpose(1040, 1.05).stream(1, 0));
        // A copy of the same footprint as the streamed transpose: regular stores.
        let n = threshold * 3 / 4 / 8; // f32 elements: 8 bytes of footprint each
        assert!(!strategy(4, 0, &[(n, 4, 4)]).stream(1, 0));
    }

    /// Pins the streaming policy of short rows: copied ones stream from 2/3 of the threshold wherever the output
    /// is, gathered ones only as whole lines on line-aligned outputs, shorter ones and other kinds never; long rows
    /// from the threshold itself — on whatever caches this host reports.
    #[test]
    fn short_rows_stream_from_two_thirds_of_the_threshold() {
        let threshold = CacheSizes::get().stream_threshold_for(1);
        // Rows of `len` f32 read with input stride `k` elements from rows 64 KiB apart into packed output rows, as
        // many as make the footprint (`per` bytes of lines read and output per element) `share` of the threshold.
        let rows = |len: usize, k: isize, per: usize, share: f64| {
            let rows = (threshold as f64 * share / (per * len) as f64) as usize;
            strategy(4, 0, &[(rows, 65536, 4 * len as isize), (len, 4 * k, 4)])
        };
        let gather = |len: usize, share: f64| {
            let s = rows(len, 2, 12, share);
            assert_eq!(s.kind(), RowKind::Gather { stride: 2 });
            s
        };
        let copy = |len: usize, share: f64| {
            let s = rows(len, 1, 8, share);
            assert_eq!(s.kind(), RowKind::Copy);
            s
        };
        // 768-byte gathered rows (whole lines): from 2/3 of the threshold, on line-aligned outputs only; the
        // transposes' sweep choice sees the same threshold.
        assert!(gather(192, 0.7).stream(1, 0) && gather(192, 0.7).stream(1, 128));
        assert!(!gather(192, 0.7).stream(1, 16) && !gather(192, 0.7).stream(1, 4));
        assert!(!gather(192, 0.6).stream(1, 0));
        assert!(!gather(192, 0.7).cached() && gather(192, 0.6).cached());
        // 600-byte rows: copied ones stream wherever the output is, gathered ones (sharing lines) never.
        assert!(copy(150, 0.7).stream(1, 0) && copy(150, 0.7).stream(1, 16));
        assert!(!copy(150, 0.6).stream(1, 16));
        assert!(!gather(150, 2.0).stream(1, 0));
        // Rows under 512 bytes never.
        assert!(!copy(100, 2.0).stream(1, 0));
        // Long rows from the whole threshold, wherever the output is.
        assert!(!copy(2048, 0.9).stream(1, 0));
        assert!(copy(2048, 1.05).stream(1, 16) && copy(2048, 1.05).stream(1, 4));
    }

    /// Pins where the store kind is measured: rows the rule streams, footprints below [`params::STORE_PROBE_BAND`]
    /// times the threshold of the thread count, not transposes, on whatever caches this host reports.
    #[test]
    fn store_kinds_are_measured_just_above_the_threshold_only() {
        use super::StoreChoice::{Measured, Rule};
        let band = params::STORE_PROBE_BAND as f64;
        // Rows of `len` f32 read with input stride `k` from rows 64 KiB apart, as many as make the footprint (`per`
        // bytes each) `share` of the threshold of `threads` threads.
        let rows = |threads: usize, len: usize, k: isize, per: usize, share: f64| {
            let threshold = CacheSizes::get().stream_threshold_for(threads);
            let rows = (threshold as f64 * share / (per * len) as f64) as usize;
            strategy(4, 0, &[(rows, 65536, 4 * len as isize), (len, 4 * k, 4)])
        };
        let long = |share: f64| rows(1, 2048, 1, 8, share).store_choice(1, 0);
        assert_eq!(long(0.95), Rule(false));
        assert_eq!(long(1.05), Measured { rule: true });
        assert_eq!(long(0.95 * band), Measured { rule: true });
        assert_eq!(long(1.05 * band), Rule(true));
        // Split across two threads: their own threshold.
        assert_eq!(rows(2, 2048, 1, 8, 1.05).store_choice(2, 0), Measured { rule: true });
        assert_eq!(rows(2, 2048, 1, 8, 1.05 * band).store_choice(2, 0), Rule(true));
        // Rows that never stream: the rule (regular stores).
        assert_eq!(rows(1, 100, 1, 8, 1.05).store_choice(1, 0), Rule(false));
        // Gathered short rows of whole lines (streamed from 2/3 of the threshold): on line-aligned outputs only.
        assert_eq!(rows(1, 192, 2, 12, 1.0).store_choice(1, 0), Measured { rule: true });
        assert_eq!(rows(1, 192, 2, 12, 1.0).store_choice(1, 16), Rule(false));
        // A transpose the rule streams: the rule.
        let threshold = CacheSizes::get().stream_threshold_for(1);
        let (ni, nj) = (1040, threshold * 21 / 20 / (8 * 1040));
        let transpose = strategy(4, 0, &[(nj, 4, 4 * ni as isize), (ni, 4 * nj as isize, 4)]);
        assert_eq!(transpose.kind(), RowKind::Transpose { rows: ni });
        assert_eq!(transpose.store_choice(1, 0), Rule(true));
    }

    #[test]
    fn short_runs_of_rows_are_lengthened_in_cache_only() {
        // 64-byte reversed rows (i16) in runs of 4 under a dimension of 32: in cache the 32 go innermost.
        let geometry = |scale: usize| {
            let s = strategy(2, 62, &[(2 * scale, 65536, 8192), (32, 512, 256), (4, 64, 64), (32, -2, 2)]);
            assert_eq!(s.kind(), RowKind::Reverse);
            let g = s.geometry();
            (g.outer_rank(), g.extents()[..g.outer_rank()].to_vec(), g.in_strides()[..g.outer_rank()].to_vec())
        };
        assert_eq!(geometry(1), (3, vec![2, 4, 32], vec![65536, 64, 512]));
        // Beyond the L2 cache the walk keeps its order (and its prefetch-friendly access pattern).
        let big = CacheSizes::get().l2() / 16384 + 1; // 16 KiB of output per unit of scale
        assert_eq!(geometry(big), (3, vec![2 * big, 32, 4], vec![65536, 512, 64]));
    }

    #[test]
    fn table_rows_of_the_public_rank8_case_run_through_lanes() {
        let dims = [(3, 32768, 1536), (3, 8192, 512), (4, -2048, 128), (2, 1024, 64), (2, -256, 32), (4, 32, 8)];
        let dims: Vec<_> = dims.iter().chain(&[(2, -24, 4), (2, 6, 2)]).copied().collect();
        let s = strategy(2, 14744, &dims);
        assert_eq!(s.kind(), RowKind::Table { len: 256 });
        let Movement::Table(lanes) = s.movement() else { panic!("{:?}", s.movement()) };
        // All eight 64-byte lanes, all 32 16-byte lanes and their 16 pairs: the whole 512-byte row runs through
        // registers.
        assert_eq!((lanes.wide.len(), lanes.narrow.len(), lanes.pairs.len()), (8, 32, 16));
    }
}
