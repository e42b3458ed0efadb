//! What every operator shares after its own validation: the output-overlap check, planning, the proof that the
//! moves of an operator write each output element once, and the checked execution of the whole list.
//!
//! An operator is a list of *moves* — strided copies (or conversions) from an input, from an output written in an
//! earlier stage, from a constant, or from nothing (a sequence) — each writing a *region* (a box of coordinates) of
//! one output. [`Builder`] plans each move ([`plan`]) and, when it finishes, proves over the regions that no two moves
//! write the same output element and (where the operator says so) that together they write every one; the kernels'
//! [`Batch`] proves the memory safety of running them, on any number of threads.

use strider_kernels::{Batch, ElementOp, ExecOptions, Move, Plan, Program, RowKind, RunError, Source};
use strider_kernels::{
    Component, Dim, IndexDim, IndexError, IndexPlan, IndexProgram, IndexType, OutOfRange, RowCopy, Side,
};
use strider_kernels::{Overlap, ResizePlan, ResizeProgram, find_overlap};

use crate::plan::{Problem, plan};
use crate::{Element, Error, Operand, Scalar, TensorDesc};

/// Rejects an output layout that maps two coordinates to one element (writes would race and the result would
/// depend on the order).
pub(crate) fn check_output_disjoint(output: &TensorDesc) -> Result<(), Error> {
    let sizes: Vec<u64> = output.sizes().iter().map(|&n| u64::from(n)).collect();
    let strides: Vec<i64> = output.strides().iter().map(|&s| i64::from(s)).collect();
    match find_overlap(&sizes, &strides) {
        Overlap::Disjoint => Ok(()),
        Overlap::Collision { first, second } => {
            Err(Error::OverlappingOutput { strides: output.strides().to_vec(), first, second })
        }
        Overlap::Undecided => {
            Err(Error::OverlapUndecided { sizes: output.sizes().to_vec(), strides: output.strides().to_vec() })
        }
    }
}

/// Where a move reads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum From {
    /// Input `i`.
    Input(usize),
    /// Output `k` as earlier stages wrote it.
    Output(usize),
    /// A constant.
    Value(Scalar),
}

/// A box of coordinates of one output: `lo[d] .. lo[d] + sizes[d]` in every dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) output: usize,
    pub(crate) lo: Vec<u32>,
    pub(crate) sizes: Vec<u32>,
}

impl Region {
    /// All of output `output` of `sizes`.
    pub(crate) fn whole(output: usize, sizes: &[u32]) -> Region {
        Region { output, lo: vec![0; sizes.len()], sizes: sizes.to_vec() }
    }

    /// The number of coordinates (u32 sizes: at most 2^256, so u128 saturates only past 4 dimensions of 2^32).
    fn volume(&self) -> u128 {
        self.sizes.iter().fold(1u128, |v, &n| v.saturating_mul(u128::from(n)))
    }

    /// Whether the two boxes share no coordinate (some dimension where their ranges are apart).
    fn apart(&self, other: &Region) -> bool {
        let end = |lo: u32, n: u32| u64::from(lo).saturating_add(u64::from(n));
        self.output != other.output
            || (0..self.lo.len()).any(|d| {
                end(self.lo[d], self.sizes[d]) <= u64::from(other.lo[d])
                    || end(other.lo[d], other.sizes[d]) <= u64::from(self.lo[d])
            })
            || self.volume() == 0
            || other.volume() == 0
    }
}

/// Collects an operator's moves stage by stage, then proves and plans them ([`Builder::finish`]).
pub(crate) struct Builder {
    inputs: Vec<TensorDesc>,
    outputs: Vec<TensorDesc>,
    stages: Vec<Vec<Move>>,
    /// Every region written, for the proof.
    written: Vec<Region>,
    /// The move driven by an index tensor, run after every stage.
    indexed: Option<Indexed>,
    /// A resize, run after every stage.
    resized: Option<Resized>,
}

/// A proven resize from input 0 into output 0 (with its fused epilogue, if any).
#[derive(Clone, Debug)]
struct Resized {
    program: ResizeProgram,
    /// A copy into the elements it writes, for `plan()` and `row_kind()`.
    block: Program,
}

/// One dimension of an [`IndexedMove`]'s positions: element strides in the indices, the source and the output, and
/// the dimension of the indices tensor it walks (for naming a position in errors).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PositionDim {
    pub(crate) extent: u32,
    pub(crate) index: i64,
    pub(crate) src: i64,
    pub(crate) dst: i64,
    pub(crate) index_dim: Option<usize>,
}

