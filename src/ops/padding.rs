//! `DML_PADDING` / `DML_PADDING1`: the input in the middle of a larger output, its borders a constant or copies of
//! the input (edge, reflection, symmetric, wrap), as NumPy's `np.pad` computes them.
//!
//! Plan: the interior is one copy from the input. A constant border is a fill of one slab per side and dimension.
//! The other modes fill the borders dimension by dimension, each in a stage of its own, from what the output
//! already holds: the borders of dimension `d` cover the whole output in the dimensions before `d` (padded by the
//! earlier stages) and the interior after it, and read the output's interior along `d`. Along `d` a border is a few
//! runs, each an affine map of the interior (ascending, descending or constant); a border wider than one period of
//! the mode (`2(n − 1)` for reflection, `2n` symmetric, `n` wrap) is filled period by period in further stages,
//! each copying the periods already written — so a border of any width costs a logarithmic number of moves.

use strider_kernels::{ElementOp, Plan, RowKind};

use crate::engine::{Builder, Engine, From, Region};
use crate::ops::{Tensor, check_operands, put, reference_each};
use crate::{Element, Error, ExecOptions, Operand, Scalar, TensorDesc};

/// How a padding fills the borders (`DML_PADDING_MODE`), with NumPy's `np.pad` mode of the same result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaddingMode {
    /// A constant value (`"constant"`).
    Constant,
    /// The edge element repeated (`"edge"`).
    Edge,
    /// The input mirrored about its edge element, which is not repeated (`"reflect"`): `3 2 | 1 2 3 | 2 1`.
    Reflection,
    /// The input mirrored about its edge, the edge element repeated (`"symmetric"`): `2 1 | 1 2 3 | 3 2`.
    Symmetric,
    /// The input repeated (`"wrap"`): `2 3 | 1 2 3 | 1 2`.
    Wrap,
}

impl PaddingMode {
    /// DirectML's value (`DML_PADDING_MODE_CONSTANT` 0 … `WRAP` 4).
    pub fn dml_value(self) -> u32 {
        match self {
            PaddingMode::Constant => 0,
            PaddingMode::Edge => 1,
            PaddingMode::Reflection => 2,
            PaddingMode::Symmetric => 3,
            PaddingMode::Wrap => 4,
        }
    }

    /// The mode of a DirectML value; `None` for any other.
    pub fn from_dml_value(value: u32) -> Option<PaddingMode> {
        Some(match value {
            0 => PaddingMode::Constant,
            1 => PaddingMode::Edge,
            2 => PaddingMode::Reflection,
            3 => PaddingMode::Symmetric,
            4 => PaddingMode::Wrap,
            _ => return None,
        })
    }

    /// The input index (from 0) that output index `t` (counted from the first interior element, negative before
    /// it) copies, for an input of `n ≥ 1` elements (`n ≥ 2` for reflection); `None` for a constant. (Indices of
    /// u32 sizes: every value here is far inside i64.)
    pub(crate) fn source_index(self, t: i64, n: i64) -> Option<i64> {
        let last = n.saturating_sub(1);
        let mirror = |period: i64, top: i64| {
            let u = t.checked_rem_euclid(period).unwrap_or(0);
            if u < n { u } else { top.saturating_sub(u) }
        };
        match self {
            PaddingMode::Constant => None,
            PaddingMode::Edge => Some(t.clamp(0, last)),
            // Period 2(n − 1); u ≤ n − 1 ascends, the rest descends to 1.
            PaddingMode::Reflection => Some(mirror(last.saturating_mul(2), last.saturating_mul(2))),
            PaddingMode::Symmetric => Some(mirror(n.saturating_mul(2), n.saturating_mul(2).saturating_sub(1))),
            PaddingMode::Wrap => Some(t.checked_rem_euclid(n).unwrap_or(0)),
        }
    }

