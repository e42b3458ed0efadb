#![deny(clippy::arithmetic_side_effects)]
//! The planner: turns a validated strided copy into a [`Plan`] in normal form. Pure integer code.
//!
//! Stages, in order:
//! 1. offsets and negative-stride starts are already folded into `in_base` by the operator;
//! 2. drop extent-1 dimensions;
//! 3. order dimensions by output stride, largest first (the row is the output's fastest dimension);
//! 4. flip dimensions whose strides are negative in both operands (moving both bases);
//! 5. coalesce neighbours `a` (outer), `b` (inner) with `stride_a = extent_b · stride_b` in both operands;
//! 6. widen (pure copies only): a short row contiguous in both operands (the channels of an interleaved pixel)
//!    becomes one wider element, so that e.g. a horizontal flip of RGB becomes a reverse of 3-byte elements.
//!
//! Strides become bytes per operand (a conversion reads and writes elements of different widths). The row kernel is
//! then chosen by [`strider_kernels::Program::new`] from the row's strides.

use strider_kernels::{Dim, ElementOp, Params, Plan, Width};

use crate::Error;

/// A strided copy in elements, as an operator describes it after validation.
#[derive(Clone, Debug)]
pub(crate) struct Problem<'a> {
    /// What happens to each element (fixes the input and output element widths).
    pub op: ElementOp,
    /// Extents (the output's sizes).
    pub extents: &'a [u32],
    /// Signed input step per dimension, in elements.
    pub in_strides: &'a [i64],
    /// Signed output step per dimension, in elements.
    pub out_strides: &'a [i64],
    /// Input element offset of coordinate 0.
    pub in_base: u64,
    /// Output element offset of coordinate 0.
    pub out_base: u64,
    /// A normalization's `(scale, bias)` pairs and each dimension's step through them (0 where they do not vary).
    pub params: Option<(&'a [[f32; 2]], &'a [i64])>,
}

/// A dimension on its way through the planner: the plan's dimension and its step through the parameters.
#[derive(Clone, Copy)]
struct D {
    dim: Dim,
    aux: isize,
}

fn internal(what: &str) -> Error {
    Error::Internal { detail: format!("planner: {what} overflows isize after validation") }
}

fn bytes(elements: i64, width: usize) -> Result<isize, Error> {
    i128::from(elements)
        .checked_mul(width as i128)
        .and_then(|b| isize::try_from(b).ok())
        .ok_or_else(|| internal("a byte stride"))
}

