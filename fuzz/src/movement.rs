//! Checks over the facade's operator list ([`OperatorDesc`]: every operator, old and new), the C interface and the
//! builders, as functions of the fuzzer's bytes.

use arbitrary::{Result, Unstructured};
use strider::{
    DataType, DepthSpaceOrder, ImageResize, Normalize, OperatorDesc, PaddingMode, ResizeFilter, Scalar, ScaleBias,
    TensorDesc,
};

use crate::{Buf, MAX_BYTES, SENTINEL, data_type, i32_value, options, u32_value, values};

/// A tensor of `sizes` (exact, or now and then perturbed), with random strides or reversed dimensions sometimes.
fn tensor(u: &mut Unstructured<'_>, dt: DataType, sizes: &[u32]) -> Result<Option<TensorDesc>> {
    let mut sizes = sizes.to_vec();
    if u.ratio(1, 12)? && !sizes.is_empty() {
        let d = u.choose_index(sizes.len())?;
        sizes[d] = u32_value(u)?;
    }
    let t = match u.int_in_range(0u8..=3)? {
        0 => TensorDesc::with_strides(dt, &sizes, &values(u, sizes.len(), u32_value)?),
        _ => TensorDesc::new(dt, &sizes),
    };
    let Ok(t) = t else { return Ok(None) };
    let reversed: Vec<usize> = (0..t.rank()).filter(|_| u.ratio(1, 5).unwrap_or(false)).collect();
    Ok(t.with_reversed_dims(&reversed).ok())
}

/// Small sizes of `rank` dimensions (the valid cases a fuzzer mostly wants), or any now and then.
fn sizes(u: &mut Unstructured<'_>, rank: usize) -> Result<Vec<u32>> {
    (0..rank).map(|_| if u.ratio(1, 16)? { u32_value(u) } else { u.int_in_range(1..=6) }).collect()
}

fn scalar(u: &mut Unstructured<'_>, dt: DataType) -> Result<Scalar> {
    let dt = if u.ratio(1, 16)? { data_type(u)? } else { dt };
    Ok(Scalar::from_union(dt, u.arbitrary()?))
}

