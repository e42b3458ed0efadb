//! The checks behind Strider's fuzz targets, as plain functions of the fuzzer's bytes: the libFuzzer targets in
//! `fuzz_targets/` call them, and `tests/replay.rs` runs them over the committed corpus and every reproducer on
//! stable Rust, so `cargo test --workspace` replays what the fuzzers found.
//!
//! Each check decodes a case from the bytes, runs the public API, and panics (a fuzzer finding) when the library
//! panics, returns a wrong result, writes outside its output, or breaks its own contract. References are written
//! here from the spec, independently of the library: a naive gather over output coordinates, and the value
//! reference of the integration tests for conversions.

use arbitrary::{Result, Unstructured};
use strider::{
    Cast, DataType, ExecOptions, Identity, Isa, Normalize, Parallelism, ScaleBias, Slice, Slice1, TensorDesc,
};
use strider_kernels::{Dim, ElemType, ElementOp, Params, Plan, Program, Width};
use strider_kernels::{Overlap, find_overlap};

mod movement;

pub use movement::{builders, operators};

#[path = "../../tests/common/values.rs"]
#[allow(dead_code)]
mod values;

/// Buffers larger than this are not allocated: the case is validated, and execution checked only for refusing
/// short buffers.
const MAX_BYTES: u64 = 1 << 20;
/// Bytes written before every run, to find writes outside the output's elements.
const SENTINEL: u8 = 0xA5;

/// A u32 that is mostly small and sometimes at a boundary.
fn u32_value(u: &mut Unstructured<'_>) -> Result<u32> {
    Ok(match u.int_in_range(0u8..=12)? {
        0..=7 => u.int_in_range(0..=6)?,
        8 => u32::MAX,
        9 => u32::MAX - 1,
        10 => 1 << 31,
        11 => u.int_in_range(0..=300)?,
        _ => u.arbitrary()?,
    })
}

fn i32_value(u: &mut Unstructured<'_>) -> Result<i32> {
    Ok(match u.int_in_range(0u8..=10)? {
        0..=7 => u.int_in_range(-4..=4)?,
        8 => i32::MIN,
        9 => i32::MAX,
        _ => u.arbitrary()?,
    })
}

/// `rank` values, or now and then a wrong count.
fn values<T>(u: &mut Unstructured<'_>, rank: usize, f: fn(&mut Unstructured<'_>) -> Result<T>) -> Result<Vec<T>> {
    let n = if u.ratio(1, 16)? { u.int_in_range(0..=9)? } else { rank };
    (0..n).map(|_| f(u)).collect()
}

fn data_type(u: &mut Unstructured<'_>) -> Result<DataType> {
    u.choose(&DataType::ALL).copied()
}

/// A tensor description: sizes and (sometimes) strides of the given rank; `None` when the library rejects it.
fn desc(u: &mut Unstructured<'_>, dt: DataType, rank: usize) -> Result<Option<TensorDesc>> {
    let sizes = values(u, rank, u32_value)?;
    let t = if u.arbitrary()? {
        TensorDesc::with_strides(dt, &sizes, &values(u, rank, u32_value)?)
    } else {
        TensorDesc::new(dt, &sizes)
    };
    Ok(t.ok())
}

/// Execution options: any level this CPU has, one thread or split into the smallest pieces, either store kind.
fn options(u: &mut Unstructured<'_>) -> Result<ExecOptions> {
    let isas = Isa::available();
    let mut o = ExecOptions::default().with_isa(*u.choose(&isas)?);
    o = if u.arbitrary()? {
        o.with_parallelism(Parallelism::Sequential)
    } else {
        o.with_parallelism(Parallelism::Grain(1))
    };
    if u.arbitrary()? {
        o = o.with_streaming(u.arbitrary()?);
    }
    Ok(o)
}

/// An exact-size buffer at an arbitrary misalignment.
struct Buf {
    storage: Vec<u8>,
    at: usize,
    len: usize,
}

impl Buf {
    fn new(len: usize, at: usize, fill: impl Fn(usize) -> u8) -> Buf {
        let mut storage = vec![SENTINEL; len + at];
        for (i, b) in storage[at..].iter_mut().enumerate() {
            *b = fill(i);
        }
        Buf { storage, at, len }
    }

    fn bytes(&self) -> &[u8] {
        &self.storage[self.at..self.at + self.len]
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.at..self.at + self.len]
    }
}