/// A move whose addresses depend on the values of an index tensor (gather, scatter, one-hot), in elements of its
/// tensors; see [`strider_kernels::IndexPlan`] for the meaning of each field.
#[derive(Clone, Debug)]
pub(crate) struct IndexedMove {
    /// The input holding the indices.
    pub(crate) indices: usize,
    /// The input read.
    pub(crate) source: usize,
    /// The output written.
    pub(crate) output: usize,
    pub(crate) dims: Vec<PositionDim>,
    /// Element offset in the indices of the first position's tuple.
    pub(crate) index_base: u64,
    /// Element step between the indices of a tuple, and the indices dimension it walks.
    pub(crate) tuple: (i64, Option<usize>),
    /// Per index of a tuple: the size of the dimension it addresses and the element step there.
    pub(crate) components: Vec<(u32, i64)>,
    pub(crate) src_base: u64,
    pub(crate) dst_base: u64,
    pub(crate) side: Side,
    /// The block: extent, source step, output step.
    pub(crate) block: Vec<(u32, i64, i64)>,
    pub(crate) out_of_range: OutOfRange,
    /// Rows of an input copied into the output just before the updates of each outermost position (a scatter's
    /// data, see [`strider_kernels::RowCopy`]).
    pub(crate) rows_first: Option<RowsFirst>,
}

/// A scatter's data copied row by row before the updates of each outermost position, in elements: row `r` of
/// `elements` contiguous elements from `src_base + r·src_step` of input `input` to `dst_base + r·dst_step` of the
/// output; `region` is the box of output coordinates the rows cover (one row per outermost position).
#[derive(Clone, Debug)]
pub(crate) struct RowsFirst {
    pub(crate) input: usize,
    pub(crate) elements: u64,
    pub(crate) src_base: u64,
    pub(crate) src_step: i64,
    pub(crate) dst_base: u64,
    pub(crate) dst_step: i64,
    pub(crate) region: Region,
}

/// A proven [`IndexedMove`].
#[derive(Clone, Debug)]
struct Indexed {
    program: IndexProgram,
    /// The block's copy, for `plan()` and `row_kind()`.
    block: Program,
    indices: usize,
    source: usize,
    output: usize,
    /// The input whose rows the program copies before the updates ([`RowsFirst`]).
    rows_from: Option<usize>,
    index_dims: Vec<Option<usize>>,
    tuple_dim: Option<usize>,
}

impl Indexed {
    /// The operator's error for a kernel's refusal.
    fn error(&self, e: IndexError, index_rank: usize) -> Error {
        match e {
            IndexError::OutOfRange { position, component, value, bound } => {
                let mut coordinate = vec![0u32; index_rank];
                for (&p, d) in position.iter().zip(&self.index_dims) {
                    if let Some(d) = *d {
                        coordinate[d] = u32::try_from(p).unwrap_or(u32::MAX);
                    }
                }
                if let Some(t) = self.tuple_dim {
                    coordinate[t] = u32::try_from(component).unwrap_or(u32::MAX);
                }
                Error::IndexOutOfRange { input: self.indices, coordinate, value, size: bound }
            }
            IndexError::Run(e) => run_error(e),
        }
    }
}

/// The kernels' index type of a data type (`None`: not an index type).
pub(crate) fn index_type(dt: crate::DataType) -> Option<IndexType> {
    use crate::DataType as D;
    match dt {
        D::Int32 => Some(IndexType::I32),
        D::Uint32 => Some(IndexType::U32),
        D::Int64 => Some(IndexType::I64),
        D::Uint64 => Some(IndexType::U64),
        _ => None,
    }
}

impl Builder {
    /// An operator over these tensors; rejects an output that maps two coordinates to one element.
    pub(crate) fn new(inputs: &[TensorDesc], outputs: &[TensorDesc]) -> Result<Builder, Error> {
        for output in outputs {
            check_output_disjoint(output)?;
        }
        Ok(Builder {
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            stages: vec![Vec::new()],
            written: Vec::new(),
            indexed: None,
            resized: None,
        })
    }

    /// A resize of input 0 writing `region` of output 0 (one per operator): `plan`'s output base and strides address
    /// exactly the region's elements, which the caller guarantees; the kernels prove what memory safety needs.
    pub(crate) fn resized(&mut self, plan: &ResizePlan, region: Region) -> Result<(), Error> {
        let internal = |what: String| Error::Internal { detail: what };
        let program = ResizeProgram::new(plan).map_err(|e| internal(format!("resize rejected: {e}")))?;
        if program.input_bytes_needed() as u64 > self.inputs[0].addressed_bytes()
            || program.output_bytes_needed() as u64 > self.outputs[0].addressed_bytes()
        {
            return Err(internal("the resize reaches beyond its tensors".into()));
        }
        let extents = [plan.images, plan.channels, plan.out_size[0], plan.out_size[1]];
        let dims = extents
            .iter()
            .zip(plan.out_strides)
            .map(|(&extent, s)| Dim { extent, in_stride: s.abs(), out_stride: s.abs() })
            .collect();
        let described = Plan::copy(plan.out_ty.width(), 0, 0, dims);
        let block = Program::new(&described).map_err(|e| internal(format!("resize block rejected: {e}")))?;
        self.written.push(region);
        self.resized = Some(Resized { program, block });
        Ok(())
    }