    /// The mode's period along a dimension of `n` elements (the distance after which the border repeats).
    fn period(self, n: u64) -> u64 {
        match self {
            PaddingMode::Reflection => n.saturating_sub(1).saturating_mul(2),
            PaddingMode::Symmetric => n.saturating_mul(2),
            PaddingMode::Wrap => n,
            PaddingMode::Constant | PaddingMode::Edge => u64::MAX,
        }
    }
}

/// `DML_PADDING1_OPERATOR_DESC`, validated and planned: `np.pad(input, zip(start, end), mode)`.
///
/// Output size `i` is `input size + start[i] + end[i]`; the input lands at offset `start` of the output. Borders
/// wider than the input fold as NumPy's do (a reflection of 2 elements padded by 5 alternates them). Every
/// operand layout works (padded, broadcast and permuted inputs, any injective output); the value of a constant
/// padding is a [`Scalar`] of the output's data type (DirectML's `PaddingValueDataType` must equal it; the older
/// `DML_PADDING`'s `FLOAT` value converts first: [`Scalar::cast`]).
///
/// # Examples
///
/// A letterbox: a 2×3 image between rows of 114.
///
/// ```
/// use strider::{DataType, Padding, PaddingMode, Scalar, TensorDesc};
/// let input = TensorDesc::new(DataType::Uint8, &[2, 3])?;
/// let output = TensorDesc::new(DataType::Uint8, &[4, 3])?;
/// let pad = Padding::new(&input, &output, PaddingMode::Constant, Scalar::from(114u8), &[1, 0], &[1, 0])?;
/// let mut y = [0u8; 12];
/// pad.execute(&[1, 2, 3, 4, 5, 6], &mut y)?;
/// assert_eq!(y, [114, 114, 114, 1, 2, 3, 4, 5, 6, 114, 114, 114]);
///
/// // Reflection along the last axis: 2 1 | 1 2 3 | 2 → 3 2 | 1 2 3 | 2 1
/// let (row, wide) = (TensorDesc::new(DataType::Int32, &[3])?, TensorDesc::new(DataType::Int32, &[7])?);
/// let mirror = Padding::new(&row, &wide, PaddingMode::Reflection, Scalar::from(0i32), &[2], &[2])?;
/// let mut z = [0i32; 7];
/// mirror.execute_typed(&[1, 2, 3], &mut z)?;
/// assert_eq!(z, [3, 2, 1, 2, 3, 2, 1]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Padding {
    engine: Engine,
    mode: PaddingMode,
    value: Scalar,
    start: Vec<u32>,
    end: Vec<u32>,
}

/// One run of a border along a dimension: `len` output positions from `o` (absolute) copying the output's own
/// positions from `from`, ascending (`step` 1), descending (−1) or the same one (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    o: u64,
    len: u64,
    from: u64,
    step: i64,
}

