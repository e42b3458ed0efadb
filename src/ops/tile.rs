//! `DML_TILE`: the input repeated along every dimension (`np.tile`).
//!
//! Plan: one move over a view of the output in which each repeated dimension of size `n·r` is two, `r` repeats
//! (read with input stride 0) of `n` elements — a broadcast the planner coalesces and the kernels copy row by row.
//! A view of more than 8 dimensions (many dimensions both repeated and longer than one) keeps only the first block
//! of the outermost ones; later stages fill their other blocks by doubling, copying the blocks written so far from
//! the output (one move per doubling: at most 32 per such dimension, whatever the repeats).

use strider_kernels::{ElementOp, MAX_RANK};

use crate::engine::{Builder, Engine, From, Region};
use crate::ops::{Tensor, check_operands, put, reference_each};
use crate::plan::Problem;
use crate::{Element, Error, ExecOptions, Operand, Plan, RowKind, TensorDesc};

/// `DML_TILE_OPERATOR_DESC`, validated and planned: `np.tile(input, repeats)`, with exactly one repeat per
/// dimension: output element `c` is input element `c mod input sizes`.
///
/// # Examples
///
/// ```
/// use strider::{DataType, TensorDesc, Tile};
/// let input = TensorDesc::new(DataType::Uint8, &[1, 2])?;
/// let output = TensorDesc::new(DataType::Uint8, &[2, 6])?;
/// let tile = Tile::new(&input, &output, &[2, 3])?;
/// let mut y = [0u8; 12];
/// tile.execute(&[7, 8], &mut y)?;
/// assert_eq!(y, [7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8]);
/// # Ok::<(), strider::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Tile {
    engine: Engine,
    repeats: Vec<u32>,
}

impl Tile {
    /// Validates and plans the tiling.
    ///
    /// # Errors
    ///
    /// [`Error::RankMismatch`], [`Error::DataTypeMismatch`], [`Error::ArgumentLength`] (`repeats` needs one
    /// value per dimension); [`Error::ZeroRepeat`]; [`Error::OperandSizeMismatch`] for an output size that is not
    /// the input's times the repeat; [`Error::OverlappingOutput`], [`Error::OverlapUndecided`] for an output that
    /// maps two coordinates to one element.
    pub fn new(input: &TensorDesc, output: &TensorDesc, repeats: &[u32]) -> Result<Tile, Error> {
        let rank = check_operands(input, output, &[("repeats", repeats.len())])?;
        for (dim, &r) in repeats.iter().enumerate() {
            if r == 0 {
                return Err(Error::ZeroRepeat { dim });
            }
            let expected = u64::from(input.sizes()[dim]).saturating_mul(u64::from(r));
            let size = output.sizes()[dim];
            if u64::from(size) != expected {
                let why = "the input's size times the repeat";
                return Err(Error::OperandSizeMismatch { operand: Operand::Output, dim, size, expected, why });
            }
        }
        // Dimensions both repeated and longer than one element become two in the view; fix the repeat index of
        // the outermost of them while the view has more dimensions than a plan takes.
        let split: Vec<usize> = (0..rank).filter(|&d| repeats[d] > 1 && input.sizes()[d] > 1).collect();
        let fixed = rank.saturating_add(split.len()).saturating_sub(MAX_RANK).min(split.len());
        let fixed = &split[..fixed];
        let mut b = Builder::new(core::slice::from_ref(input), core::slice::from_ref(output))?;
        let width = input.data_type().size_in_bytes();
        let (in_steps, out_steps) = (input.signed_strides(), output.signed_strides());
        // Stage 0: the first block of every fixed dimension, every other dimension whole.
        let (mut extents, mut ins, mut outs) = (Vec::new(), Vec::new(), Vec::new());
        let mut region = Region::whole(0, output.sizes());
        for (d, &r) in repeats.iter().enumerate() {
            let n = input.sizes()[d];
            let (s, o) = (in_steps[d], out_steps[d]);
            if fixed.contains(&d) {
                region.sizes[d] = n;
                extents.push(n);
                ins.push(s);
                outs.push(o);
            } else if r > 1 && n > 1 {
                extents.extend([r, n]);
                ins.extend([0, s]);
                outs.extend([o.saturating_mul(i64::from(n)), o]);
            } else if r > 1 {
                extents.push(r);
                ins.push(0);
                outs.push(o);
            } else {
                extents.push(n);
                ins.push(s);
                outs.push(o);
            }
        }
        let problem = Problem {
            op: ElementOp::Copy { width },
            extents: &extents,
            in_strides: &ins,
            out_strides: &outs,
            in_base: input.origin(),
            out_base: output.origin(),
            params: None,
        };
        b.view(From::Input(0), region.clone(), &problem)?;
        // Then each fixed dimension by doubling: the blocks written so far along it copied from the output to the
        // next ones (at most 32 stages per dimension, whatever the repeat).
        for &d in fixed {
            let (n, r) = (input.sizes()[d], repeats[d]);
            let mut done = 1u32;
            while done < r {
                let count = done.min(r.saturating_sub(done));
                b.next_stage();
                let mut to = region.clone();
                // Below the output's size `n·r` (a u32), as `done + count <= r`.
                to.lo[d] = done.saturating_mul(n);
                to.sizes[d] = count.saturating_mul(n);
                let from = output
                    .offset_of(&region.lo)
                    .ok_or_else(|| Error::Internal { detail: "tile block overflows".to_owned() })?;
                b.copy(From::Output(0), to, &out_steps, from, ElementOp::Copy { width })?;
                done = done.saturating_add(count);
            }
            region.sizes[d] = output.sizes()[d];
        }
        Ok(Tile { engine: b.finish(true)?, repeats: repeats.to_vec() })
    }

    operator_methods!(Tile, one_type);

    /// The same result by the slowest, most obvious method: output element `c` copied from input element
    /// `c mod sizes`. For verifying results.
    ///
    /// # Errors
    ///
    /// As [`Tile::execute`].
    pub fn execute_reference(&self, input: &[u8], output: &mut [u8]) -> Result<(), Error> {
        self.engine.check_buffers(input, output)?;
        let x = Tensor::new(self.input(), input);
        let sizes = self.input().sizes();
        reference_each(self.output(), output, |c, y| {
            let at: Vec<u32> = c.iter().zip(sizes).map(|(&o, &n)| o.checked_rem(n).unwrap_or(0)).collect();
            put(y, x.element(&at));
        });
        Ok(())
    }

    /// The repeat of each dimension.
    pub fn repeats(&self) -> &[u32] {
        &self.repeats
    }
}