    /// The move driven by an index tensor, run after every stage (one per operator). The caller has validated
    /// that every address a valid index reaches lies inside its tensor, and that distinct tuples write distinct
    /// elements; the kernels prove what memory safety needs again.
    pub(crate) fn indexed(&mut self, m: IndexedMove) -> Result<(), Error> {
        let internal = |what: String| Error::Internal { detail: what };
        let (Some(it), Some(src), Some(out)) =
            (self.inputs.get(m.indices), self.inputs.get(m.source), self.outputs.get(m.output))
        else {
            return Err(internal(format!("indexed move over missing operands {m:?}")));
        };
        let index_type = index_type(it.data_type()).ok_or_else(|| internal("indices of a non-index type".into()))?;
        let (iw, sw, ow) =
            (it.data_type().size_in_bytes(), src.data_type().size_in_bytes(), out.data_type().size_in_bytes());
        let bytes = |e: i64, w: usize| -> Result<isize, Error> {
            i64::try_from(w)
                .ok()
                .and_then(|w| e.checked_mul(w))
                .and_then(|b| isize::try_from(b).ok())
                .ok_or_else(|| internal(format!("stride {e} overflows")))
        };
        let base = |e: u64, w: usize| -> Result<usize, Error> {
            usize::try_from(e)
                .ok()
                .and_then(|e| e.checked_mul(w))
                .ok_or_else(|| internal(format!("base {e} overflows")))
        };
        let mut dims = Vec::with_capacity(m.dims.len());
        for d in &m.dims {
            dims.push(IndexDim {
                extent: d.extent as usize,
                index_stride: bytes(d.index, iw)?,
                src_stride: bytes(d.src, sw)?,
                dst_stride: bytes(d.dst, ow)?,
            });
        }
        let step_width = if m.side == Side::Source { sw } else { ow };
        let mut components = Vec::with_capacity(m.components.len());
        for &(bound, step) in &m.components {
            components.push(Component { bound: u64::from(bound), step: bytes(step, step_width)? });
        }
        let mut block = Vec::with_capacity(m.block.len());
        for &(extent, i, o) in &m.block {
            block.push(Dim { extent: extent as usize, in_stride: bytes(i, sw)?, out_stride: bytes(o, ow)? });
        }
        let plan = IndexPlan {
            index_type,
            index_base: base(m.index_base, iw)?,
            component_stride: bytes(m.tuple.0, iw)?,
            components,
            dims,
            src_base: base(m.src_base, sw)?,
            dst_base: base(m.dst_base, ow)?,
            side: m.side,
            width: ow,
            block: block.clone(),
            out_of_range: m.out_of_range,
        };
        let mut program = IndexProgram::new(&plan).map_err(|e| internal(format!("indexed move rejected: {e}")))?;
        let rows_from = match &m.rows_first {
            Some(r) => {
                let copied = self.inputs.get(r.input).ok_or_else(|| internal("rows of a missing input".into()))?;
                let cw = copied.data_type().size_in_bytes();
                let rows = RowCopy {
                    bytes: usize::try_from(r.elements)
                        .ok()
                        .and_then(|e| e.checked_mul(ow))
                        .ok_or_else(|| internal(format!("rows of {} elements overflow", r.elements)))?,
                    src_base: base(r.src_base, cw)?,
                    src_step: bytes(r.src_step, cw)?,
                    dst_base: base(r.dst_base, ow)?,
                    dst_step: bytes(r.dst_step, ow)?,
                };
                if cw != ow {
                    return Err(internal("rows copied between element widths".into()));
                }
                program = program.with_row_copy(rows).map_err(|e| internal(format!("row copy rejected: {e}")))?;
                if program.copy_bytes_needed() as u64 > copied.addressed_bytes() {
                    return Err(internal("the rows copied reach beyond their input".into()));
                }
                self.written.push(r.region.clone());
                Some(r.input)
            }
            None => None,
        };
        for (what, need, t) in [
            ("indices", program.index_bytes_needed(), it),
            ("source", program.src_bytes_needed(), src),
            ("output", program.dst_bytes_needed(), out),
        ] {
            if need as u64 > t.addressed_bytes() {
                return Err(internal(format!("the indexed move reaches beyond its {what}")));
            }
        }
        let mut dims: Vec<Dim> =
            block.iter().map(|d| Dim { in_stride: d.in_stride.abs(), out_stride: d.out_stride.abs(), ..*d }).collect();
        if dims.is_empty() {
            let w = isize::try_from(ow).unwrap_or(isize::MAX);
            dims.push(Dim { extent: 1, in_stride: w, out_stride: w });
        }
        let described = Plan::copy(ow, 0, 0, dims);
        let block = Program::new(&described).map_err(|e| internal(format!("block rejected: {e}")))?;
        let index_dims = m.dims.iter().map(|d| d.index_dim).collect();
        self.indexed = Some(Indexed {
            program,
            block,
            indices: m.indices,
            source: m.source,
            output: m.output,
            rows_from,
            index_dims,
            tuple_dim: m.tuple.1,
        });
        Ok(())
    }

    /// Starts a stage: the moves added from now on run after every move added before (and may read what those
    /// wrote). Within a stage, a move may read what an earlier move of the stage wrote when their byte ranges
    /// overlap (the batch then runs the two in order on one thread; see [`Batch`]).
    pub(crate) fn next_stage(&mut self) {
        if self.stages.last().is_some_and(|s| !s.is_empty()) {
            self.stages.push(Vec::new());
        }
    }