/// The runs of a border of mode `mode` along a dimension whose interior is `[s, s + n)` and whose borders are `s`
/// before and `e` after, in stages: the first stage copies the interior (at most one period next to it on each
/// side, a few runs), each later stage copies the periods written before it, doubling the width done.
fn border_stages(mode: PaddingMode, s: u64, n: u64, e: u64) -> Vec<Vec<Run>> {
    // Positions are sums of three u32 values and indices fit i64: the saturating operations below never saturate.
    let period = mode.period(n).max(1);
    let (ni, si) = (n as i64, s as i64);
    let interior_end = s.saturating_add(n);
    // Runs of the affine pieces of the mode's map over output positions [lo, hi).
    let direct = |lo: u64, hi: u64| {
        let mut runs = Vec::new();
        let mut o = lo;
        while o < hi {
            let t = (o as i64).saturating_sub(si);
            let g = mode.source_index(t, ni).unwrap_or(0);
            // The run continues while the map keeps its slope: find its length from the next index.
            let (step, len) = match mode {
                PaddingMode::Edge if t < 0 => (0, t.unsigned_abs()),
                PaddingMode::Edge => (0, hi.saturating_sub(o)),
                _ => {
                    let next = mode.source_index(t.saturating_add(1), ni).unwrap_or(g);
                    let step = next.saturating_sub(g);
                    // Ascending up to n − 1 (or down to 0): the count left before the map turns or wraps.
                    let left = match step {
                        1 => ni.saturating_sub(1).saturating_sub(g),
                        -1 => g,
                        _ => 0,
                    };
                    (step, left.unsigned_abs().saturating_add(1))
                }
            };
            let len = len.min(hi.saturating_sub(o));
            let step = if len == 1 { 1 } else { step };
            runs.push(Run { o, len, from: s.saturating_add(g.unsigned_abs()), step });
            o = o.saturating_add(len);
        }
        runs
    };
    let near_before = s.min(period);
    let near_after = e.min(period);
    let first =
        [direct(s.saturating_sub(near_before), s), direct(interior_end, interior_end.saturating_add(near_after))];
    let mut stages = vec![first.concat()];
    // Periods copied outwards: `done_b` / `done_a` positions are written on each side.
    let (mut done_b, mut done_a) = (near_before, near_after);
    while done_b < s || done_a < e {
        let mut runs = Vec::new();
        // Whole periods already written next to the interior, copied `shift` further out (at least one period:
        // the first stage wrote one whenever the border is wider).
        let whole = |done: u64| done.checked_div(period).unwrap_or(0).saturating_mul(period);
        if done_b < s {
            let shift = whole(done_b);
            let len = shift.min(s.saturating_sub(done_b));
            let o = s.saturating_sub(done_b).saturating_sub(len);
            runs.push(Run { o, len, from: o.saturating_add(shift), step: 1 });
            done_b = done_b.saturating_add(len);
        }
        if done_a < e {
            let shift = whole(done_a);
            let len = shift.min(e.saturating_sub(done_a));
            let o = interior_end.saturating_add(done_a);
            runs.push(Run { o, len, from: o.saturating_sub(shift), step: 1 });
            done_a = done_a.saturating_add(len);
        }
        stages.push(runs);
    }
    stages.retain(|runs| !runs.is_empty());
    stages
}

impl Padding {
    /// Validates and plans the padding.
    ///
    /// # Errors
    ///
    /// - [`Error::RankMismatch`], [`Error::DataTypeMismatch`], [`Error::ArgumentLength`]: the tensors or the
    ///   `start` and `end` lists disagree;
    /// - [`Error::ScalarDataTypeMismatch`]: `value` is not of the output's data type (in every mode);
    /// - [`Error::OperandSizeMismatch`]: an output size is not `input size + start + end`;
    /// - [`Error::ReflectionOfSingleElement`]: reflection padding of a dimension of size 1;
    /// - [`Error::OverlappingOutput`], [`Error::OverlapUndecided`]: the output maps two coordinates to one element.
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        mode: PaddingMode,
        value: Scalar,
        start: &[u32],
        end: &[u32],
    ) -> Result<Padding, Error> {
        let rank = check_operands(input, output, &[("start", start.len()), ("end", end.len())])?;
        if value.data_type() != output.data_type() {
            return Err(Error::ScalarDataTypeMismatch {
                argument: "value",
                data_type: value.data_type(),
                expected: output.data_type(),
            });
        }
        for dim in 0..rank {
            let n = input.sizes()[dim];
            let expected = u64::from(n).saturating_add(u64::from(start[dim])).saturating_add(u64::from(end[dim]));
            let size = output.sizes()[dim];
            if u64::from(size) != expected {
                let why = "the input's size plus the start and end padding";
                return Err(Error::OperandSizeMismatch { operand: Operand::Output, dim, size, expected, why });
            }
            if mode == PaddingMode::Reflection && n == 1 && (start[dim] > 0 || end[dim] > 0) {
                return Err(Error::ReflectionOfSingleElement { dim, start: start[dim], end: end[dim] });
            }
        }
        let mut b = Builder::new(core::slice::from_ref(input), core::slice::from_ref(output))?;
        let pads = Pads { input, output, mode, value, start, end };
        match blocks(input, output, mode, start, end) {
            // Block by block, each block's moves in one stage: they conflict, so they run in order on one thread.
            Some(blocks) => blocks.iter().try_for_each(|(lo, sizes)| pads.plan(&mut b, lo, sizes, false))?,
            None => pads.plan(&mut b, &[], &[], true)?,
        }
        Ok(Padding { engine: b.finish(true)?, mode, value, start: start.to_vec(), end: end.to_vec() })
    }

    operator_methods!(Padding, one_type);

    /// The same result by the slowest, most obvious method: one loop over output coordinates, each element the
    /// value or the input element NumPy's rule names. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Padding::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_buffers(input, output)?;
        let x = Tensor::new(self.input(), input);
        let n = |d: usize| i64::from(self.input().sizes()[d]);
        reference_each(self.output(), output, |c, y| {
            let mut at = Vec::with_capacity(c.len());
            for (d, &o) in c.iter().enumerate() {
                let t = i64::from(o).saturating_sub(i64::from(self.start[d])); // u32 − u32
                let index = if (0..n(d)).contains(&t) { Some(t) } else { self.mode.source_index(t, n(d)) };
                match index {
                    Some(i) => at.push(i as u32),
                    None => return put(y, self.value.bytes()),
                }
            }
            put(y, x.element(&at));
        });
        Ok(())
    }

    /// The mode.
    pub fn mode(&self) -> PaddingMode {
        self.mode
    }

    /// The value of a constant padding.
    pub fn value(&self) -> Scalar {
        self.value
    }

    /// Elements added before the input in each dimension.
    pub fn start(&self) -> &[u32] {
        &self.start
    }

    /// Elements added after the input in each dimension.
    pub fn end(&self) -> &[u32] {
        &self.end
    }
}