/// Calls `f` for every coordinate of `sizes`, last dimension fastest (nothing for an empty shape).
fn for_each_coord(sizes: &[u32], mut f: impl FnMut(&[u64])) {
    if sizes.is_empty() || sizes.contains(&0) {
        return;
    }
    let mut c = vec![0u64; sizes.len()];
    loop {
        f(&c);
        let mut k = sizes.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            c[k] += 1;
            if c[k] < u64::from(sizes[k]) {
                break;
            }
            c[k] = 0;
        }
    }
}

/// The element offset `Σ cᵢ·stridesᵢ`.
fn dot(c: &[u64], strides: &[u32]) -> u64 {
    c.iter().zip(strides).map(|(&x, &s)| x * u64::from(s)).sum()
}

/// The reference output of an operator whose output coordinate `c` reads the input element at `input_of(c)`
/// (an element offset) and converts it with `convert`: a sentinel-filled buffer of the output's size.
fn reference(
    input: &TensorDesc,
    output: &TensorDesc,
    src: &[u8],
    input_of: impl Fn(&[u64]) -> u64,
    convert: impl Fn(&[u8]) -> Vec<u8>,
) -> Vec<u8> {
    let (iw, ow) = (input.data_type().size_in_bytes(), output.data_type().size_in_bytes());
    let mut want = vec![SENTINEL; output.required_buffer_bytes() as usize];
    for_each_coord(output.sizes(), |c| {
        let i = input_of(c) as usize * iw;
        let o = dot(c, output.strides()) as usize * ow;
        want[o..o + ow].copy_from_slice(&convert(&src[i..i + iw]));
    });
    want
}

/// Runs `execute` on exact-size, misaligned buffers (or checks that it refuses short ones when the tensors are too
/// large to allocate) and compares the whole output buffer, padding included, with `want(src)`.
fn run_and_compare(
    u: &mut Unstructured<'_>,
    input: &TensorDesc,
    output: &TensorDesc,
    execute: impl Fn(&[u8], &mut [u8], &ExecOptions) -> std::result::Result<(), strider::Error>,
    want: impl Fn(&[u8]) -> Vec<u8>,
) -> Result<()> {
    let (need_in, need_out) = (input.required_buffer_bytes(), output.required_buffer_bytes());
    let opts = options(u)?;
    if need_in > MAX_BYTES || need_out > MAX_BYTES {
        let short = execute(&[], &mut [], &opts);
        assert!(matches!(short, Err(strider::Error::BufferTooSmall { .. })), "{short:?}");
        return Ok(());
    }
    let seed: u8 = u.arbitrary()?;
    let src = Buf::new(need_in as usize, usize::from(seed % 8), |i| (i as u8).wrapping_mul(31).wrapping_add(seed));
    let mut dst = Buf::new(need_out as usize, usize::from(seed / 32), |_| SENTINEL);
    // A buffer one byte short is refused and left untouched.
    if need_out > 0 {
        let e = execute(src.bytes(), &mut dst.bytes_mut()[..need_out as usize - 1], &opts);
        assert!(matches!(e, Err(strider::Error::BufferTooSmall { .. })), "{e:?}");
        assert!(dst.bytes().iter().all(|&b| b == SENTINEL), "a refused run wrote");
    }
    execute(src.bytes(), dst.bytes_mut(), &opts).unwrap_or_else(|e| panic!("a validated operator failed: {e}"));
    let want = want(src.bytes());
    let dt = output.data_type();
    let w = dt.size_in_bytes();
    let same = dst.bytes().chunks(w).zip(want.chunks(w)).all(|(g, x)| g == x || values::same(dt, g, x));
    assert!(same, "{input:?} -> {output:?} with {opts:?}: the output differs from the reference");
    assert!(dst.storage[..dst.at].iter().all(|&b| b == SENTINEL), "wrote before the output buffer");
    Ok(())
}

/// `DML_SLICE1`: arbitrary descriptors and windows.
pub fn slice1(data: &[u8]) {
    let _ = slice1_case(&mut Unstructured::new(data));
}