/// An operator description of any kind, its tensors mostly consistent with its arguments.
pub fn operator_desc(u: &mut Unstructured<'_>) -> Result<Option<OperatorDesc>> {
    let dt = data_type(u)?;
    let rank = if u.ratio(1, 16)? { u.int_in_range(0..=9)? } else { u.int_in_range(1..=5)? };
    let s = sizes(u, rank)?;
    macro_rules! t {
        ($sizes:expr) => {
            match tensor(u, dt, &$sizes)? {
                Some(t) => t,
                None => return Ok(None),
            }
        };
        ($dt:expr, $sizes:expr) => {
            match tensor(u, $dt, &$sizes)? {
                Some(t) => t,
                None => return Ok(None),
            }
        };
    }
    Ok(Some(match u.int_in_range(0u8..=19)? {
        0 => OperatorDesc::ElementWiseIdentity {
            input: t!(s),
            output: t!(s),
            scale_bias: if u.arbitrary()? {
                Some(ScaleBias { scale: u.arbitrary()?, bias: u.arbitrary()? })
            } else {
                None
            },
        },
        1 => {
            let to = data_type(u)?;
            OperatorDesc::Cast { input: t!(s), output: t!(to, s) }
        }
        2 => {
            let (offsets, sizes, strides) =
                (values(u, rank, u32_value)?, values(u, rank, u32_value)?, values(u, rank, u32_value)?);
            OperatorDesc::Slice { input: t!(s), output: t!(sizes.clone()), offsets, sizes, strides }
        }
        3 => {
            let out = sizes(u, rank)?;
            let (window_offsets, window_sizes, window_strides) =
                (values(u, rank, u32_value)?, values(u, rank, u32_value)?, values(u, rank, i32_value)?);
            OperatorDesc::Slice1 { input: t!(s), output: t!(out), window_offsets, window_sizes, window_strides }
        }
        4 => {
            let to = data_type(u)?;
            let axis = if u.arbitrary()? { Some(u.int_in_range(0..=rank)?) } else { None };
            let n = axis.and_then(|a| s.get(a)).copied().unwrap_or(1).min(8) as usize;
            let k = if u.arbitrary()? { n } else { 1 };
            let params = |u: &mut Unstructured<'_>| (0..k).map(|_| u.arbitrary::<f32>()).collect::<Result<Vec<_>>>();
            OperatorDesc::Normalize {
                input: t!(s),
                output: t!(to, s),
                window_offsets: vec![0; rank],
                window_sizes: s.clone(),
                window_strides: values(u, rank, |u| Ok(if u.ratio(1, 3)? { -1 } else { 1 }))?,
                channel_axis: axis,
                scale: params(u)?,
                bias: params(u)?,
            }
        }
        5 => {
            let mode = *u.choose(&[
                PaddingMode::Constant,
                PaddingMode::Edge,
                PaddingMode::Reflection,
                PaddingMode::Symmetric,
                PaddingMode::Wrap,
            ])?;
            let (start, end) =
                (values(u, rank, |u| u.int_in_range(0..=9))?, values(u, rank, |u| u.int_in_range(0..=9))?);
            let out: Vec<u32> = (0..rank)
                .map(|d| {
                    s[d].saturating_add(start.get(d).copied().unwrap_or(0))
                        .saturating_add(end.get(d).copied().unwrap_or(0))
                })
                .collect();
            OperatorDesc::Padding { input: t!(s), output: t!(out), mode, value: scalar(u, dt)?, start, end }
        }
        6 | 7 => {
            let axis = u.int_in_range(0..=rank as u32)?;
            let a = axis as usize;
            let count = u.int_in_range(0..=5usize)?;
            let mut parts = Vec::new();
            let mut whole = s.clone();
            if a < rank {
                whole[a] = 0;
            }
            for _ in 0..count {
                let mut p = s.clone();
                if a < rank {
                    p[a] = u.int_in_range(1..=4)?;
                    whole[a] = whole[a].saturating_add(p[a]);
                }
                parts.push(t!(p));
            }
            if a < rank && whole[a] == 0 {
                whole[a] = 1;
            }
            if u.int_in_range(0u8..=1)? == 0 {
                OperatorDesc::Join { inputs: parts, output: t!(whole), axis }
            } else {
                OperatorDesc::Split { input: t!(whole), outputs: parts, axis }
            }
        }
        8 => {
            let repeats = values(u, rank, |u| u.int_in_range(0..=4))?;
            let out: Vec<u32> = (0..rank).map(|d| s[d].saturating_mul(repeats.get(d).copied().unwrap_or(1))).collect();
            OperatorDesc::Tile { input: t!(s), output: t!(out), repeats }
        }
        9 | 10 => {
            let b: u32 = u.int_in_range(0..=3)?;
            let order = if u.arbitrary()? { DepthSpaceOrder::DepthColumnRow } else { DepthSpaceOrder::ColumnRowDepth };
            let (n, c, h, w) =
                (u.int_in_range(1..=2)?, u.int_in_range(1..=3)?, u.int_in_range(1..=4)?, u.int_in_range(1..=4)?);
            let depth = [n, c * b * b, h, w];
            let space = [n, c, h * b, w * b];
            if u.arbitrary()? {
                OperatorDesc::DepthToSpace { input: t!(depth), output: t!(space), block_size: b, order }
            } else {
                OperatorDesc::SpaceToDepth { input: t!(space), output: t!(depth), block_size: b, order }
            }
        }
        11 => OperatorDesc::FillValueConstant { output: t!(s), value: scalar(u, dt)? },
        19 => {
            // Images resized, cropped, flipped and normalized: sides up to 9, the output of the sizes the steps give
            // (when they are valid) or the input's.
            let side = |u: &mut Unstructured<'_>| u.int_in_range(1..=9u32);
            let resize = match u.int_in_range(0..=3u8)? {
                0 => ImageResize::None,
                1 => ImageResize::Stretch { height: side(u)?, width: side(u)? },
                2 => ImageResize::Shorter(side(u)?),
                _ => ImageResize::Letterbox { height: side(u)?, width: side(u)?, pad: u.arbitrary()? },
            };
            let filter = [ResizeFilter::Nearest, ResizeFilter::Bilinear, ResizeFilter::Bicubic, ResizeFilter::Area]
                [u.int_in_range(0..=3usize)?];
            let crop = if u.arbitrary()? { Some([side(u)?, side(u)?]) } else { None };
            let k = if u.arbitrary()? { 3 } else { 1 };
            let params = |u: &mut Unstructured<'_>| (0..k).map(|_| u.arbitrary::<f32>()).collect::<Result<Vec<_>>>();
            let (antialias, to) = (u.arbitrary()?, data_type(u)?);
            let input = t!(s);
            let b = Normalize::image(&input).resize_by(resize, filter);
            let b = match crop {
                Some([h, w]) => b.center_crop(h, w),
                None => b,
            };
            let out = b.output_desc().map_or_else(|_| s.clone(), |o| o.sizes().to_vec());
            OperatorDesc::Preprocess {
                input,
                output: t!(to, out),
                resize,
                filter,
                antialias,
                crop,
                flip_horizontal: u.arbitrary()?,
                flip_vertical: u.arbitrary()?,
                reverse_channels: u.arbitrary()?,
                scale: params(u)?,
                bias: params(u)?,
            }
        }
        13..=18 => {
            let Some(desc) = index_desc(u, dt, &s)? else { return Ok(None) };
            desc
        }
        _ => {
            let wide = if dt.is_float() { DataType::Float64 } else { DataType::Int64 };
            let start = if u.arbitrary()? { scalar(u, dt)? } else { scalar(u, wide)? };
            OperatorDesc::FillValueSequence { output: t!(s), start, delta: scalar(u, dt)? }
        }
    }))
}