    /// A move writing `region`: the element at coordinate `c` of the region (counted from its corner) is `op` of the
    /// source element at element offset `in_base + Σ cᵢ·in_stridesᵢ`. The caller has validated that every source
    /// element reached lies inside its tensor.
    pub(crate) fn copy(
        &mut self,
        from: From,
        region: Region,
        in_strides: &[i64],
        in_base: u64,
        op: ElementOp,
    ) -> Result<(), Error> {
        let out = &self.outputs[region.output];
        let out_strides = out.signed_strides();
        let out_base = out
            .offset_of(&region.lo)
            .ok_or_else(|| Error::Internal { detail: format!("region {region:?} overflows") })?;
        let extents = region.sizes.clone();
        let problem =
            Problem { op, extents: &extents, in_strides, out_strides: &out_strides, in_base, out_base, params: None };
        self.view(from, region, &problem)
    }

    /// A move over any view of the output: `problem` says which elements it writes (extents, output strides and
    /// base in elements of the output tensor), and `region` is the box of output coordinates those elements are —
    /// what the proof counts. The caller guarantees that the two describe the same elements.
    pub(crate) fn view(&mut self, from: From, region: Region, problem: &Problem<'_>) -> Result<(), Error> {
        let source = match from {
            From::Input(i) => Source::Input(i),
            From::Output(k) => Source::Output(k),
            From::Value(v) => Source::Value(v.bytes().to_vec()),
        };
        let plan = if problem.op.is_sequence() { plan_sequence(problem)? } else { plan(problem)? };
        self.push(source, region, plan);
        Ok(())
    }

    /// A fill of `region` with `value` (of the output's type).
    pub(crate) fn fill(&mut self, region: Region, value: Scalar) -> Result<(), Error> {
        let zeros = vec![0i64; region.sizes.len()];
        let width = value.data_type().size_in_bytes();
        self.copy(From::Value(value), region, &zeros, 0, ElementOp::Copy { width })
    }

    /// Output `k` (all of it) as the sequence `op` (an [`ElementOp::Sequence`]): element `c` has the index of `c`
    /// in C order over the output's sizes.
    pub(crate) fn sequence(&mut self, k: usize, op: ElementOp) -> Result<(), Error> {
        let out = &self.outputs[k];
        let sizes = out.sizes().to_vec();
        // The index strides of C order.
        let mut index_strides = vec![0i64; sizes.len()];
        let mut acc = 1i64;
        for d in (0..sizes.len()).rev() {
            index_strides[d] = acc;
            acc = acc.saturating_mul(i64::from(sizes[d]));
        }
        let out_strides = out.signed_strides();
        let problem = Problem {
            op,
            extents: &sizes,
            in_strides: &index_strides,
            out_strides: &out_strides,
            in_base: 0,
            out_base: out.origin(),
            params: None,
        };
        let plan = plan_sequence(&problem)?;
        self.push(Source::Index, Region::whole(k, &sizes), plan);
        Ok(())
    }

    fn push(&mut self, source: Source, region: Region, plan: Plan) {
        let output = region.output;
        self.written.push(region);
        if let Some(stage) = self.stages.last_mut() {
            stage.push(Move { source, output, plan });
        }
    }

    /// Proves that no two moves write the same element of an output (their regions are apart) and, with `covers`,
    /// that together they write every element of every output; plans the batch and checks that its moves stay
    /// inside what the tensors address.
    pub(crate) fn finish(self, covers: bool) -> Result<Engine, Error> {
        let internal = |what: String| Error::Internal { detail: what };
        for (i, a) in self.written.iter().enumerate() {
            let sizes = self.outputs[a.output].sizes();
            let inside =
                a.lo.iter()
                    .zip(&a.sizes)
                    .zip(sizes)
                    .all(|((&lo, &n), &size)| u64::from(lo).saturating_add(u64::from(n)) <= u64::from(size));
            if !inside || a.lo.len() != sizes.len() {
                return Err(internal(format!("move {i} writes {a:?}, outside output sizes {sizes:?}")));
            }
        }
        if let Some((i, j)) = first_overlap(&self.written) {
            let a = &self.written[j];
            return Err(internal(format!("moves {i} and {j} both write elements of {a:?}")));
        }
        if covers {
            for (k, out) in self.outputs.iter().enumerate() {
                let total = out.sizes().iter().fold(1u128, |v, &n| v.saturating_mul(u128::from(n)));
                let written =
                    self.written.iter().filter(|r| r.output == k).fold(0u128, |v, r| v.saturating_add(r.volume()));
                if written != total {
                    return Err(internal(format!("the moves write {written} of the {total} elements of output {k}")));
                }
            }
        }
        let stages: Vec<Vec<Move>> = self.stages.into_iter().filter(|s| !s.is_empty()).collect();
        let batch = Batch::new(self.inputs.len(), self.outputs.len(), stages)
            .map_err(|e| internal(format!("planned moves rejected: {e}")))?;
        // The moves must not need more than the tensors address: that is what `execute` checks buffers against.
        for (i, t) in self.inputs.iter().enumerate() {
            if batch.input_bytes_needed(i) as u64 > t.addressed_bytes() {
                return Err(internal(format!("a move reaches beyond input {i}")));
            }
        }
        for (k, t) in self.outputs.iter().enumerate() {
            if batch.output_bytes_needed(k) as u64 > t.addressed_bytes() {
                return Err(internal(format!("a move reaches beyond output {k}")));
            }
        }
        Ok(Engine { inputs: self.inputs, outputs: self.outputs, batch, indexed: self.indexed, resized: self.resized })
    }
}