fn slice1_case(u: &mut Unstructured<'_>) -> Result<()> {
    let dt = data_type(u)?;
    let rank = u.int_in_range(0..=9)?;
    let (Some(input), Some(output)) = (desc(u, dt, rank)?, desc(u, dt, rank)?) else { return Ok(()) };
    let (offsets, sizes, strides) =
        (values(u, rank, u32_value)?, values(u, rank, u32_value)?, values(u, rank, i32_value)?);
    let Ok(op) = Slice1::new(&input, &output, &offsets, &sizes, &strides) else { return Ok(()) };
    let rank = input.rank(); // validated: every argument has this many entries
    let start: Vec<i128> =
        (0..rank).map(|i| i128::from(offsets[i]) + if strides[i] < 0 { i128::from(sizes[i]) - 1 } else { 0 }).collect();
    let input_of = |c: &[u64]| -> u64 {
        let idx = (0..rank).map(|i| {
            let x = start[i] + i128::from(strides[i]) * i128::from(c[i]);
            assert!(x >= 0 && x < i128::from(input.sizes()[i]), "a validated window reads outside the input");
            x as u64
        });
        idx.zip(input.strides()).map(|(x, &s)| x * u64::from(s)).sum()
    };
    run_and_compare(
        u,
        &input,
        &output,
        |s, d, o| op.execute_with(s, d, o),
        |src| reference(&input, &output, src, input_of, |b| b.to_vec()),
    )
}

/// `DML_SLICE`: arbitrary descriptors, offsets, sizes and unsigned strides.
pub fn slice(data: &[u8]) {
    let _ = slice_case(&mut Unstructured::new(data));
}

fn slice_case(u: &mut Unstructured<'_>) -> Result<()> {
    let dt = data_type(u)?;
    let rank = u.int_in_range(0..=9)?;
    let (Some(input), Some(output)) = (desc(u, dt, rank)?, desc(u, dt, rank)?) else { return Ok(()) };
    let (offsets, sizes, strides) =
        (values(u, rank, u32_value)?, values(u, rank, u32_value)?, values(u, rank, u32_value)?);
    let Ok(op) = Slice::new(&input, &output, &offsets, &sizes, &strides) else { return Ok(()) };
    let rank = input.rank(); // validated: every argument has this many entries
    let input_of = |c: &[u64]| -> u64 {
        (0..rank)
            .map(|i| {
                let x = u64::from(offsets[i]) + u64::from(strides[i]) * c[i];
                assert!(x < u64::from(input.sizes()[i]), "a validated slice reads outside the input");
                x * u64::from(input.strides()[i])
            })
            .sum()
    };
    run_and_compare(
        u,
        &input,
        &output,
        |s, d, o| op.execute_with(s, d, o),
        |src| reference(&input, &output, src, input_of, |b| b.to_vec()),
    )
}

/// `DML_ELEMENT_WISE_IDENTITY`, with or without scale and bias, and in place.
pub fn identity(data: &[u8]) {
    let _ = identity_case(&mut Unstructured::new(data));
}

fn identity_case(u: &mut Unstructured<'_>) -> Result<()> {
    let dt = data_type(u)?;
    let rank = u.int_in_range(0..=9)?;
    let (Some(input), Some(output)) = (desc(u, dt, rank)?, desc(u, dt, rank)?) else { return Ok(()) };
    let scale_bias =
        if u.arbitrary()? { Some(ScaleBias { scale: u.arbitrary()?, bias: u.arbitrary()? }) } else { None };
    let op = match scale_bias {
        None => Identity::new(&input, &output),
        Some(sb) => Identity::with_scale_bias(&input, &output, sb),
    };
    let Ok(op) = op else { return Ok(()) };
    let convert = |b: &[u8]| match scale_bias {
        None => b.to_vec(),
        Some(sb) => values::scale_bias(dt, b, sb.scale, sb.bias),
    };
    let input_of = |c: &[u64]| dot(c, input.strides());
    run_and_compare(
        u,
        &input,
        &output,
        |s, d, o| op.execute_with(s, d, o),
        |src| reference(&input, &output, src, input_of, convert),
    )?;
    // In place: refused unless the layouts address the same elements; then equal to the out-of-place result.
    let same_layout = input.rank() == output.rank()
        && (0..input.rank()).all(|d| input.sizes()[d] == 1 || input.strides()[d] == output.strides()[d]);
    let need = input.required_buffer_bytes().max(output.required_buffer_bytes());
    if need <= MAX_BYTES {
        let mut buf: Vec<u8> = (0..need as usize).map(|i| (i as u8).wrapping_mul(7)).collect();
        let before = buf.clone();
        match op.execute_in_place(&mut buf) {
            Ok(()) => {
                assert!(same_layout, "in place accepted for different layouts");
                let want = reference(&input, &output, &before, input_of, convert);
                let w = dt.size_in_bytes();
                for_each_coord(output.sizes(), |c| {
                    let o = dot(c, output.strides()) as usize * w;
                    assert!(
                        buf[o..o + w] == want[o..o + w] || values::same(dt, &buf[o..o + w], &want[o..o + w]),
                        "in place differs from the reference"
                    );
                });
            }
            Err(strider::Error::NotInPlace { .. }) => assert!(!same_layout, "in place refused for one layout"),
            Err(e) => panic!("in place failed: {e}"),
        }
    }
    Ok(())
}