/// Output bytes of a block of a blocked padding that [`blocks`] aims for: the block's moves run one after the other,
/// so its interior is still in L2 when its borders read it back.
///
/// PERF: the public f32 1×64×256² reflect-padded by 3 on H and W (Zen 4 VM, `--isa v3`, tight loops, µs): the
/// whole interior copied, then every border (each row's first and last lines read back from L3, the border moves on
/// one thread) 647–683 at one thread, 369–461 at two; by blocks of one plane 553–565 and 182–292 (torch's `F.pad`
/// in the same session: 552 and 399).
const BLOCK_BYTES: u64 = 256 << 10;

/// Largest output bytes of one index of the block dimension that [`blocks`] blocks by: a block must fit in L2 for
/// its borders to find the interior there (512 KiB on Zen 3), and stay under the batch's parallel grain (1 MiB) for
/// the blocks to spread over the threads (larger groups run move by move, each split across the pool).
const BLOCK_MAX_BYTES: u64 = 512 << 10;

/// Most blocks a padding is planned in: each is a few moves, planned and proven when the operator is built (about
/// 1.2–1.7 µs a move on the Zen 4 VM: the public case's 64 blocks of 5 moves take 0.54 ms to build, against 37 µs
/// for the 5 moves of one pass). Past it, blocks grow up to [`BLOCK_MAX_BYTES`].
const MAX_BLOCKS: u64 = 256;

/// Outputs smaller than this are planned in one pass: they stay in the caches between the interior and the
/// borders, and blocks would only cost building.
const BLOCK_MIN_OUTPUT_BYTES: u64 = 2 << 20;