/// Two regions that share a coordinate, if any (by index: the pair a move-by-move check meets first): a sweep along the dimension where the
/// regions' corners differ most, comparing each region only with those still open at its start — O(n log n) for
/// the moves of a join, a split or a tile (one axis apart), never worse than every pair.
fn first_overlap(regions: &[Region]) -> Option<(usize, usize)> {
    let rank = regions.iter().map(|r| r.lo.len()).max().unwrap_or(0);
    let distinct = |d: usize| {
        let mut lo: Vec<u32> = regions.iter().filter_map(|r| r.lo.get(d).copied()).collect();
        lo.sort_unstable();
        lo.dedup();
        lo.len()
    };
    let axis = (0..rank).max_by_key(|&d| distinct(d)).unwrap_or(0);
    let lo = |r: &Region| r.lo.get(axis).map_or(0, |&v| u64::from(v));
    let end = |r: &Region| lo(r).saturating_add(r.sizes.get(axis).map_or(1, |&n| u64::from(n)));
    let mut order: Vec<usize> = (0..regions.len()).filter(|&i| regions[i].volume() > 0).collect();
    order.sort_by_key(|&i| (regions[i].output, lo(&regions[i])));
    let mut open: Vec<usize> = Vec::new();
    let mut found: Option<(usize, usize)> = None;
    for &i in &order {
        let a = &regions[i];
        open.retain(|&j| regions[j].output == a.output && end(&regions[j]) > lo(a));
        for &j in &open {
            if !a.apart(&regions[j]) {
                // The pair whose later move comes first, as a move-by-move check would report it.
                let pair = (i.max(j), i.min(j));
                found = Some(found.map_or(pair, |f| f.min(pair)));
            }
        }
        open.push(i);
    }
    found.map(|(later, earlier)| (earlier, later))
}

/// The plan of a sequence: the planner's normal form, never widened (its "input" are indices).
fn plan_sequence(problem: &Problem<'_>) -> Result<Plan, Error> {
    plan(problem)
}

/// A planned operator: its tensors and its proven moves.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    inputs: Vec<TensorDesc>,
    outputs: Vec<TensorDesc>,
    batch: Batch,
    indexed: Option<Indexed>,
    resized: Option<Resized>,
}