/// An index type, now and then any type.
fn index_type(u: &mut Unstructured<'_>) -> Result<DataType> {
    if u.ratio(1, 16)? {
        return data_type(u);
    }
    Ok(*u.choose(&[DataType::Int32, DataType::Uint32, DataType::Int64, DataType::Uint64])?)
}

/// `full` right-aligned into `n` dimensions (leading 1s added or dropped), or `full` itself when a size above 1
/// would be dropped (the operator then refuses it).
fn right_align(full: &[u32], n: usize) -> Vec<u32> {
    if full.len() >= n {
        let cut = full.len() - n;
        if full[..cut].iter().all(|&s| s == 1) { full[cut..].to_vec() } else { full.to_vec() }
    } else {
        let mut s = vec![1; n - full.len()];
        s.extend_from_slice(full);
        s
    }
}

/// One of the six index operators over data of sizes `s`, its other tensors mostly consistent.
fn index_desc(u: &mut Unstructured<'_>, dt: DataType, s: &[u32]) -> Result<Option<OperatorDesc>> {
    let n = s.len();
    if n == 0 {
        return Ok(None);
    }
    let it = index_type(u)?;
    let axis = u.int_in_range(0..=n as u32)?.min(n as u32 - 1);
    let a = axis as usize;
    macro_rules! t {
        ($dt:expr, $sizes:expr) => {
            match tensor(u, $dt, &$sizes)? {
                Some(t) => t,
                None => return Ok(None),
            }
        };
    }
    // Meaningful ranks, batches and the tuple size of the ND operators.
    let r = u.int_in_range(1..=n)?;
    let q = u.int_in_range(1..=n)?;
    let b = u.int_in_range(0..=r.min(q) - 1)?;
    let tuple = u.int_in_range(1..=(r - b).max(1))?;
    let mut data = s.to_vec();
    data[..n - r].fill(1);
    let mut ix = sizes(u, n)?;
    ix[..n - q].fill(1);
    ix[n - 1] = tuple as u32;
    for k in 0..b.min(q - 1) {
        ix[n - q + k] = data[n - r + k];
    }
    let nd_out = |batches: usize| {
        let full: Vec<u32> =
            ix[n - q..n - 1].iter().chain(&data[n - r + batches + tuple.min(r - batches)..]).copied().collect();
        right_align(&full, n)
    };
    Ok(Some(match u.int_in_range(0u8..=5)? {
        0 => {
            let m = u.int_in_range(0..=n.min(3))?;
            let mut xs = vec![1; n];
            let small = sizes(u, m)?;
            xs[n - m..].copy_from_slice(&small);
            let full: Vec<u32> = s[..a].iter().chain(&xs[n - m..]).chain(&s[a + 1..]).copied().collect();
            let out = right_align(&full, n);
            OperatorDesc::Gather {
                input: t!(dt, s),
                indices: t!(it, xs),
                output: t!(dt, out),
                axis,
                index_dimensions: m as u32,
            }
        }
        1 => {
            let xs: Vec<u32> =
                s.iter().enumerate().map(|(d, &x)| if d == a { x.saturating_add(1) } else { x.min(2) }).collect();
            OperatorDesc::GatherElements { input: t!(dt, s), indices: t!(it, xs), output: t!(dt, xs), axis }
        }
        2 => OperatorDesc::GatherNd {
            input: t!(dt, data),
            indices: t!(it, ix),
            output: t!(dt, nd_out(b)),
            input_dimension_count: r as u32,
            indices_dimension_count: q as u32,
            batch_dimension_count: b as u32,
        },
        3 => {
            let xs: Vec<u32> =
                s.iter().enumerate().map(|(d, &x)| if d == a { x.saturating_add(2) } else { x.min(2) }).collect();
            OperatorDesc::ScatterElements {
                input: t!(dt, s),
                indices: t!(it, xs),
                updates: t!(dt, xs),
                output: t!(dt, s),
                axis,
            }
        }
        4 => OperatorDesc::ScatterNd {
            input: t!(dt, data),
            indices: t!(it, ix),
            updates: t!(dt, nd_out(0)),
            output: t!(dt, data),
            input_dimension_count: r as u32,
            indices_dimension_count: q as u32,
        },
        _ => {
            let mut xs = s.to_vec();
            xs[a] = 1;
            let vs = sizes(u, n)?;
            OperatorDesc::OneHot { indices: t!(it, xs), values: t!(dt, vs), output: t!(dt, s), axis }
        }
    }))
}