/// The blocks of a padding whose leading dimensions are not padded, as (lo, sizes) along those dimensions: boxes
/// along the last of them, every index of the ones before; `None` (one pass: the interior, then the borders) when
/// no dimension leads unpadded, when the mode is a constant (its fills need no interior), when the output is under
/// [`BLOCK_MIN_OUTPUT_BYTES`], when a block could not fit in L2, when there would be one block or more than
/// [`MAX_BLOCKS`], or when the leading dimensions are not the outer ones in the output's memory (blocks must write
/// apart for their moves to run on different threads).
fn blocks(
    input: &TensorDesc,
    output: &TensorDesc,
    mode: PaddingMode,
    start: &[u32],
    end: &[u32],
) -> Option<Vec<(Vec<u32>, Vec<u32>)>> {
    let lead = start.iter().zip(end).take_while(|&(&s, &e)| s == 0 && e == 0).count();
    let rank = start.len();
    if lead == 0 || lead == rank || mode == PaddingMode::Constant {
        return None;
    }
    let sizes = output.sizes();
    let strides = output.strides();
    // Each leading dimension steps over all the dimensions after it.
    for d in 0..lead {
        let span = (d.saturating_add(1)..rank).fold(1u64, |acc, e| {
            acc.saturating_add(u64::from(strides[e]).saturating_mul(u64::from(sizes[e]).saturating_sub(1)))
        });
        if u64::from(strides[d]) < span {
            return None;
        }
    }
    let width = input.data_type().size_in_bytes() as u64;
    let per_index = sizes[lead..].iter().fold(width, |acc, &n| acc.saturating_mul(u64::from(n)));
    if per_index == 0 || per_index > BLOCK_MAX_BYTES {
        return None;
    }
    let bd = lead.saturating_sub(1);
    if sizes[..lead].contains(&0) {
        return None;
    }
    let outer = sizes[..bd].iter().fold(1u64, |acc, &n| acc.saturating_mul(u64::from(n)));
    let total = sizes[..lead].iter().fold(per_index, |acc, &n| acc.saturating_mul(u64::from(n)));
    if total < BLOCK_MIN_OUTPUT_BYTES {
        return None;
    }
    // Blocks of about BLOCK_BYTES, larger (up to BLOCK_MAX_BYTES) where they would be more than MAX_BLOCKS.
    let fewest = u64::from(sizes[bd]).div_ceil((MAX_BLOCKS.checked_div(outer).unwrap_or(0)).max(1));
    let per = (BLOCK_BYTES.checked_div(per_index).unwrap_or(1).max(fewest))
        .min(BLOCK_MAX_BYTES.checked_div(per_index).unwrap_or(1))
        .clamp(1, u64::from(sizes[bd]));
    let count = outer.saturating_mul(u64::from(sizes[bd]).div_ceil(per));
    if !(2..=MAX_BLOCKS).contains(&count) {
        return None;
    }
    let mut out = Vec::with_capacity(count as usize);
    for o in 0..outer {
        // The index of every dimension before `bd` (C order).
        let mut lo = vec![0u32; lead];
        let mut rest = o;
        for d in (0..bd).rev() {
            let n = u64::from(sizes[d]);
            // (n ≥ 1: the outer count is not 0.)
            lo[d] = rest.checked_rem(n).unwrap_or(0) as u32;
            rest = rest.checked_div(n).unwrap_or(0);
        }
        let mut first = 0u64;
        while first < u64::from(sizes[bd]) {
            let len = per.min(u64::from(sizes[bd]).saturating_sub(first));
            let mut block_sizes = vec![1u32; lead];
            (lo[bd], block_sizes[bd]) = (first as u32, len as u32);
            out.push((lo.clone(), block_sizes));
            first = first.saturating_add(len);
        }
    }
    Some(out)
}

/// A padding's operands and parameters, planned over the whole output or block by block.
struct Pads<'a> {
    input: &'a TensorDesc,
    output: &'a TensorDesc,
    mode: PaddingMode,
    value: Scalar,
    start: &'a [u32],
    end: &'a [u32],
}