impl Engine {
    /// Plans `output[c] = op(input[in_base + Σ cᵢ·in_stridesᵢ])` over the output's coordinates (element strides
    /// and base). The caller has validated that every input coordinate reached lies inside `input`.
    pub(crate) fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        op: ElementOp,
        in_strides: &[i64],
        in_base: u64,
    ) -> Result<Engine, Error> {
        Engine::with_params(input, output, op, in_strides, in_base, None)
    }

    /// [`Engine::new`] for a normalization: `params` are its `(scale, bias)` pairs and each output dimension's step
    /// through them.
    pub(crate) fn with_params(
        input: &TensorDesc,
        output: &TensorDesc,
        op: ElementOp,
        in_strides: &[i64],
        in_base: u64,
        params: Option<(&[[f32; 2]], &[i64])>,
    ) -> Result<Engine, Error> {
        let mut b = Builder::new(core::slice::from_ref(input), core::slice::from_ref(output))?;
        let out_strides = output.signed_strides();
        let out_base = output.origin();
        let problem =
            Problem { op, extents: output.sizes(), in_strides, out_strides: &out_strides, in_base, out_base, params };
        b.view(From::Input(0), Region::whole(0, output.sizes()), &problem)?;
        b.finish(true)
    }

    /// A plain copy of the input's elements (`op` = copy of the input's element width).
    pub(crate) fn copy(
        input: &TensorDesc,
        output: &TensorDesc,
        in_strides: &[i64],
        in_base: u64,
    ) -> Result<Engine, Error> {
        let op = ElementOp::Copy { width: input.data_type().size_in_bytes() };
        Engine::new(input, output, op, in_strides, in_base)
    }

    /// The input tensors.
    pub(crate) fn inputs(&self) -> &[TensorDesc] {
        &self.inputs
    }

    /// The output tensors.
    pub(crate) fn outputs(&self) -> &[TensorDesc] {
        &self.outputs
    }

    /// The one input of a single-input operator.
    pub(crate) fn input(&self) -> &TensorDesc {
        &self.inputs[0]
    }

    /// The one output of a single-output operator.
    pub(crate) fn output(&self) -> &TensorDesc {
        &self.outputs[0]
    }

    /// The program of the move that writes the most bytes (the whole operator for single-move ones).
    pub(crate) fn main_program(&self) -> &Program {
        let moves = self.batch.moves().map(|(_, _, p)| (p, p.walk().bytes_written()));
        let indexed = self.indexed.iter().map(|ix| (&ix.block, ix.program.bytes_written()));
        let resized = self.resized.iter().map(|r| (&r.block, r.block.walk().bytes_written()));
        let mut all = resized.chain(indexed).chain(moves);
        let first = all.next().expect("an engine has at least one move");
        all.fold(first, |best, p| if p.1 > best.1 { p } else { best }).0
    }

    pub(crate) fn plan(&self) -> &Plan {
        self.main_program().plan()
    }

    pub(crate) fn row_kind(&self) -> RowKind {
        self.main_program().kind()
    }

    /// The moves in words, one line each: what each reads and writes, and its row kernel.
    pub(crate) fn explain(&self) -> String {
        let mut text = String::new();
        for (source, output, program) in self.batch.moves() {
            let from = match source {
                Source::Input(i) => format!("input {i}"),
                Source::Output(k) => format!("output {k}"),
                Source::Value(_) => "a value".to_owned(),
                Source::Index => "indices".to_owned(),
            };
            text.push_str(&format!("{from} → output {output}: {}; {}\n", program.plan(), program.kind()));
        }
        if let Some(r) = &self.resized {
            let p = r.program.plan();
            let [rows, cols] = r.program.taps();
            text.push_str(&format!(
                "input 0 → output 0: resize {}×{} → {}×{} ({:?}, {}; {} × {} taps, {}), {}×{} kept (rows from {} step {}, columns from {} step {}), {}; {}\n",
                p.in_size[0],
                p.in_size[1],
                p.resized[0],
                p.resized[1],
                p.filter,
                if p.antialias { "antialiased" } else { "sampled" },
                rows.taps(),
                cols.taps(),
                match (r.program.rows_first(), r.program.samples_pairs()) {
                    (true, true) => "rows first, both passes at once over pixel pairs",
                    (true, false) => "rows first",
                    (false, true) => "columns first, each input row across over pixel pairs",
                    (false, false) => "columns first",
                },
                p.out_size[0],
                p.out_size[1],
                p.pick[0].0,
                p.pick[0].1,
                p.pick[1].0,
                p.pick[1].1,
                if p.epilogue.is_some() { format!("normalized into {:?}", p.out_ty) } else { "stored".into() },
                r.block.plan()
            ));
        }
        if let Some(ix) = &self.indexed {
            let (from, to) = (ix.source, ix.output);
            let what = match ix.program.plan().side {
                Side::Source => format!("where input {from} is read → output {to}"),
                Side::Destination => format!("input {from} → where output {to} is written"),
            };
            let threads =
                if ix.program.splits() { "positions split across threads" } else { "positions in order, one thread" };
            let rows = match ix.rows_from {
                Some(i) => format!("; each outermost position's output row copied from input {i} just before it"),
                None => String::new(),
            };
            text.push_str(&format!(
                "indices of input {} pick {what}: {} positions of a block {}; {threads}{rows}\n",
                ix.indices,
                ix.program.positions(),
                ix.block.plan()
            ));
        }
        text
    }

    /// Rejects buffers of the wrong count, shorter than their tensors require (the total size when set, the
    /// addressed bytes otherwise) or placed against a guaranteed alignment.
    pub(crate) fn check_many(&self, inputs: &[&[u8]], outputs: &[&mut [u8]]) -> Result<(), Error> {
        // (Plain tests, as `Batch::run`'s: they run on every call, however small.)
        if inputs.len() != self.inputs.len() {
            return Err(Error::OperandCount { operand: "input", expected: self.inputs.len(), actual: inputs.len() });
        }
        if outputs.len() != self.outputs.len() {
            return Err(Error::OperandCount { operand: "output", expected: self.outputs.len(), actual: outputs.len() });
        }
        let many_in = self.inputs.len() > 1;
        for (i, (desc, buf)) in self.inputs.iter().zip(inputs).enumerate() {
            check_buffer(if many_in { Operand::InputAt(i) } else { Operand::Input }, desc, buf)?;
        }
        let many_out = self.outputs.len() > 1;
        for (k, (desc, buf)) in self.outputs.iter().zip(outputs).enumerate() {
            check_buffer(if many_out { Operand::OutputAt(k) } else { Operand::Output }, desc, buf)?;
        }
        Ok(())
    }

    /// Runs every move with many operands.
    pub(crate) fn execute_many(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        // PERF: one move of one input into one output, the most common operator, straight to its program after
        // its two buffers' checks (the spec's 4×4 example: 110 instructions a call outside the program before).
        if self.indexed.is_none()
            && self.resized.is_none()
            && let (Some(program), [src], [dst]) = (self.batch.single(), inputs, &mut *outputs)
        {
            check_buffer(Operand::Input, &self.inputs[0], src)?;
            check_buffer(Operand::Output, &self.outputs[0], dst)?;
            return program.run(src, dst, opts).map_err(run_error);
        }
        self.check_many(inputs, outputs)?;
        if let Some(r) = &self.resized {
            if self.batch.moves().next().is_some() {
                self.batch.run(inputs, outputs, opts).map_err(run_error)?;
            }
            return r.program.run(inputs[0], outputs[0], opts).map_err(run_error);
        }
        let Some(ix) = &self.indexed else {
            // (One move went straight to its program above.)
            return self.batch.run(inputs, outputs, opts).map_err(run_error);
        };
        // The indices first: an invalid one writes nothing.
        let rank = self.inputs[ix.indices].rank();
        let checked = ix.program.check_with(inputs[ix.indices], opts).map_err(|e| ix.error(e, rank))?;
        if self.batch.moves().next().is_some() {
            self.batch.run(inputs, outputs, opts).map_err(run_error)?;
        }
        let (src, dst) = (inputs[ix.source], &mut *outputs[ix.output]);
        match ix.rows_from {
            Some(rows) => ix.program.run_checked_fused(&checked, inputs[rows], src, dst, opts),
            None => ix.program.run_checked(&checked, src, dst, opts),
        }
        .map_err(|e| ix.error(e, rank))
    }

    /// Runs only the indexed move, with the indices and the source from `inputs` (the full list of the
    /// operator's inputs, the one the earlier stages read unused) and `output` as its output: a scatter into the
    /// buffer that already holds its data.
    pub(crate) fn execute_indexed_only(
        &self,
        inputs: &[&[u8]],
        output: &mut [u8],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        let Some(ix) = &self.indexed else {
            return Err(Error::Internal { detail: "no indexed move to run alone".into() });
        };
        for (i, desc) in self.inputs.iter().enumerate().filter(|&(i, _)| i == ix.indices || i == ix.source) {
            let buf = inputs.get(i).ok_or(Error::OperandCount {
                operand: "input",
                expected: self.inputs.len(),
                actual: inputs.len(),
            })?;
            check_buffer(Operand::InputAt(i), desc, buf)?;
        }
        check_buffer(Operand::Output, &self.outputs[ix.output], output)?;
        let rank = self.inputs[ix.indices].rank();
        let checked = ix.program.check_with(inputs[ix.indices], opts).map_err(|e| ix.error(e, rank))?;
        ix.program.run_checked(&checked, inputs[ix.source], output, opts).map_err(|e| ix.error(e, rank))
    }

    /// Rejects buffers shorter than their tensors require or placed against a guaranteed alignment.
    pub(crate) fn check_buffers(&self, input: &[u8], output: &[u8]) -> Result<(), Error> {
        for (operand, desc, buf) in [(Operand::Input, self.input(), input), (Operand::Output, self.output(), output)] {
            check_buffer(operand, desc, buf)?;
        }
        Ok(())
    }

    /// The slowest, most obvious execution: one loop over output coordinates (last dimension fastest), each element
    /// read at `in_offset(c)` (in elements) and converted alone by the portable scalar code. No planning, no SIMD.
    pub(crate) fn execute_reference(
        &self,
        input: &[u8],
        output: &mut [u8],
        in_offset: impl Fn(&[u32]) -> i64,
    ) -> Result<(), Error> {
        let op = *self.plan().op();
        // The plan's op may be a widened copy; the reference moves one element of the tensors at a time.
        let op = if op.is_copy() { ElementOp::Copy { width: self.input().data_type().size_in_bytes() } } else { op };
        self.execute_reference_by(input, output, in_offset, |_, x, y| {
            op.apply_one(x, y);
        })
    }

    /// [`Engine::execute_reference`] with each element computed by `element(c, input element, output element)`.
    pub(crate) fn execute_reference_by(
        &self,
        input: &[u8],
        output: &mut [u8],
        in_offset: impl Fn(&[u32]) -> i64,
        element: impl Fn(&[u32], &[u8], &mut [u8]),
    ) -> Result<(), Error> {
        self.check_buffers(input, output)?;
        let (iw, ow) = (self.input().data_type().size_in_bytes(), self.output().data_type().size_in_bytes());
        let (sizes, out) = (self.output().sizes(), self.output());
        let mut c = vec![0u32; sizes.len()];
        loop {
            // Validation bounded every coordinate: the offsets are inside the checked buffers (checked again here,
            // as the slicing below is).
            let i = u64::try_from(in_offset(&c)).ok().and_then(|e| byte_range(e, iw));
            let o = out.offset_of(&c).and_then(|e| byte_range(e, ow));
            let (Some(i), Some(o)) = (i, o) else {
                return Err(Error::Internal { detail: format!("reference offset of {c:?} overflows") });
            };
            element(&c, &input[i], &mut output[o]);
            if !next_coordinate(&mut c, sizes) {
                return Ok(());
            }
        }
    }

    /// [`Engine::execute_reference`] of an elementwise operator: input coordinate = output coordinate.
    pub(crate) fn execute_reference_elementwise(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        let x = self.input();
        // An offset ≤ the input's addressed extent, which validation bounded below i64::MAX.
        self.execute_reference(input, output, |c| x.offset_of(c).and_then(|e| i64::try_from(e).ok()).unwrap_or(-1))
    }

    pub(crate) fn execute(&self, input: &[u8], output: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        if self.resized.is_some() {
            return self.execute_many(&[input], &mut [output], opts);
        }
        self.check_buffers(input, output)?;
        self.batch.run(&[input], &mut [output], opts).map_err(run_error)
    }

    /// Runs with `buffer` as both operands; the caller has checked that input and output address the same
    /// elements in the same order.
    pub(crate) fn execute_in_place(&self, buffer: &mut [u8], opts: &ExecOptions) -> Result<(), Error> {
        check_buffer(Operand::Input, self.input(), buffer)?;
        check_buffer(Operand::Output, self.output(), buffer)?;
        self.main_program().run_in_place(buffer, opts).map_err(run_error)
    }

    /// [`Engine::execute`] over typed slices of one element type, that of the input.
    pub(crate) fn execute_typed<T: Element>(
        &self,
        input: &[T],
        output: &mut [T],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        let expected = self.input().data_type();
        if T::DATA_TYPE != expected {
            return Err(Error::ElementTypeMismatch { expected, actual: T::DATA_TYPE });
        }
        self.execute(bytemuck::cast_slice(input), bytemuck::cast_slice_mut(output), opts)
    }

    /// [`Engine::execute`] over typed slices of the input's and the output's element types.
    pub(crate) fn execute_typed2<I: Element, O: Element>(
        &self,
        input: &[I],
        output: &mut [O],
        opts: &ExecOptions,
    ) -> Result<(), Error> {
        for (operand, expected, actual) in [
            (Operand::Input, self.input().data_type(), I::DATA_TYPE),
            (Operand::Output, self.output().data_type(), O::DATA_TYPE),
        ] {
            if expected != actual {
                return Err(Error::TypedOperandMismatch { operand, expected, actual });
            }
        }
        self.execute(bytemuck::cast_slice(input), bytemuck::cast_slice_mut(output), opts)
    }
}