/// Which input of `op` holds indices (filled with small values, so that most runs are valid).
fn index_input(op: &strider::Operator) -> Option<usize> {
    match op.name() {
        "DML_OPERATOR_ONE_HOT" => Some(0),
        "DML_OPERATOR_GATHER" | "DML_OPERATOR_GATHER_ELEMENTS" | "DML_OPERATOR_GATHER_ND1" => Some(1),
        "DML_OPERATOR_SCATTER_ELEMENTS" | "DML_OPERATOR_SCATTER_ND" => Some(1),
        _ => None,
    }
}

/// Every operator of the facade's list: a description either fails to build or runs, on exact-size misaligned
/// buffers with every option, to the bytes its reference gives (padding untouched); a buffer one byte short or a
/// wrong count is refused and writes nothing.
pub fn operators(data: &[u8]) {
    let _ = operators_case(&mut Unstructured::new(data));
}

fn operators_case(u: &mut Unstructured<'_>) -> Result<()> {
    let Some(desc) = operator_desc(u)? else { return Ok(()) };
    let Ok(op) = desc.build() else { return Ok(()) };
    let needs = |ts: &[TensorDesc]| ts.iter().map(TensorDesc::required_buffer_bytes).collect::<Vec<u64>>();
    let (in_need, out_need) = (needs(op.inputs()), needs(op.outputs()));
    let opts = options(u)?;
    if in_need.iter().chain(&out_need).any(|&n| n > MAX_BYTES) {
        let ins: Vec<&[u8]> = in_need.iter().map(|_| &[][..]).collect();
        let mut outs: Vec<&mut [u8]> = out_need.iter().map(|_| &mut [][..]).collect();
        let e = op.execute_with(&ins, &mut outs, &opts);
        assert!(matches!(e, Err(strider::Error::BufferTooSmall { .. })), "{e:?}");
        return Ok(());
    }
    let seed: u8 = u.arbitrary()?;
    let indices = index_input(&op);
    let srcs: Vec<Buf> = in_need
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            if Some(k) == indices {
                // Small indices, negative ones too (from the end): element i is (i·7 + seed) mod 5 − 2·(seed mod 2),
                // little-endian in the index width (bytes past the value's sign-extend it).
                let w = op.inputs()[k].data_type().size_in_bytes().max(1);
                return Buf::new(n as usize, (usize::from(seed) + k) % 8, |i| {
                    let v = ((i / w) as i64 * 7 + i64::from(seed)) % 5 - 2 * i64::from(seed % 2);
                    v.to_le_bytes()[(i % w).min(7)]
                });
            }
            Buf::new(n as usize, (usize::from(seed) + k) % 8, |i| {
                (i as u8).wrapping_mul(29).wrapping_add(seed ^ k as u8)
            })
        })
        .collect();
    let ins: Vec<&[u8]> = srcs.iter().map(Buf::bytes).collect();
    let fresh = |k: usize, n: u64| Buf::new(n as usize, (usize::from(seed / 16) + k) % 8, |_| SENTINEL);
    let mut got: Vec<Buf> = out_need.iter().enumerate().map(|(k, &n)| fresh(k, n)).collect();
    let mut want: Vec<Buf> = out_need.iter().enumerate().map(|(k, &n)| fresh(k, n)).collect();
    // Refusals first: a wrong count, then a short output; nothing written.
    {
        let mut outs: Vec<&mut [u8]> = got.iter_mut().map(Buf::bytes_mut).collect();
        if !ins.is_empty() {
            let e = op.execute_with(&ins[..ins.len() - 1], &mut outs, &opts);
            assert!(matches!(e, Err(strider::Error::OperandCount { .. })), "{e:?}");
        }
        let mut rest = outs.into_iter();
        if let Some(first) = rest.next()
            && !first.is_empty()
        {
            let n = first.len() - 1;
            let mut shorts: Vec<&mut [u8]> = vec![&mut first[..n]];
            shorts.extend(rest);
            let e = op.execute_with(&ins, &mut shorts, &opts);
            assert!(matches!(e, Err(strider::Error::BufferTooSmall { .. })), "{e:?}");
        }
        assert!(got.iter().all(|b| b.bytes().iter().all(|&x| x == SENTINEL)), "a refused run wrote");
    }
    let mut outs: Vec<&mut [u8]> = got.iter_mut().map(Buf::bytes_mut).collect();
    let result = op.execute_with(&ins, &mut outs, &opts);
    let mut refs: Vec<&mut [u8]> = want.iter_mut().map(Buf::bytes_mut).collect();
    let reference = op.execute_reference(&ins, &mut refs);
    if let Err(e @ strider::Error::IndexOutOfRange { .. }) = &result {
        // An invalid index: the reference finds the same one, and nothing is written.
        assert_eq!(reference.as_ref().err(), Some(e), "{desc:?}: the reference disagrees on the invalid index");
        assert!(got.iter().all(|b| b.bytes().iter().all(|&x| x == SENTINEL)), "{desc:?}: an invalid index wrote");
        return Ok(());
    }
    result.unwrap_or_else(|e| panic!("{desc:?} failed: {e}"));
    reference.unwrap_or_else(|e| panic!("{desc:?}: reference failed: {e}"));
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let dt = op.outputs()[k].data_type();
        let width = dt.size_in_bytes();
        let same =
            g.bytes().chunks(width).zip(w.bytes().chunks(width)).all(|(a, b)| a == b || crate::values::same(dt, a, b));
        assert!(same, "{desc:?} with {opts:?}: output {k} differs from the reference");
        assert!(g.storage[..g.at].iter().all(|&b| b == SENTINEL), "wrote before output {k}");
    }
    Ok(())
}