/// `DML_CAST`: any pair of types, arbitrary layouts.
pub fn cast(data: &[u8]) {
    let _ = cast_case(&mut Unstructured::new(data));
}

fn cast_case(u: &mut Unstructured<'_>) -> Result<()> {
    let (from, to) = (data_type(u)?, data_type(u)?);
    let rank = u.int_in_range(0..=9)?;
    let (Some(input), Some(output)) = (desc(u, from, rank)?, desc(u, to, rank)?) else { return Ok(()) };
    let Ok(op) = Cast::new(&input, &output) else { return Ok(()) };
    let input_of = |c: &[u64]| dot(c, input.strides());
    run_and_compare(
        u,
        &input,
        &output,
        |s, d, o| op.execute_with(s, d, o),
        |src| reference(&input, &output, src, input_of, |b| values::encode(to, values::decode(from, b))),
    )
}

/// [`Normalize`]: any pair of types, arbitrary layouts and windows, a channel axis anywhere (or none, or out of
/// range), scale and bias of any length and value (non-finite ones must be refused).
pub fn normalize(data: &[u8]) {
    let _ = normalize_case(&mut Unstructured::new(data));
}

fn f32_value(u: &mut Unstructured<'_>) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=10)? {
        0..=6 => f32::from(u.int_in_range(-300i16..=300)?) / 64.0,
        7 => f32::NAN,
        8 => f32::INFINITY,
        _ => u.arbitrary()?,
    })
}

fn normalize_case(u: &mut Unstructured<'_>) -> Result<()> {
    let (from, to) = (data_type(u)?, data_type(u)?);
    let rank = u.int_in_range(0..=9)?;
    let (Some(input), Some(output)) = (desc(u, from, rank)?, desc(u, to, rank)?) else { return Ok(()) };
    let (offsets, sizes, strides) =
        (values(u, rank, u32_value)?, values(u, rank, u32_value)?, values(u, rank, i32_value)?);
    let axis = if u.ratio(1, 4)? { None } else { Some(u.int_in_range(0..=rank)?) };
    let params = |u: &mut Unstructured<'_>| -> Result<Vec<f32>> {
        let channels = axis.and_then(|a| output.sizes().get(a)).map_or(1, |&c| c as usize);
        let n = match u.int_in_range(0u8..=5)? {
            0..=2 => 1,
            3 | 4 => channels.min(64),
            _ => u.int_in_range(0..=5)?,
        };
        (0..n).map(|_| f32_value(u)).collect()
    };
    let (scale, bias) = (params(u)?, params(u)?);
    let result = Normalize::new(&input, &output, &offsets, &sizes, &strides, axis, &scale, &bias);
    let finite = scale.iter().chain(&bias).all(|v| v.is_finite());
    let Ok(op) = result else { return Ok(()) };
    assert!(finite, "non-finite scale or bias accepted");
    let rank = input.rank(); // validated: every argument has this many entries
    let start: Vec<i128> =
        (0..rank).map(|i| i128::from(offsets[i]) + if strides[i] < 0 { i128::from(sizes[i]) - 1 } else { 0 }).collect();
    let input_of = |c: &[u64]| -> u64 {
        let idx = (0..rank).map(|i| {
            let x = start[i] + i128::from(strides[i]) * i128::from(c[i]);
            assert!(x >= 0 && x < i128::from(input.sizes()[i]), "a validated window reads outside the input");
            x as u64
        });
        idx.zip(input.strides()).map(|(x, &s)| x * u64::from(s)).sum()
    };
    let pick = |v: &[f32], k: u64| if v.len() == 1 { v[0] } else { v[k as usize] };
    let (iw, ow) = (from.size_in_bytes(), to.size_in_bytes());
    run_and_compare(
        u,
        &input,
        &output,
        |s, d, o| op.execute_with(s, d, o),
        |src| {
            let mut want = vec![SENTINEL; output.required_buffer_bytes() as usize];
            for_each_coord(output.sizes(), |c| {
                let k = axis.map_or(0, |a| c[a]);
                let i = input_of(c) as usize * iw;
                let o = dot(c, output.strides()) as usize * ow;
                let y = values::normalize(from, to, &src[i..i + iw], pick(&scale, k), pick(&bias, k));
                want[o..o + ow].copy_from_slice(&y);
            });
            want
        },
    )
}