/// Plans `p`. Validation has already bounded every address, so the conversions here cannot fail for a validated
/// operator; they are still checked and reported as [`Error::Internal`].
pub(crate) fn plan(p: &Problem<'_>) -> Result<Plan, Error> {
    let (iw, ow) = (p.op.in_width(), p.op.out_width());
    // u64 × (width ≤ 16) fits i128; the flips below are checked.
    let mut in_base = i128::from(p.in_base).checked_mul(iw as i128).ok_or_else(|| internal("the input base"))?;
    let mut out_base = i128::from(p.out_base).checked_mul(ow as i128).ok_or_else(|| internal("the output base"))?;

    // 2. drop extent-1 dimensions
    let mut dims: Vec<D> = Vec::with_capacity(p.extents.len());
    for k in 0..p.extents.len() {
        if p.extents[k] > 1 {
            let aux = match p.params {
                Some((_, strides)) => isize::try_from(strides[k]).map_err(|_| internal("a parameter stride"))?,
                None => 0,
            };
            dims.push(D {
                dim: Dim {
                    extent: p.extents[k] as usize,
                    in_stride: bytes(p.in_strides[k], iw)?,
                    out_stride: bytes(p.out_strides[k], ow)?,
                },
                aux,
            });
        }
    }

    // 3. order: largest |output stride| first; ties (only possible for overlapping outputs, which validation
    // rejects) keep the larger input stride outside.
    dims.sort_by(|a, b| {
        (b.dim.out_stride.unsigned_abs(), b.dim.in_stride.unsigned_abs())
            .cmp(&(a.dim.out_stride.unsigned_abs(), a.dim.in_stride.unsigned_abs()))
    });

    // 4. flip dimensions negative in both operands (the parameters follow the coordinates)
    let mut aux_base: i128 = 0;
    for D { dim: d, aux } in &mut dims {
        if d.in_stride < 0 && d.out_stride < 0 {
            let last = (d.extent as i128).saturating_sub(1); // extent ≥ 2 here
            let flip = |base: i128, stride: isize| last.checked_mul(stride as i128).and_then(|r| base.checked_add(r));
            in_base = flip(in_base, d.in_stride).ok_or_else(|| internal("the input base"))?;
            out_base = flip(out_base, d.out_stride).ok_or_else(|| internal("the output base"))?;
            aux_base = flip(aux_base, *aux).ok_or_else(|| internal("the parameter base"))?;
            d.in_stride = d.in_stride.checked_neg().ok_or_else(|| internal("a byte stride"))?;
            d.out_stride = d.out_stride.checked_neg().ok_or_else(|| internal("a byte stride"))?;
            *aux = aux.checked_neg().ok_or_else(|| internal("a parameter stride"))?;
        }
    }

    // 5. coalesce, innermost pair first (in all three operands)
    let mut merged: Vec<D> = Vec::with_capacity(dims.len());
    let follows = |outer: isize, inner: &D, pick: fn(&D) -> isize| {
        Some(outer as i128) == (inner.dim.extent as i128).checked_mul(pick(inner) as i128)
    };
    for d in dims.into_iter().rev() {
        match merged.last_mut() {
            Some(inner)
                if follows(d.dim.in_stride, inner, |x| x.dim.in_stride)
                    && follows(d.dim.out_stride, inner, |x| x.dim.out_stride)
                    && follows(d.aux, inner, |x| x.aux) =>
            {
                inner.dim.extent = inner.dim.extent.checked_mul(d.dim.extent).ok_or_else(|| internal("an extent"))?;
            }
            _ => merged.push(d),
        }
    }
    merged.reverse();
    let aux_strides: Vec<isize> = merged.iter().map(|d| d.aux).collect();
    let mut dims: Vec<Dim> = merged.into_iter().map(|d| d.dim).collect();

    // 6. widen a short row contiguous in both operands into one element (pure copies: a conversion looks at the
    // values element by element)
    let mut op = p.op;
    if let ElementOp::Copy { width } = op
        && dims.len() >= 2
    {
        let row = dims[dims.len().saturating_sub(1)]; // at least 2 dimensions here
        let w = width as isize;
        if row.in_stride == w
            && row.out_stride == w
            && let Some(wide) = row.extent.checked_mul(width).and_then(Width::from_bytes)
        {
            op = ElementOp::Copy { width: wide.bytes() };
            dims.pop();
        }
    }

    let mut aux_strides = aux_strides;
    if dims.is_empty() {
        dims.push(Dim { extent: 1, in_stride: op.in_width() as isize, out_stride: op.out_width() as isize });
        aux_strides = vec![0];
    }
    let in_base = usize::try_from(in_base).map_err(|_| internal("the input base"))?;
    let out_base = usize::try_from(out_base).map_err(|_| internal("the output base"))?;
    let plan = Plan::new(op, in_base, out_base, dims);
    Ok(match p.params {
        Some((table, _)) => {
            let base = usize::try_from(aux_base).map_err(|_| internal("the parameter base"))?;
            plan.with_params(Params::new(table.to_vec(), base, aux_strides))
        }
        None => plan,
    })
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small values
mod tests {
    use super::*;
    use strider_kernels::{Program, RowKind};

    fn packed(sizes: &[u32]) -> Vec<i64> {
        let mut s = vec![0i64; sizes.len()];
        let mut acc = 1i64;
        for k in (0..sizes.len()).rev() {
            s[k] = acc;
            acc *= i64::from(sizes[k]);
        }
        s
    }

    fn dims(plan: &Plan) -> Vec<(usize, isize, isize)> {
        plan.dims().iter().map(|d| (d.extent, d.in_stride, d.out_stride)).collect()
    }

    #[test]
    fn crop_of_whole_rows_is_one_run_per_plane() {
        // NCHW 2×3×8×8 f32, crop rows 2..6 of every plane keeping whole rows.
        let ins = packed(&[2, 3, 8, 8]);
        let out = [2, 3, 4, 8];
        let outs = packed(&out);
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 4 },
            extents: &out,
            in_strides: &ins,
            out_strides: &outs,
            in_base: 2 * 8,
            out_base: 0,
            params: None,
        })
        .unwrap();
        // N and C coalesce (6 planes, in stride 256 B, out stride 128 B); H and W coalesce into one 32-element run.
        assert_eq!(dims(&p), vec![(6, 256, 128), (32, 4, 4)]);
        assert_eq!((p.in_width(), p.in_base(), p.out_base()), (4, 64, 0));
        assert_eq!(Program::new(&p).unwrap().kind(), RowKind::Copy);
    }

    #[test]
    fn packed_copy_is_one_run() {
        let s = [4u32, 5, 6];
        let st = packed(&s);
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 2 },
            extents: &s,
            in_strides: &st,
            out_strides: &st,
            in_base: 0,
            out_base: 0,
            params: None,
        })
        .unwrap();
        assert_eq!(dims(&p), vec![(120, 2, 2)]);
    }

    #[test]
    fn spec_example_2_is_two_gathers_of_two() {
        // input 1×1×4×4 f32, window offsets {0,0,0,1} sizes {1,1,4,3} strides {1,1,-2,2} → output 1×1×2×2.
        let out = [1u32, 1, 2, 2];
        let ins = [16i64, 16, -2 * 4, 2];
        let outs = packed(&out);
        let in_base = 3 * 4 + 1;
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 4 },
            extents: &out,
            in_strides: &ins,
            out_strides: &outs,
            in_base,
            out_base: 0,
            params: None,
        })
        .unwrap();
        assert_eq!(dims(&p), vec![(2, -32, 8), (2, 8, 4)]);
        assert_eq!(p.in_base(), 13 * 4);
        // Rows of 8 bytes: both dimensions go into one table row of 4 offsets.
        assert_eq!(Program::new(&p).unwrap().kind(), RowKind::Table { len: 4 });
    }

    #[test]
    fn hflip_of_rgb_reverses_three_byte_pixels() {
        // HWC 1080×1920×3 u8, window stride -1 on W.
        let out = [1080u32, 1920, 3];
        let ins = [5760i64, -3, 1];
        let outs = packed(&out);
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 1 },
            extents: &out,
            in_strides: &ins,
            out_strides: &outs,
            in_base: 1919 * 3,
            out_base: 0,
            params: None,
        })
        .unwrap();
        assert_eq!(dims(&p), vec![(1080, 5760, 5760), (1920, -3, 3)]);
        assert_eq!(p.in_width(), 3);
        assert_eq!(Program::new(&p).unwrap().kind(), RowKind::Reverse);
    }

    #[test]
    fn nhwc_input_to_packed_output_orders_by_output_stride() {
        // Logical NCHW sizes 1×3×2×2 with NHWC input strides {12, 1, 6, 3}; packed NCHW output.
        let out = [1u32, 3, 2, 2];
        let ins = [12i64, 1, 6, 3];
        let outs = packed(&out);
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 4 },
            extents: &out,
            in_strides: &ins,
            out_strides: &outs,
            in_base: 0,
            out_base: 0,
            params: None,
        })
        .unwrap();
        // H and W coalesce (in 24 = 2·12, out 8 = 2·4); the channel stays outside.
        assert_eq!(dims(&p), vec![(3, 4, 16), (4, 12, 4)]);
        assert_eq!(Program::new(&p).unwrap().kind(), RowKind::Table { len: 12 });
    }

    #[test]
    fn negative_in_both_operands_is_flipped() {
        let out = [5u32];
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 4 },
            extents: &out,
            in_strides: &[-1],
            out_strides: &[-1],
            in_base: 4,
            out_base: 4,
            params: None,
        })
        .unwrap();
        assert_eq!(dims(&p), vec![(5, 4, 4)]);
        assert_eq!((p.in_base(), p.out_base()), (0, 0));
    }

    #[test]
    fn single_element_and_broadcast() {
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 8 },
            extents: &[1, 1],
            in_strides: &[9, 9],
            out_strides: &[1, 1],
            in_base: 7,
            out_base: 0,
            params: None,
        })
        .unwrap();
        assert_eq!(dims(&p), vec![(1, 8, 8)]);
        assert_eq!(p.in_base(), 56);
        // 2×3 broadcast of 3 elements, copied to packed: two copies of the same row.
        let p = plan(&Problem {
            op: ElementOp::Copy { width: 1 },
            extents: &[2, 3],
            in_strides: &[0, 1],
            out_strides: &[3, 1],
            in_base: 0,
            out_base: 0,
            params: None,
        })
        .unwrap();
        assert_eq!(dims(&p), vec![(2, 0, 3)]);
        assert_eq!(p.in_width(), 3);
        assert_eq!(Program::new(&p).unwrap().kind(), RowKind::Broadcast);
    }
}
