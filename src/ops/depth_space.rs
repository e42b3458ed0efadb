//! `DML_DEPTH_TO_SPACE1` and `DML_SPACE_TO_DEPTH1` (and their first versions): blocks of channels moved into
//! blocks of pixels and back, the reshape–transpose–reshape of ONNX's definition expressed in strides — one move
//! between a 6-dimensional view of the output and the input's strides, whatever the two layouts.

use strider_kernels::ElementOp;

use crate::engine::{Builder, Engine, From, Region};
use crate::ops::{Tensor, check_operands, put, reference_each};
use crate::plan::Problem;
use crate::{Element, Error, ExecOptions, Operand, Plan, RowKind, TensorDesc};

/// The order of a block's elements among the channels (`DML_DEPTH_SPACE_ORDER`; ONNX's `DCR` and `CRD` modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DepthSpaceOrder {
    /// Depth, then column, then row (`DCR`, the first version's order): channel `(i·b + j)·C' + c`.
    DepthColumnRow,
    /// Column, row, then depth (`CRD`): channel `c·b² + i·b + j`.
    ColumnRowDepth,
}

impl DepthSpaceOrder {
    /// DirectML's value (`DEPTH_COLUMN_ROW` 0, `COLUMN_ROW_DEPTH` 1).
    pub fn dml_value(self) -> u32 {
        match self {
            DepthSpaceOrder::DepthColumnRow => 0,
            DepthSpaceOrder::ColumnRowDepth => 1,
        }
    }

    /// The order of a DirectML value; `None` for any other.
    pub fn from_dml_value(value: u32) -> Option<DepthSpaceOrder> {
        match value {
            0 => Some(DepthSpaceOrder::DepthColumnRow),
            1 => Some(DepthSpaceOrder::ColumnRowDepth),
            _ => None,
        }
    }

    /// The channel of element (`c`, `i`, `j`) of a block of `b × b` among `c_out` depth channels (below the
    /// depth tensor's channel count, a u32).
    fn channel(self, c: u64, i: u64, j: u64, b: u64, c_out: u64) -> u64 {
        let mac = |x: u64, m: u64, y: u64| x.saturating_mul(m).saturating_add(y);
        match self {
            DepthSpaceOrder::DepthColumnRow => mac(mac(i, b, j), c_out, c),
            DepthSpaceOrder::ColumnRowDepth => mac(mac(c, b, i), b, j),
        }
    }

    /// The channel strides of (`c`, `i`, `j`) for a channel stride `s` (see [`DepthSpaceOrder::channel`]).
    fn channel_strides(self, s: i64, b: i64, c_out: i64) -> [i64; 3] {
        match self {
            DepthSpaceOrder::DepthColumnRow => [s, s.saturating_mul(b).saturating_mul(c_out), s.saturating_mul(c_out)],
            DepthSpaceOrder::ColumnRowDepth => [s.saturating_mul(b).saturating_mul(b), s.saturating_mul(b), s],
        }
    }
}

/// The depth tensor `(N, C·b², H, W)` and the space tensor `(N, C, H·b, W·b)` of one operator, validated; returns
/// `C` (the space tensor's channels).
fn check(
    operator: &'static str,
    depth: (&TensorDesc, Operand),
    space: (&TensorDesc, Operand),
    block_size: u32,
) -> Result<u32, Error> {
    let (input, output) = if depth.1 == Operand::Input { (depth.0, space.0) } else { (space.0, depth.0) };
    let rank = check_operands(input, output, &[])?;
    if rank != 4 {
        return Err(Error::UnsupportedRank { operator, rank, expected: 4 });
    }
    if block_size == 0 {
        return Err(Error::ZeroBlockSize);
    }
    let b = u64::from(block_size);
    // The input's sizes must divide: a depth input's channels by b², a space input's rows and columns by b.
    let (from, from_operand) = if depth.1 == Operand::Input { depth } else { space };
    let divisors: [u64; 4] = if depth.1 == Operand::Input { [1, b.saturating_mul(b), 1, 1] } else { [1, 1, b, b] };
    for (dim, &divisor) in divisors.iter().enumerate() {
        let size = from.sizes()[dim];
        if u64::from(size).checked_rem(divisor) != Some(0) {
            return Err(Error::BlockSizeNotDivisor { block_size, operand: from_operand, dim, size, divisor });
        }
    }
    let (d, s) = (depth.0.sizes(), space.0.sizes());
    let c = if depth.1 == Operand::Input {
        u64::from(d[1]).checked_div(b.saturating_mul(b)).unwrap_or(0)
    } else {
        u64::from(s[1])
    };
    // The other tensor's sizes follow.
    let (to, to_operand) = if depth.1 == Operand::Input { space } else { depth };
    let expected: [u64; 4] = if depth.1 == Operand::Input {
        [u64::from(d[0]), c, u64::from(d[2]).saturating_mul(b), u64::from(d[3]).saturating_mul(b)]
    } else {
        let per_block = |x: u32| u64::from(x).checked_div(b).unwrap_or(0);
        [u64::from(s[0]), c.saturating_mul(b).saturating_mul(b), per_block(s[2]), per_block(s[3])]
    };
    for (dim, &want) in expected.iter().enumerate() {
        let size = to.sizes()[dim];
        if u64::from(size) != want {
            let why = "the block size moves channels into rows and columns";
            return Err(Error::OperandSizeMismatch { operand: to_operand, dim, size, expected: want, why });
        }
    }
    Ok(c as u32) // at most a u32 size
}