/// The bytes of element `element` of `width` bytes.
pub(crate) fn byte_range(element: u64, width: usize) -> Option<core::ops::Range<usize>> {
    let start = usize::try_from(element).ok()?.checked_mul(width)?;
    Some(start..start.checked_add(width)?)
}

/// Steps `c` to the next coordinate of `sizes` in C order (last dimension fastest); `false` after the last.
pub(crate) fn next_coordinate(c: &mut [u32], sizes: &[u32]) -> bool {
    for k in (0..c.len()).rev() {
        // c[k] < sizes[k] ≤ u32::MAX
        c[k] = c[k].saturating_add(1);
        if c[k] < sizes[k] {
            return true;
        }
        c[k] = 0;
    }
    false
}

pub(crate) fn check_buffer(operand: Operand, desc: &TensorDesc, buf: &[u8]) -> Result<(), Error> {
    let required = desc.required_buffer_bytes();
    if (buf.len() as u64) < required {
        return Err(Error::BufferTooSmall { operand, data_type: desc.data_type(), required, actual: buf.len() });
    }
    let alignment = desc.guaranteed_base_offset_alignment();
    let address = buf.as_ptr() as usize;
    if alignment > 1 && !address.is_multiple_of(alignment as usize) {
        return Err(Error::MisalignedBuffer { operand, alignment, address });
    }
    Ok(())
}