/// An arbitrary [`Plan`] through `strider-kernels`' safe API: `Program::new` either refuses it or proves it, and a
/// proven plan runs exactly as a naive walk over its coordinates says, touching nothing else.
pub fn plan(data: &[u8]) {
    let _ = plan_case(&mut Unstructured::new(data));
}

fn extent(u: &mut Unstructured<'_>) -> Result<usize> {
    Ok(match u.int_in_range(0u8..=10)? {
        0..=7 => u.int_in_range(1..=9)?,
        8 => usize::MAX,
        9 => 0,
        _ => u.arbitrary()?,
    })
}

fn stride(u: &mut Unstructured<'_>, w: isize) -> Result<isize> {
    Ok(match u.int_in_range(0u8..=12)? {
        0..=8 => w * u.int_in_range(-12..=12)?,
        9 => u.int_in_range(-40..=40)?,
        10 => isize::MAX,
        11 => isize::MIN,
        _ => u.arbitrary()?,
    })
}

fn elem_type(u: &mut Unstructured<'_>) -> Result<ElemType> {
    u.choose(&ElemType::ALL).copied()
}

fn plan_case(u: &mut Unstructured<'_>) -> Result<()> {
    let op = match u.int_in_range(0u8..=4)? {
        0 => ElementOp::Copy {
            width: if u.ratio(1, 10)? { u.int_in_range(0..=20)? } else { *u.choose(&Width::ALL)? as usize },
        },
        1 | 2 => ElementOp::Cast { from: elem_type(u)?, to: elem_type(u)? },
        3 => ElementOp::ScaleBias { ty: elem_type(u)?, scale: u.arbitrary()?, bias: u.arbitrary()? },
        _ => ElementOp::Normalize { from: elem_type(u)?, to: elem_type(u)? },
    };
    let (iw, ow) = (op.in_width() as isize, op.out_width() as isize);
    let rank = u.int_in_range(0..=9)?;
    let mut dims = Vec::new();
    for _ in 0..rank {
        dims.push(Dim { extent: extent(u)?, in_stride: stride(u, iw.max(1))?, out_stride: stride(u, ow.max(1))? });
    }
    let base = |u: &mut Unstructured<'_>| -> Result<usize> {
        Ok(if u.ratio(1, 8)? { u.arbitrary()? } else { u.int_in_range(0..=4096)? })
    };
    let plan = Plan::new(op, base(u)?, base(u)?, dims.clone());
    // A normalization's parameters (now and then for other operations too, which must refuse them): a table of
    // pairs, a base and one stride per dimension (now and then a wrong count).
    let plan = if matches!(op, ElementOp::Normalize { .. }) || u.ratio(1, 16)? {
        let len = u.int_in_range(0..=6)?;
        let table: Vec<[f32; 2]> = (0..len).map(|_| Ok([u.arbitrary()?, u.arbitrary()?])).collect::<Result<_>>()?;
        let params_base = if u.ratio(1, 8)? { u.arbitrary()? } else { u.int_in_range(0..=6)? };
        let n = if u.ratio(1, 16)? { u.int_in_range(0..=9)? } else { rank };
        let strides = (0..n).map(|_| Ok(if u.ratio(1, 8)? { u.arbitrary()? } else { u.int_in_range(-2..=2)? }));
        plan.with_params(Params::new(table, params_base, strides.collect::<Result<Vec<isize>>>()?))
    } else {
        plan
    };
    let Ok(program) = Program::new(&plan) else { return Ok(()) };
    assert!(matches!(op, ElementOp::Normalize { .. }) == plan.params().is_some(), "parameters accepted for {op}");
    let walk = program.walk();
    let (need_in, need_out) = (walk.input_bytes_needed(), walk.output_bytes_needed());
    let opts = options(u)?;
    if need_in as u64 > MAX_BYTES || need_out as u64 > MAX_BYTES {
        assert!(program.run(&[], &mut [], &opts).is_err());
        return Ok(());
    }
    // The naive walk: every coordinate, offsets in i128, each checked against the proven needs.
    if walk.elements() > 1 << 16 || dims.iter().any(|d| d.extent > u32::MAX as usize) {
        return Ok(()); // too many coordinates to walk naively in a fuzzing iteration
    }
    let src: Vec<u8> = (0..need_in).map(|i| (i as u8).wrapping_mul(13).wrapping_add(5)).collect();
    let sizes: Vec<u32> = dims.iter().map(|d| d.extent as u32).collect();
    let (iw, ow) = (op.in_width(), op.out_width());
    let mut expected = vec![SENTINEL; need_out];
    let mut written = vec![false; need_out];
    let mut outputs = Vec::new();
    for_each_coord(&sizes, |c| {
        let off = |base: usize, pick: fn(&Dim) -> isize| -> usize {
            let x: i128 = base as i128 + c.iter().zip(&dims).map(|(&x, d)| x as i128 * pick(d) as i128).sum::<i128>();
            usize::try_from(x).expect("a proven plan addresses a negative offset")
        };
        let (i, o) = (off(plan.in_base(), |d| d.in_stride), off(plan.out_base(), |d| d.out_stride));
        assert!(i + iw <= need_in && o + ow <= need_out, "a proven element lies beyond the proven needs");
        match plan.params() {
            Some(p) => {
                let x: i128 =
                    p.base() as i128 + c.iter().zip(p.strides()).map(|(&x, &s)| x as i128 * s as i128).sum::<i128>();
                let pair = usize::try_from(x).ok().and_then(|k| p.table().get(k)).expect("a proven pair");
                assert!(op.normalize_one(&src[i..i + iw], &mut expected[o..o + ow], pair[0], pair[1]));
            }
            None => assert!(op.apply_one(&src[i..i + iw], &mut expected[o..o + ow])),
        }
        assert!(!written[o..o + ow].iter().any(|&w| w), "a proven output writes a byte twice");
        written[o..o + ow].iter_mut().for_each(|w| *w = true);
        outputs.push(o);
    });
    let mut dst = vec![SENTINEL; need_out];
    program.run(&src, &mut dst, &opts).expect("a proven plan runs");
    for &o in &outputs {
        let (a, b) = (&dst[o..o + ow], &expected[o..o + ow]);
        assert!(a == b || nan_pair(op, a, b), "{plan} with {opts:?}: the element at {o} differs from the naive walk");
    }
    for (k, (&b, &w)) in dst.iter().zip(&written).enumerate() {
        assert!(w || b == SENTINEL, "{plan} with {opts:?}: wrote byte {k}, which no element covers");
    }
    if walk.is_in_place() {
        let mut buf = src.clone();
        buf.resize(need_in.max(need_out), 0);
        program.run_in_place(&mut buf, &opts).expect("an in-place walk runs in place");
    }
    Ok(())
}