/// The one move of either operator: the space tensor walked as `(n, c, h, i, w, j)` — pixel `(h·b + i, w·b + j)`
/// — against the depth tensor's `(n, channel(c, i, j), h, w)`; `space_out` when the space tensor is the output.
fn plan(
    depth: &TensorDesc,
    space: &TensorDesc,
    block_size: u32,
    order: DepthSpaceOrder,
    c: u32,
    space_out: bool,
) -> Result<Engine, Error> {
    let b = i64::from(block_size);
    let (sd, ss) = (depth.signed_strides(), space.signed_strides());
    let [dc, di, dj] = order.channel_strides(sd[1], b, i64::from(c));
    let depth_view = [sd[0], dc, sd[2], di, sd[3], dj];
    let (s2, s3) = (ss[2], ss[3]);
    let space_view = [ss[0], ss[1], s2.saturating_mul(b), s2, s3.saturating_mul(b), s3];
    let s = depth.sizes();
    let per_block = |x: u32| x.checked_div(block_size).unwrap_or(0);
    let (h, w) = if space_out { (s[2], s[3]) } else { (per_block(space.sizes()[2]), per_block(space.sizes()[3])) };
    let extents = [s[0], c, h, block_size, w, block_size];
    let (input, output) = if space_out { (depth, space) } else { (space, depth) };
    let (in_strides, out_strides) = if space_out { (depth_view, space_view) } else { (space_view, depth_view) };
    let mut b = Builder::new(core::slice::from_ref(input), core::slice::from_ref(output))?;
    let op = ElementOp::Copy { width: input.data_type().size_in_bytes() };
    let problem = Problem {
        op,
        extents: &extents,
        in_strides: &in_strides,
        out_strides: &out_strides,
        in_base: input.origin(),
        out_base: output.origin(),
        params: None,
    };
    b.view(From::Input(0), Region::whole(0, output.sizes()), &problem)?;
    b.finish(true)
}

/// `DML_DEPTH_TO_SPACE1_OPERATOR_DESC`, validated and planned: channels of a 4-D tensor `(N, C·b², H, W)` into
/// blocks of `b × b` pixels of `(N, C, H·b, W·b)` — ONNX's `DepthToSpace`, `torch.nn.functional.pixel_shuffle` for
/// [`DepthSpaceOrder::ColumnRowDepth`].
///
/// # Examples
///
/// ```
/// use strider::{DataType, DepthSpaceOrder, DepthToSpace, TensorDesc};
/// let input = TensorDesc::new(DataType::Uint8, &[1, 4, 1, 1])?;
/// let output = TensorDesc::new(DataType::Uint8, &[1, 1, 2, 2])?;
/// let op = DepthToSpace::new(&input, &output, 2, DepthSpaceOrder::DepthColumnRow)?;
/// let mut y = [0u8; 4];
/// op.execute(&[1, 2, 3, 4], &mut y)?;
/// assert_eq!(y, [1, 2, 3, 4]); // channel (i·2 + j) → pixel (i, j)
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DepthToSpace {
    engine: Engine,
    block_size: u32,
    order: DepthSpaceOrder,
}

/// `DML_SPACE_TO_DEPTH1_OPERATOR_DESC`, validated and planned: the exact inverse of [`DepthToSpace`] with the
/// same block size and order (`torch.nn.functional.pixel_unshuffle` for [`DepthSpaceOrder::ColumnRowDepth`]).
///
/// # Examples
///
/// ```
/// use strider::{DataType, DepthSpaceOrder, SpaceToDepth, TensorDesc};
/// let input = TensorDesc::new(DataType::Uint8, &[1, 1, 2, 2])?;
/// let output = TensorDesc::new(DataType::Uint8, &[1, 4, 1, 1])?;
/// let op = SpaceToDepth::new(&input, &output, 2, DepthSpaceOrder::DepthColumnRow)?;
/// let mut y = [0u8; 4];
/// op.execute(&[1, 2, 3, 4], &mut y)?;
/// assert_eq!(y, [1, 2, 3, 4]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SpaceToDepth {
    engine: Engine,
    block_size: u32,
    order: DepthSpaceOrder,
}