impl Pads<'_> {
    /// Adds the moves of the part of the output whose leading dimensions lie in `lo .. lo + sizes` (none given: the
    /// whole output): the interior, then the borders dimension by dimension — each border stage after a
    /// [`Builder::next_stage`] with `staged`, else in the current stage (the caller's blocks: the moves of a block
    /// conflict and run in the order added).
    fn plan(&self, b: &mut Builder, lo: &[u32], sizes: &[u32], staged: bool) -> Result<(), Error> {
        let Pads { input, output, mode, value, start, end } = *self;
        let rank = start.len();
        let out_sizes = output.sizes();
        let out_strides = output.signed_strides();
        // A box within the block: its leading dimensions are the block's.
        let within = |mut r: Region| {
            for (d, (&l, &n)) in lo.iter().zip(sizes).enumerate() {
                (r.lo[d], r.sizes[d]) = (l, n);
            }
            r
        };
        let interior = within(Region { output: 0, lo: start.to_vec(), sizes: input.sizes().to_vec() });
        let mut at = vec![0u32; rank];
        at[..lo.len()].copy_from_slice(lo);
        let in_base = input.offset_of(&at).ok_or_else(|| Error::Internal { detail: "block outside".to_owned() })?;
        let width = input.data_type().size_in_bytes();
        b.copy(From::Input(0), interior, &input.signed_strides(), in_base, ElementOp::Copy { width })?;
        // The box of a border along `d`: everything before `d`, `range` along it, the interior after it.
        let border = |d: usize, o: u64, len: u64| {
            let mut r = Region::whole(0, out_sizes);
            for (e, (lo, size)) in r.lo.iter_mut().zip(&mut r.sizes).enumerate().skip(d.saturating_add(1)) {
                (*lo, *size) = (start[e], input.sizes()[e]);
            }
            // Within the output's size (a u32) by construction.
            (r.lo[d], r.sizes[d]) = (o as u32, len as u32);
            within(r)
        };
        for d in 0..rank {
            let (s, n, e) = (u64::from(start[d]), u64::from(input.sizes()[d]), u64::from(end[d]));
            if s == 0 && e == 0 {
                continue;
            }
            if mode == PaddingMode::Constant {
                for (o, len) in [(0, s), (s.saturating_add(n), e)] {
                    if len > 0 {
                        b.fill(border(d, o, len), value)?;
                    }
                }
                continue;
            }
            for runs in border_stages(mode, s, n, e) {
                if staged {
                    b.next_stage();
                }
                for run in runs {
                    let region = border(d, run.o, run.len);
                    // The source: the same coordinates but along `d`, where it starts at `run.from` and steps by
                    // `run.step`.
                    let mut from_lo = region.lo.clone();
                    from_lo[d] = run.from as u32;
                    let base = output
                        .offset_of(&from_lo)
                        .ok_or_else(|| Error::Internal { detail: "padding source overflows".to_owned() })?;
                    let mut strides = out_strides.clone();
                    strides[d] = strides[d].saturating_mul(run.step);
                    b.copy(From::Output(0), region, &strides, base, ElementOp::Copy { width })?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
mod tests {
    use super::*;

    /// Every position of every border is written by exactly one run, with NumPy's index.
    #[test]
    fn border_runs_cover_the_borders_with_numpys_indices() {
        for mode in [PaddingMode::Edge, PaddingMode::Reflection, PaddingMode::Symmetric, PaddingMode::Wrap] {
            for n in 1..7u64 {
                if mode == PaddingMode::Reflection && n == 1 {
                    continue;
                }
                for (s, e) in [(0, 1), (1, 0), (2, 3), (5, 17), (40, 1), (0, 0)] {
                    let total = s + n + e;
                    // What each position holds: the interior's input index, or after the runs, the copies.
                    let mut held: Vec<Option<i64>> =
                        (0..total).map(|o| (s..s + n).contains(&o).then(|| o as i64 - s as i64)).collect();
                    for runs in border_stages(mode, s, n, e) {
                        let before = held.clone();
                        for r in runs {
                            for k in 0..r.len {
                                let (o, f) = (r.o + k, (r.from as i64 + r.step * k as i64) as u64);
                                assert!(held[o as usize].is_none() || (s..s + n).contains(&o), "{mode:?} {o} twice");
                                assert!(
                                    before[f as usize].is_some(),
                                    "{mode:?} n {n} s {s} e {e}: {f} not yet written"
                                );
                                held[o as usize] = before[f as usize];
                            }
                        }
                    }
                    for o in 0..total {
                        let want = mode.source_index(o as i64 - s as i64, n as i64);
                        assert_eq!(held[o as usize], want, "{mode:?} n {n} s {s} e {e} position {o}");
                    }
                }
            }
        }
    }

    /// Which paddings run block by block, and their blocks.
    #[test]
    fn blocks_of_unpadded_leading_dimensions() {
        let f32s = |sizes: &[u32]| TensorDesc::new(crate::DataType::Float32, sizes).unwrap();
        let reflect = PaddingMode::Reflection;
        let (start, end) = ([0, 0, 3, 3], [0, 0, 3, 3]);
        // The public case: one plane of 274 KB per block.
        let (x, y) = (f32s(&[1, 64, 256, 256]), f32s(&[1, 64, 262, 262]));
        let b = blocks(&x, &y, reflect, &start, &end).unwrap();
        assert_eq!(b.len(), 64);
        assert_eq!(b[5], (vec![0, 5], vec![1, 1]));
        // Small planes: several per block (256 KiB / 5184 bytes = 50), the last block the rest; every batch index.
        let (x, y) = (f32s(&[4, 120, 30, 30]), f32s(&[4, 120, 36, 36]));
        let b = blocks(&x, &y, reflect, &start, &end).unwrap();
        assert_eq!(b.len(), 12);
        assert_eq!((b[2].clone(), b[3].clone()), ((vec![0, 100], vec![1, 20]), (vec![1, 0], vec![1, 50])));
        // Many planes: blocks grow to stay at most 256 (64 planes of 4624 bytes, not 56), then at most 512 KiB.
        let pad1 = ([0, 0, 1, 1], [0, 0, 1, 1]);
        let b = blocks(&f32s(&[64, 256, 32, 32]), &f32s(&[64, 256, 34, 34]), reflect, &pad1.0, &pad1.1).unwrap();
        assert_eq!((b.len(), b[1].clone()), (256, (vec![0, 64], vec![1, 64])));
        assert!(blocks(&f32s(&[128, 256, 32, 32]), &f32s(&[128, 256, 34, 34]), reflect, &pad1.0, &pad1.1).is_none());
        // No blocks: a constant (its fills need no interior), the first dimension padded, planes beyond 512 KiB,
        // outputs under 2 MiB (they stay in the caches), and an output whose planes are not apart in memory (NHWC
        // strides for an NCHW box).
        assert!(blocks(&x, &y, PaddingMode::Constant, &start, &end).is_none());
        assert!(
            blocks(&f32s(&[1, 1, 30, 30]), &f32s(&[3, 1, 36, 36]), reflect, &[1, 0, 3, 3], &[1, 0, 3, 3]).is_none()
        );
        assert!(blocks(&f32s(&[1, 4, 400, 400]), &f32s(&[1, 4, 406, 406]), reflect, &start, &end).is_none());
        assert!(blocks(&f32s(&[1, 2, 300, 300]), &f32s(&[1, 2, 306, 306]), reflect, &start, &end).is_none());
        assert!(blocks(&f32s(&[1, 3, 224, 224]), &f32s(&[1, 3, 230, 230]), reflect, &start, &end).is_none());
        let nhwc =
            TensorDesc::with_strides(crate::DataType::Float32, &[1, 64, 262, 262], &[64 * 262 * 262, 1, 262 * 64, 64]);
        assert!(blocks(&f32s(&[1, 64, 256, 256]), &nhwc.unwrap(), reflect, &start, &end).is_none());
    }

    #[test]
    fn wide_borders_take_few_stages() {
        // A border of a million positions beside 3 elements: log₂ of the periods, not a run per period.
        let stages = border_stages(PaddingMode::Reflection, 1 << 20, 3, 1 << 20);
        assert!(stages.len() <= 22, "{}", stages.len());
        assert!(stages.iter().all(|s| s.len() <= 4));
    }
}