/// Whether two output elements of `op` are both NaN (any NaN is a correct result for a NaN input).
fn nan_pair(op: ElementOp, a: &[u8], b: &[u8]) -> bool {
    let dt = match op {
        ElementOp::Cast { to, .. } | ElementOp::Normalize { to, .. } => to,
        ElementOp::ScaleBias { ty, .. } => ty,
        _ => return false,
    };
    let dt = match dt {
        ElemType::F16 => DataType::Float16,
        ElemType::F32 => DataType::Float32,
        ElemType::F64 => DataType::Float64,
        _ => return false,
    };
    a.len() == dt.size_in_bytes() && values::same(dt, a, b)
}

/// `find_overlap` never panics and is never wrong: a collision's witness is checked exactly, and on small boxes
/// the verdict against brute force.
pub fn overlap(data: &[u8]) {
    let _ = overlap_case(&mut Unstructured::new(data));
}

fn overlap_case(u: &mut Unstructured<'_>) -> Result<()> {
    let rank = u.int_in_range(0..=7)?;
    let small = u.arbitrary::<bool>()?;
    let mut sizes = Vec::new();
    let mut strides = Vec::new();
    for _ in 0..rank {
        if small {
            sizes.push(u.int_in_range(1..=5)?);
            strides.push(u.int_in_range(-30..=30)?);
        } else {
            sizes.push(match u.int_in_range(0u8..=3)? {
                0 => u64::MAX,
                1 => u.int_in_range(1..=12)?,
                _ => u.arbitrary()?,
            });
            strides.push(match u.int_in_range(0u8..=4)? {
                0 => i64::MAX,
                1 => i64::MIN,
                2 => u.int_in_range(-30..=30)?,
                _ => u.arbitrary()?,
            });
        }
    }
    let verdict = find_overlap(&sizes, &strides);
    let offset = |c: &[u64]| -> i128 { c.iter().zip(&strides).map(|(&x, &s)| i128::from(x) * i128::from(s)).sum() };
    if let Overlap::Collision { first, second } = &verdict {
        assert_ne!(first, second, "a collision of a coordinate with itself");
        for k in 0..rank {
            assert!(first[k] < sizes[k].max(1) && second[k] < sizes[k].max(1), "a witness outside the box");
        }
        assert_eq!(offset(first), offset(second), "a collision whose offsets differ");
    }
    if small {
        let mut seen = std::collections::HashSet::new();
        let mut injective = true;
        let s32: Vec<u32> = sizes.iter().map(|&n| n as u32).collect();
        for_each_coord(&s32, |c| injective &= seen.insert(offset(c)));
        match verdict {
            Overlap::Disjoint => assert!(injective, "{sizes:?} {strides:?}: called disjoint"),
            Overlap::Collision { .. } => assert!(!injective),
            Overlap::Undecided => panic!("{sizes:?} {strides:?}: a small box left undecided"),
        }
    }
    Ok(())
}