/// The image builder with extreme values: it builds or refuses, never panics, and what it builds is a valid
/// normalization of the window it says.
pub fn builders(data: &[u8]) {
    let _ = builders_case(&mut Unstructured::new(data));
}

fn builders_case(u: &mut Unstructured<'_>) -> Result<()> {
    let dt = data_type(u)?;
    let rank = u.int_in_range(2..=5)?;
    let s = values(u, rank, u32_value)?;
    let Some(input) = tensor(u, dt, &s)? else { return Ok(()) };
    let mut b = Normalize::image(&input);
    for _ in 0..u.int_in_range(0..=6)? {
        b = match u.int_in_range(0u8..=9)? {
            0 => b.crop(u32_value(u)?, u32_value(u)?, u32_value(u)?, u32_value(u)?),
            1 => b.center_crop(u32_value(u)?, u32_value(u)?),
            2 => b.flip_horizontal(),
            3 => b.flip_vertical(),
            4 => b.subsample(u32_value(u)?, u32_value(u)?),
            5 => b.channels(u32_value(u)?, u32_value(u)?),
            6 => b.reverse_channels(),
            7 => b.mean_std(&[u.arbitrary()?, u.arbitrary()?, u.arbitrary()?], &[u.arbitrary()?]),
            8 => b.scale_bias(&[u.arbitrary()?], &[u.arbitrary()?, u.arbitrary()?]),
            _ => b.output_type(data_type(u)?),
        };
    }
    if let Ok(op) = b.build() {
        // What it built is its own description: the same operator through the list.
        let desc = OperatorDesc::Normalize {
            input: op.input().clone(),
            output: op.output().clone(),
            window_offsets: op.window_offsets().to_vec(),
            window_sizes: op.window_sizes().to_vec(),
            window_strides: op.window_strides().to_vec(),
            channel_axis: op.channel_axis(),
            scale: op.scale().to_vec(),
            bias: op.bias().to_vec(),
        };
        assert!(desc.build().is_ok(), "the builder's operator does not rebuild");
    }
    Ok(())
}