/// The element of the space tensor at `c` for the depth tensor's coordinate, or the reverse (the references).
fn depth_coord(space: &[u32], b: u32, order: DepthSpaceOrder, c_space: u32) -> Vec<u32> {
    let (n, c, y, x) = (space[0], space[1], space[2], space[3]);
    let (rem, div) = (|v: u32| v.checked_rem(b).unwrap_or(0), |v: u32| v.checked_div(b).unwrap_or(0));
    let channel = order.channel(u64::from(c), u64::from(rem(y)), u64::from(rem(x)), u64::from(b), u64::from(c_space));
    vec![n, channel as u32, div(y), div(x)]
}

/// The element of the space tensor that the depth tensor's element `depth` holds (the inverse of
/// [`depth_coord`]).
fn space_coord(depth: &[u32], b: u32, order: DepthSpaceOrder, c_space: u32) -> Vec<u32> {
    let (n, channel, h, w) = (depth[0], depth[1], depth[2], depth[3]);
    let div = |v: u32, d: u32| v.checked_div(d).unwrap_or(0);
    let rem = |v: u32, d: u32| v.checked_rem(d).unwrap_or(0);
    let (c, i, j) = match order {
        DepthSpaceOrder::DepthColumnRow => {
            let q = div(channel, c_space);
            (rem(channel, c_space), div(q, b), rem(q, b))
        }
        DepthSpaceOrder::ColumnRowDepth => {
            let r = rem(channel, b.saturating_mul(b));
            (div(channel, b.saturating_mul(b)), div(r, b), rem(r, b))
        }
    };
    // Coordinates of the space tensor: below its u32 sizes.
    vec![n, c, h.saturating_mul(b).saturating_add(i), w.saturating_mul(b).saturating_add(j)]
}

impl DepthToSpace {
    /// Validates and plans the operator.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::DataTypeMismatch`]; [`Error::UnsupportedRank`] unless the tensors are
    /// 4-dimensional; [`Error::ZeroBlockSize`]; [`Error::BlockSizeNotDivisor`] when the block size squared does not
    /// divide the input's channels; [`Error::OperandSizeMismatch`] for an output size other than `(N, C/b², H·b,
    /// W·b)`; [`Error::OverlappingOutput`], [`Error::OverlapUndecided`].
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        block_size: u32,
        order: DepthSpaceOrder,
    ) -> Result<DepthToSpace, Error> {
        let c = check("DML_DEPTH_TO_SPACE", (input, Operand::Input), (output, Operand::Output), block_size)?;
        Ok(DepthToSpace { engine: plan(input, output, block_size, order, c, true)?, block_size, order })
    }

    operator_methods!(DepthToSpace, one_type);

    /// The same result by the slowest, most obvious method: each output pixel copied from its channel. For
    /// verifying results.
    ///
    /// # Errors
    ///
    /// As [`DepthToSpace::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_buffers(input, output)?;
        let x = Tensor::new(self.input(), input);
        let c_space = self.output().sizes()[1];
        reference_each(self.output(), output, |c, y| {
            put(y, x.element(&depth_coord(c, self.block_size, self.order, c_space)));
        });
        Ok(())
    }

    /// The block size.
    pub fn block_size(&self) -> u32 {
        self.block_size
    }

    /// The order of a block's elements among the channels.
    pub fn order(&self) -> DepthSpaceOrder {
        self.order
    }
}

impl SpaceToDepth {
    /// Validates and plans the operator.
    ///
    /// # Errors
    ///
    /// As [`DepthToSpace::new`], with the roles swapped: the block size must divide the input's height and width,
    /// and the output must be `(N, C·b², H/b, W/b)`.
    pub fn new(
        input: &TensorDesc,
        output: &TensorDesc,
        block_size: u32,
        order: DepthSpaceOrder,
    ) -> Result<SpaceToDepth, Error> {
        let c = check("DML_SPACE_TO_DEPTH", (output, Operand::Output), (input, Operand::Input), block_size)?;
        Ok(SpaceToDepth { engine: plan(output, input, block_size, order, c, false)?, block_size, order })
    }

    operator_methods!(SpaceToDepth, one_type);

    /// The same result by the slowest, most obvious method: each output channel's pixel copied from its block
    /// element. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`SpaceToDepth::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_buffers(input, output)?;
        let x = Tensor::new(self.input(), input);
        let c_space = self.input().sizes()[1];
        reference_each(self.output(), output, |c, y| {
            put(y, x.element(&space_coord(c, self.block_size, self.order, c_space)));
        });
        Ok(())
    }

    /// The block size.
    pub fn block_size(&self) -> u32 {
        self.block_size
    }

    /// The order of a block's elements among the channels.
    pub fn order(&self) -> DepthSpaceOrder {
        self.order
    }
}