/// The CLI's `.npy` reader: any bytes are parsed or refused; a parsed tensor holds exactly its shape's bytes.
pub fn npy(data: &[u8]) {
    if let Ok(t) = strider_cli::npy::parse(data) {
        assert_eq!(t.bytes.len() as u64, t.desc.addressed_bytes());
    }
}

/// The CLI's NumPy slice syntax: any text and shape parse to a window the operator accepts, or are refused.
pub fn window(data: &[u8]) {
    let _ = window_case(&mut Unstructured::new(data));
}

fn window_case(u: &mut Unstructured<'_>) -> Result<()> {
    let rank = u.int_in_range(1..=8)?;
    let dims: Vec<u32> = (0..rank).map(|_| u32_value(u).map(|n| n.max(1))).collect::<Result<_>>()?;
    let spec: String = u.arbitrary()?;
    if let Ok(w) = strider_cli::window::parse(&spec, &dims) {
        let input = TensorDesc::with_strides(DataType::Uint8, &dims, &vec![0; rank]).expect("a broadcast view");
        let out = w.max_output_sizes();
        let output = TensorDesc::with_strides(DataType::Uint8, &out, &vec![0; rank]);
        if let Ok(output) = output {
            // Output strides of 0 overlap: the window itself must still be valid, so only that error is allowed.
            match Slice1::new(&input, &output, &w.offsets, &w.sizes, &w.strides) {
                Ok(_) | Err(strider::Error::OverlappingOutput { .. }) => {}
                Err(e) => panic!("{spec:?} over {dims:?} parsed to a window Slice1 refuses: {e}"),
            }
        }
    }
    Ok(())
}

/// A fuzz target's check.
pub type Check = fn(&[u8]);

/// Every target by name, for the replay test and the fuzz binaries.
pub const TARGETS: [(&str, Check); 13] = [
    ("slice1", slice1),
    ("slice", slice),
    ("identity", identity),
    ("cast", cast),
    ("normalize", normalize),
    ("plan", plan),
    ("overlap", overlap),
    ("npy", npy),
    ("window", window),
    ("regressions", regressions),
    ("operators", operators),
    ("builders", builders),
    ("capi", capi),
];

/// The C interface: an operator description written into DirectML's structs, broken or not, run through
/// `strider_operator_create` and `strider_operator_execute_bindings` (see `strider-capi`'s `fuzzing` module).
pub fn capi(data: &[u8]) {
    let _ = capi_case(&mut Unstructured::new(data));
}