pub(crate) fn run_error(e: RunError) -> Error {
    match e {
        RunError::IsaUnavailable(isa) => Error::IsaUnavailable { isa },
        RunError::InvalidThreadCount(threads) => {
            Error::InvalidThreadCount { threads, max: strider_kernels::MAX_THREADS }
        }
        e => Error::Internal { detail: e.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::{Region, first_overlap};

    fn r(output: usize, lo: &[u32], sizes: &[u32]) -> Region {
        Region { output, lo: lo.to_vec(), sizes: sizes.to_vec() }
    }

    /// The sweep finds the same first pair as comparing every pair, on random boxes (touching, nested, empty,
    /// on two outputs), and nothing on a tiling.
    #[test]
    fn the_sweep_finds_what_every_pair_finds() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n)) as u32
        };
        for _ in 0..2000 {
            let rank = 1 + next(3) as usize;
            let count = next(8) as usize;
            let regions: Vec<Region> = (0..count)
                .map(|_| {
                    let lo: Vec<u32> = (0..rank).map(|_| next(6)).collect();
                    let sizes: Vec<u32> = (0..rank).map(|_| next(4)).collect();
                    r(next(2) as usize, &lo, &sizes)
                })
                .collect();
            let mut pairs = (0..count).flat_map(|j| (0..j).map(move |i| (i, j)));
            let want = pairs.find(|&(i, j)| !regions[i].apart(&regions[j]));
            assert_eq!(first_overlap(&regions), want, "{regions:?}");
        }
        let tiling: Vec<Region> = (0..1000).map(|k| r(0, &[0, k * 3], &[5, 3])).collect();
        assert_eq!(first_overlap(&tiling), None);
    }
}