fn capi_case(u: &mut Unstructured<'_>) -> Result<()> {
    let Some(desc) = movement::operator_desc(u)? else { return Ok(()) };
    let mut b = capi::fuzzing::Breakage::default();
    let some = |u: &mut Unstructured<'_>| u.ratio(1, 8);
    if some(u)? {
        b.operator_type = Some(*u.choose(&[0u32, 2, 65, 71, 112, 200, u32::MAX])?);
    }
    b.null_desc = u.ratio(1, 32)?;
    if some(u)? {
        b.null_tensor = Some(u.int_in_range(0..=3)?);
    }
    if some(u)? {
        b.tensor_type = Some((u.int_in_range(0..=3)?, u.int_in_range(0..=3)?));
    }
    if some(u)? {
        b.data_type = Some((u.int_in_range(0..=3)?, u.int_in_range(0..=13)?));
    }
    if some(u)? {
        b.dimension_count = Some((u.int_in_range(0..=3)?, u.int_in_range(0..=9)?));
    }
    if some(u)? {
        b.total_size = Some((u.int_in_range(0..=3)?, u.arbitrary()?));
    }
    if some(u)? {
        b.count = Some(u.int_in_range(0..=9)?);
    }
    if some(u)? {
        b.enum_field = Some(u.int_in_range(0..=12)?);
    }
    if some(u)? {
        b.input_count = Some(u.int_in_range(0..=6)?);
    }
    if some(u)? {
        b.output_count = Some(u.int_in_range(0..=6)?);
    }
    if some(u)? {
        b.null_binding = Some((u.arbitrary()?, u.int_in_range(0..=5)?));
    }
    if some(u)? {
        b.short = Some((u.arbitrary()?, u.int_in_range(0..=5)?, u.int_in_range(1..=64)?));
    }
    if some(u)? {
        b.alias = Some((u.int_in_range(0..=5)?, u.int_in_range(0..=5)?, u.arbitrary()?));
    }
    b.threads = u.arbitrary()?;
    b.isa = if u.ratio(1, 4)? { u.arbitrary()? } else { 0 };
    capi::fuzzing::check(&desc, &b, u.arbitrary()?);
    Ok(())
}

/// Replays the API reproducers of issue 9 (the findings of the first fuzzing), whatever the bytes: a target that
/// keeps them in the fuzzers' rotation.
pub fn regressions(_data: &[u8]) {
    let input = TensorDesc::with_strides(DataType::Uint8, &[(1 << 31) + 1], &[u32::MAX]).unwrap();
    let output = TensorDesc::new(DataType::Uint8, &[2]).unwrap();
    assert!(Slice1::new(&input, &output, &[0], &[(1 << 31) + 1], &[i32::MIN]).is_ok());
    let one = TensorDesc::with_strides(DataType::Uint8, &[1], &[u32::MAX]).unwrap();
    assert!(Slice::new(&one, &TensorDesc::new(DataType::Uint8, &[1]).unwrap(), &[0], &[1], &[u32::MAX]).is_ok());
    assert!(!TensorDesc::with_strides(DataType::Uint16, &[u32::MAX, u32::MAX], &[0, 0]).unwrap().is_packed());
    assert!(matches!(find_overlap(&[u64::MAX; 3], &[i64::MAX; 3]), Overlap::Collision { .. }));
    assert_ne!(find_overlap(&[7, 7, 7, 1], &[1 << 40, 8563833117307583039, i64::MAX, -20]), Overlap::Undecided);
    let sizes = [572662489, 1450713, 1];
    let i = TensorDesc::with_strides(DataType::Int16, &sizes, &[1450713, 0, 1]).unwrap();
    let o = TensorDesc::with_strides(DataType::Int16, &sizes, &[1 << 30, u32::MAX, u32::MAX]).unwrap();
    assert!(Identity::new(&i, &o).is_ok());
    let d = |extent, in_stride, out_stride| Dim { extent, in_stride, out_stride };
    let wrapping = Plan::copy(
        1,
        0,
        64,
        vec![
            d(usize::MAX, isize::MAX, -(1 << 62)),
            d(usize::MAX, isize::MAX - 30, -(1 << 62)),
            d(17 * (1 << 58) + 1, 128, -64),
            d(64, 1, 1),
        ],
    );
    assert!(Program::new(&wrapping).is_err());
}
