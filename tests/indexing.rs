//! Index-driven movement against references written from NumPy's and ONNX's definitions, on logical arrays:
//! gather (`np.take`), gather elements (`np.take_along_axis`), gather ND with batches, scatter elements and scatter
//! ND (duplicates: the last in C order wins), one-hot — every data type and index type, ranks 1 to 8, padded,
//! permuted, reversed and broadcast operands, misaligned sentinel-filled outputs, every instruction set and thread
//! configuration; then every out-of-range index and every validation rule.

mod common;

use common::arrays::{Array, data_type, layout, random_input};
use common::{Buf, SENTINEL, check_configs, note_isas, rng};
use rand::Rng;
use rand::rngs::StdRng;
use strider::{
    DataType, Error, ExecOptions, Gather, GatherElements, GatherNd, OneHot, Operand, OperatorDesc, ScatterElements,
    ScatterNd, TensorDesc,
};

const INDEX_TYPES: [DataType; 4] = [DataType::Int32, DataType::Uint32, DataType::Int64, DataType::Uint64];

fn index_type(r: &mut StdRng) -> DataType {
    INDEX_TYPES[r.random_range(0..4)]
}

fn signed(dt: DataType) -> bool {
    matches!(dt, DataType::Int32 | DataType::Int64)
}

fn encode_index(dt: DataType, v: i64) -> Vec<u8> {
    match dt {
        DataType::Int32 => (v as i32).to_le_bytes().to_vec(),
        DataType::Uint32 => (v as u32).to_le_bytes().to_vec(),
        DataType::Int64 => v.to_le_bytes().to_vec(),
        _ => (v as u64).to_le_bytes().to_vec(),
    }
}

fn decode_index(dt: DataType, b: &[u8]) -> i64 {
    match dt {
        DataType::Int32 => i64::from(i32::from_le_bytes(b.try_into().unwrap())),
        DataType::Uint32 => i64::from(u32::from_le_bytes(b.try_into().unwrap())),
        DataType::Int64 => i64::from_le_bytes(b.try_into().unwrap()),
        _ => u64::from_le_bytes(b.try_into().unwrap()) as i64,
    }
}

/// A valid index into a dimension of `n`: negative ones (from the end) for signed types.
fn random_index(r: &mut StdRng, dt: DataType, n: u32) -> i64 {
    let n = i64::from(n);
    if signed(dt) { r.random_range(-n..n) } else { r.random_range(0..n) }
}

/// NumPy's wrap of a valid index.
fn wrap(v: i64, n: u32) -> usize {
    (if v < 0 { v + i64::from(n) } else { v }) as usize
}

/// A strided index tensor holding `f(c)` at each coordinate (broadcast dimensions keep one of them), in a
/// misaligned buffer, with the logical indices it holds.
fn index_tensor(
    r: &mut StdRng,
    dt: DataType,
    sizes: &[u32],
    mut f: impl FnMut(&mut StdRng, &[usize]) -> i64,
) -> (TensorDesc, Buf, Vec<i64>) {
    let desc = layout(r, dt, sizes, true);
    let want = Array::build(sizes, dt.size_in_bytes(), |c| encode_index(dt, f(r, c)));
    let bytes = want.write(&desc);
    let mut buf = Buf::filled(bytes.len(), r.random_range(0..8), 0);
    buf.bytes_mut().copy_from_slice(&bytes);
    let held = Array::read(&desc, buf.bytes());
    let values = held.data.chunks(dt.size_in_bytes()).map(|b| decode_index(dt, b)).collect();
    (desc, buf, values)
}

/// The C-order position of `c` in `sizes`.
fn flat(c: &[usize], sizes: &[u32]) -> usize {
    c.iter().zip(sizes).fold(0, |i, (&x, &n)| i * n as usize + x)
}

/// Sizes of `rank` dimensions, small enough for the product of a gather's dimensions.
fn small_sizes(r: &mut StdRng, rank: usize) -> Vec<u32> {
    let max = [0, 40, 12, 6, 4, 3, 3, 2, 2][rank.min(8)];
    (0..rank).map(|_| r.random_range(1..=max)).collect()
}

/// `full` right-aligned into `n` dimensions (leading 1s added or dropped).
fn right_align(full: &[u32], n: usize) -> Vec<u32> {
    if full.len() >= n {
        assert!(full[..full.len() - n].iter().all(|&s| s == 1));
        full[full.len() - n..].to_vec()
    } else {
        let mut s = vec![1; n - full.len()];
        s.extend_from_slice(full);
        s
    }
}

/// The coordinate over `full_len` gathered dimensions of output coordinate `c` (dropped leading ones are 0).
fn unalign(c: &[usize], full_len: usize) -> Vec<usize> {
    let n = c.len();
    (0..full_len).map(|k| (k + n).checked_sub(full_len).map_or(0, |o| c[o])).collect()
}

fn run_all(
    dt: DataType,
    want: &[u8],
    case: usize,
    what: &dyn Fn() -> String,
    run: impl Fn(&mut [u8], &ExecOptions) -> Result<(), Error> + Sync,
) {
    check_configs(dt, want, case, what, run);
}

/// The operator's reference gives `want` (into a sentinel-filled buffer), and so does `run` on every configuration.
fn check_op(
    dt: DataType,
    want: &[u8],
    case: usize,
    what: &dyn Fn() -> String,
    reference: impl FnOnce(&mut [u8]) -> Result<(), Error>,
    run: impl Fn(&mut [u8], &ExecOptions) -> Result<(), Error> + Sync,
) {
    let mut y = vec![SENTINEL; want.len()];
    reference(&mut y).unwrap();
    assert_eq!(y, want, "reference, {}", what());
    check_configs(dt, want, case, what, run);
}

#[test]
fn gather_matches_numpy_take() {
    note_isas();
    let mut r = rng(391);
    for case in 0..140 {
        let n = 1 + case % 8;
        let (dt, it) = (data_type(&mut r), index_type(&mut r));
        let a = r.random_range(0..n);
        let m = r.random_range(0..=n.min(4));
        let mut is = small_sizes(&mut r, n);
        let mut xs = vec![1u32; n];
        for x in &mut xs[n - m..] {
            *x = r.random_range(1..=4);
        }
        // Leading gathered sizes that do not fit the rank must be 1.
        let full_len = n + m - 1;
        for k in 0..full_len.saturating_sub(n) {
            if k < a {
                is[k] = 1;
            } else if k < a + m {
                xs[n - m + k - a] = 1;
            } else {
                is[k - m + 1] = 1;
            }
        }
        let full: Vec<u32> = is[..a].iter().chain(&xs[n - m..]).chain(&is[a + 1..]).copied().collect();
        let os = right_align(&full, n);
        let input = layout(&mut r, dt, &is, true);
        let output = layout(&mut r, dt, &os, false);
        let x = random_input(&mut r, &input);
        let bound = is[a];
        let (indices, ib, iv) = index_tensor(&mut r, it, &xs, |r, _| random_index(r, it, bound));
        let xa = Array::read(&input, x.bytes());
        let want = Array::build(&os, dt.size_in_bytes(), |c| {
            let f = unalign(c, full_len);
            let mut at_ix = vec![0; n];
            at_ix[n - m..].copy_from_slice(&f[a..a + m]);
            let mut at = f[..a].to_vec();
            at.push(wrap(iv[flat(&at_ix, &xs)], bound));
            at.extend_from_slice(&f[a + m..]);
            xa.at(&at).to_vec()
        })
        .write(&output);
        let op = Gather::new(&input, &indices, &output, a as u32, m as u32).unwrap();
        let what = || format!("case {case}: gather axis {a}, {m} index dims, {input:?} by {indices:?} into {output:?}");
        check_op(
            dt,
            &want,
            case,
            &what,
            |y| op.execute_reference(x.bytes(), ib.bytes(), y),
            |dst, opts| op.execute_with(x.bytes(), ib.bytes(), dst, opts),
        );
    }
}

/// An element gather's or scatter's types, axis, data sizes and index sizes (at most the data's off the axis, up
/// to `along` along it), of rank `1 + case % 8`.
fn elements_case(r: &mut StdRng, case: usize, along: u32) -> (DataType, DataType, usize, Vec<u32>, Vec<u32>) {
    let n = 1 + case % 8;
    let (dt, it) = (data_type(r), index_type(r));
    let a = r.random_range(0..n);
    let is = small_sizes(r, n);
    let xs = (0..n).map(|d| if d == a { r.random_range(1..=along) } else { r.random_range(1..=is[d]) }).collect();
    (dt, it, a, is, xs)
}

#[test]
fn gather_elements_matches_take_along_axis() {
    note_isas();
    let mut r = rng(392);
    for case in 0..140 {
        let (dt, it, a, is, xs) = elements_case(&mut r, case, 5);
        let input = layout(&mut r, dt, &is, true);
        let output = layout(&mut r, dt, &xs, false);
        let x = random_input(&mut r, &input);
        let (indices, ib, iv) = index_tensor(&mut r, it, &xs, |r, _| random_index(r, it, is[a]));
        let xa = Array::read(&input, x.bytes());
        let want = Array::build(&xs, dt.size_in_bytes(), |c| {
            let mut at = c.to_vec();
            at[a] = wrap(iv[flat(c, &xs)], is[a]);
            xa.at(&at).to_vec()
        })
        .write(&output);
        let op = GatherElements::new(&input, &indices, &output, a as u32).unwrap();
        let what = || format!("case {case}: gather elements axis {a}, {input:?} by {indices:?} into {output:?}");
        check_op(
            dt,
            &want,
            case,
            &what,
            |y| op.execute_reference(x.bytes(), ib.bytes(), y),
            |dst, opts| op.execute_with(x.bytes(), ib.bytes(), dst, opts),
        );
    }
}

/// Random meaningful ranks, batches and tuple size of an ND operator of rank `n`, and the data and indices sizes.
fn nd_shapes(r: &mut StdRng, n: usize, batches: bool) -> (usize, usize, usize, usize, Vec<u32>, Vec<u32>) {
    let rr = r.random_range(1..=n);
    let q = r.random_range(1..=n);
    let b = if batches { r.random_range(0..rr.min(q)) } else { 0 };
    let t = r.random_range(1..=rr - b);
    let mut is = vec![1u32; n];
    let mut xs = vec![1u32; n];
    let sizes = small_sizes(r, n);
    is[n - rr..].copy_from_slice(&sizes[n - rr..]);
    let sizes = small_sizes(r, n);
    xs[n - q..].copy_from_slice(&sizes[n - q..]);
    xs[n - 1] = t as u32;
    for k in 0..b {
        xs[n - q + k] = is[n - rr + k];
    }
    (rr, q, b, t, is, xs)
}

/// Forces the leading entries of the gathered sizes `X[..q-1] ++ I[b+t..]` that do not fit `n` dimensions to 1.
fn fit_nd(n: usize, (rr, q, b, t): (usize, usize, usize, usize), is: &mut [u32], xs: &mut [u32]) -> Vec<u32> {
    let full_len = q - 1 + rr - b - t;
    for k in 0..full_len.saturating_sub(n) {
        if k < q - 1 {
            xs[n - q + k] = 1;
            if k < b {
                is[n - rr + k] = 1;
            }
        } else {
            is[n - rr + b + t + k - (q - 1)] = 1;
        }
    }
    xs[n - q..n - 1].iter().chain(&is[n - rr + b + t..]).copied().collect()
}

#[test]
fn gather_nd_matches_onnx() {
    note_isas();
    let mut r = rng(393);
    for case in 0..160 {
        let n = 1 + case % 8;
        let (dt, it) = (data_type(&mut r), index_type(&mut r));
        let (rr, q, b, t, mut is, mut xs) = nd_shapes(&mut r, n, true);
        let full = fit_nd(n, (rr, q, b, t), &mut is, &mut xs);
        let os = right_align(&full, n);
        let input = layout(&mut r, dt, &is, true);
        let output = layout(&mut r, dt, &os, false);
        let x = random_input(&mut r, &input);
        // Valid for every place of a tuple: a broadcast tuple dimension holds one value for all of them.
        let least = *is[n - rr + b..n - rr + b + t].iter().min().unwrap();
        let (indices, ib, iv) = index_tensor(&mut r, it, &xs, |r, _| random_index(r, it, least));
        let xa = Array::read(&input, x.bytes());
        let want = Array::build(&os, dt.size_in_bytes(), |c| {
            let f = unalign(c, full.len());
            let mut at_ix = vec![0; n];
            at_ix[n - q..n - 1].copy_from_slice(&f[..q - 1]);
            let mut at = vec![0; n];
            at[n - rr..n - rr + b].copy_from_slice(&f[..b]);
            for k in 0..t {
                at_ix[n - 1] = k;
                at[n - rr + b + k] = wrap(iv[flat(&at_ix, &xs)], is[n - rr + b + k]);
            }
            at[n - rr + b + t..].copy_from_slice(&f[q - 1..]);
            xa.at(&at).to_vec()
        })
        .write(&output);
        let op = GatherNd::new(&input, &indices, &output, rr as u32, q as u32, b as u32).unwrap();
        let what =
            || format!("case {case}: gather nd r {rr} q {q} b {b} t {t}, {input:?} by {indices:?} into {output:?}");
        check_op(
            dt,
            &want,
            case,
            &what,
            |y| op.execute_reference(x.bytes(), ib.bytes(), y),
            |dst, opts| op.execute_with(x.bytes(), ib.bytes(), dst, opts),
        );
    }
}

/// The scatter's expected output: the input, then `update(c) → out(c)` for every coordinate of `sizes` in C order.
fn scattered(input: &Array, sizes: &[u32], mut target: impl FnMut(&[usize]) -> (Vec<usize>, Vec<u8>)) -> Array {
    let mut out = input.clone();
    let w = out.width;
    common::for_each_coord(sizes, |c| {
        let (at, v) = target(c);
        let i = flat(&at, &out.sizes);
        out.data[i * w..(i + 1) * w].copy_from_slice(&v);
    });
    out
}

/// A scatter of elements along `a` from `input` by random `it` indices of `updates`' sizes into `output`: the
/// reference and every configuration give the expected bytes (the input, then each update in C order, so the last
/// duplicate wins), and so does the in-place form. Returns the operator.
fn check_scatter_elements(
    r: &mut StdRng,
    case: usize,
    it: DataType,
    a: usize,
    input: &TensorDesc,
    updates: &TensorDesc,
    output: &TensorDesc,
) -> ScatterElements {
    let (dt, is, xs) = (input.data_type(), input.sizes(), updates.sizes());
    let (x, u) = (random_input(r, input), random_input(r, updates));
    let (indices, ib, iv) = index_tensor(r, it, xs, |r, _| random_index(r, it, is[a]));
    let (xa, ua) = (Array::read(input, x.bytes()), Array::read(updates, u.bytes()));
    let want = scattered(&xa, xs, |c| {
        let mut at = c.to_vec();
        at[a] = wrap(iv[flat(c, xs)], is[a]);
        (at, ua.at(c).to_vec())
    });
    let want_bytes = want.write(output);
    let op = ScatterElements::new(input, &indices, updates, output, a as u32).unwrap();
    let what = || format!("case {case}: scatter elements axis {a}, {input:?} by {indices:?} into {output:?}");
    check_op(
        dt,
        &want_bytes,
        case,
        &what,
        |y| op.execute_reference(x.bytes(), ib.bytes(), u.bytes(), y),
        |dst, opts| op.execute_with(x.bytes(), ib.bytes(), u.bytes(), dst, opts),
    );
    // In place: the output bound to the data's buffer.
    let inplace = ScatterElements::new(output, &indices, updates, output, a as u32).unwrap();
    let mut buf = xa.write(output);
    inplace.execute_in_place(&mut buf, ib.bytes(), u.bytes(), &ExecOptions::default()).unwrap();
    assert_eq!(buf, want_bytes, "in place, {}", what());
    op
}

#[test]
fn scatter_elements_matches_onnx_and_the_last_duplicate_wins() {
    note_isas();
    let mut r = rng(394);
    for case in 0..140 {
        // Often more updates along the axis than it has elements: duplicates.
        let (dt, it, a, is, xs) = elements_case(&mut r, case, 6);
        let input = layout(&mut r, dt, &is, true);
        let updates = layout(&mut r, dt, &xs, true);
        let output = layout(&mut r, dt, &is, false);
        check_scatter_elements(&mut r, case, it, a, &input, &updates, &output);
    }
}

#[test]
fn scatter_nd_matches_onnx() {
    note_isas();
    let mut r = rng(395);
    for case in 0..160 {
        let n = 1 + case % 8;
        let (dt, it) = (data_type(&mut r), index_type(&mut r));
        let (rr, q, _, t, mut is, mut xs) = nd_shapes(&mut r, n, false);
        let full = fit_nd(n, (rr, q, 0, t), &mut is, &mut xs);
        let us = right_align(&full, n);
        let input = layout(&mut r, dt, &is, true);
        let updates = layout(&mut r, dt, &us, true);
        let output = layout(&mut r, dt, &is, false);
        let (x, u) = (random_input(&mut r, &input), random_input(&mut r, &updates));
        let least = *is[n - rr..n - rr + t].iter().min().unwrap();
        let (indices, ib, iv) = index_tensor(&mut r, it, &xs, |r, _| random_index(r, it, least));
        let (xa, ua) = (Array::read(&input, x.bytes()), Array::read(&updates, u.bytes()));
        let want = scattered(&xa, &us, |c| {
            let f = unalign(c, full.len());
            let mut at_ix = vec![0; n];
            at_ix[n - q..n - 1].copy_from_slice(&f[..q - 1]);
            let mut at = vec![0; n];
            for k in 0..t {
                at_ix[n - 1] = k;
                at[n - rr + k] = wrap(iv[flat(&at_ix, &xs)], is[n - rr + k]);
            }
            at[n - rr + t..].copy_from_slice(&f[q - 1..]);
            (at, ua.at(c).to_vec())
        })
        .write(&output);
        let op = ScatterNd::new(&input, &indices, &updates, &output, rr as u32, q as u32).unwrap();
        let what = || format!("case {case}: scatter nd r {rr} q {q} t {t}, {input:?} by {indices:?} into {output:?}");
        check_op(
            dt,
            &want,
            case,
            &what,
            |y| op.execute_reference(x.bytes(), ib.bytes(), u.bytes(), y),
            |dst, opts| op.execute_with(x.bytes(), ib.bytes(), u.bytes(), dst, opts),
        );
    }
}

/// Unsigned indices have no negative values: u32 values of 2³¹ and more and u64 values of 2⁶³ and more are out of
/// range (not counted from the end as their signed bits would be), while signed −1 is the last element; at every
/// instruction set and thread count, as the reference.
#[test]
fn one_hot_unsigned_indices_never_count_from_the_end() {
    let f = DataType::Float32;
    let values: Vec<u8> = [0.0f32, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let hot = |cols: [Option<usize>; 4]| -> Vec<u8> {
        (0..12).flat_map(|k| if cols[k / 3] == Some(k % 3) { 1.0f32 } else { 0.0 }.to_le_bytes()).collect()
    };
    let of = |dt: DataType, v: &[i128]| -> Vec<u8> {
        let w = dt.size_in_bytes();
        v.iter().flat_map(|&x| x.to_le_bytes()[..w].to_vec()).collect()
    };
    let cases = [
        (
            DataType::Uint32,
            of(DataType::Uint32, &[2, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE]),
            [Some(2), None, None, None],
        ),
        (DataType::Int32, of(DataType::Int32, &[2, -1, -3, -4]), [Some(2), Some(2), Some(0), None]),
        (
            DataType::Uint64,
            of(DataType::Uint64, &[1, 1 << 63, (1 << 64) - 1, (1 << 64) - 3]),
            [Some(1), None, None, None],
        ),
        (DataType::Int64, of(DataType::Int64, &[0, -1, -2, i128::from(i64::MIN)]), [Some(0), Some(2), Some(1), None]),
    ];
    for (case, (it, ix, cols)) in cases.into_iter().enumerate() {
        let op = OneHot::new(&t(it, &[4, 1]), &t(f, &[1, 2]), &t(f, &[4, 3]), 1).unwrap();
        check_op(
            f,
            &hot(cols),
            case,
            &|| format!("one-hot of {it:?} indices"),
            |y| op.execute_reference(&ix, &values, y),
            |dst, opts| op.execute_with(&ix, &values, dst, opts),
        );
    }
}

#[test]
fn one_hot_matches_onnx() {
    note_isas();
    let mut r = rng(396);
    for case in 0..140 {
        let n = 1 + case % 8;
        let (dt, it) = (data_type(&mut r), index_type(&mut r));
        let a = r.random_range(0..n);
        let os = small_sizes(&mut r, n);
        let mut xs = os.clone();
        xs[a] = 1;
        let mut vs = vec![1u32; n];
        vs[r.random_range(0..n)] = r.random_range(2..=3);
        let values = layout(&mut r, dt, &vs, false);
        let output = layout(&mut r, dt, &os, false);
        let depth = i64::from(os[a]);
        // Out-of-range indices too: their sequences stay off.
        let (indices, ib, iv) = index_tensor(&mut r, it, &xs, |r, _| {
            if signed(it) { r.random_range(-depth - 2..depth + 2) } else { r.random_range(0..depth + 2) }
        });
        let v = random_input(&mut r, &values);
        let va = Array::read(&values, v.bytes());
        let off = va.data[..dt.size_in_bytes()].to_vec();
        let d1 = vs.iter().rposition(|&s| s > 1).unwrap();
        let mut on_at = vec![0; n];
        on_at[d1] = 1;
        let on = va.at(&on_at).to_vec();
        let want = Array::build(&os, dt.size_in_bytes(), |c| {
            let mut at = c.to_vec();
            at[a] = 0;
            let i = iv[flat(&at, &xs)];
            let hot = (-depth..depth).contains(&i) && wrap(i, os[a]) == c[a];
            if hot { on.clone() } else { off.clone() }
        })
        .write(&output);
        let op = OneHot::new(&indices, &values, &output, a as u32).unwrap();
        let what = || format!("case {case}: one-hot axis {a}, {indices:?} values {values:?} into {output:?}");
        check_op(
            dt,
            &want,
            case,
            &what,
            |y| op.execute_reference(ib.bytes(), v.bytes(), y),
            |dst, opts| op.execute_with(ib.bytes(), v.bytes(), dst, opts),
        );
    }
}

fn t(dt: DataType, sizes: &[u32]) -> TensorDesc {
    TensorDesc::new(dt, sizes).unwrap()
}

fn bytes_of_i64(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An invalid index: the error names where it is and what it is, and the output keeps every byte it had.
#[test]
fn an_index_out_of_range_is_an_error_and_writes_nothing() {
    let f = DataType::Float32;
    let x: Vec<u8> = (0..24u8).collect();
    let check = |result: Result<(), Error>, y: &[u8], coordinate: &[u32], value: i128, size: u64| {
        assert_eq!(result, Err(Error::IndexOutOfRange { input: 1, coordinate: coordinate.to_vec(), value, size }));
        assert!(y.iter().all(|&b| b == SENTINEL), "output written");
    };
    // Gather: the first bad one in C order (both -5 and 4 are outside 4 rows).
    let g = Gather::new(&t(f, &[1, 4]), &t(DataType::Int64, &[2, 3]), &t(f, &[2, 3]), 1, 2).unwrap();
    for (ix, at, v) in [(vec![0i64, 1, 4, 2, -5, 0], [0u32, 2], 4i128), (vec![0, -5, 4, 0, 0, 0], [0, 1], -5)] {
        let mut y = vec![SENTINEL; 24];
        let result = g.execute(&x[..16], &bytes_of_i64(&ix), &mut y);
        check(result, &y, &at, v, 4);
        assert!(g.execute_reference(&x[..16], &bytes_of_i64(&ix), &mut y).is_err());
    }
    // Unsigned types have no negative indices: u64::MAX is not −1.
    let g = Gather::new(&t(f, &[4, 1]), &t(DataType::Uint64, &[1, 2]), &t(f, &[2, 1]), 0, 1).unwrap();
    let mut y = vec![SENTINEL; 8];
    let ix: Vec<u8> = [1u64, u64::MAX].iter().flat_map(|v| v.to_le_bytes()).collect();
    check(g.execute(&x[..16], &ix, &mut y), &y, &[0, 1], i128::from(u64::MAX), 4);
    // Gather elements, gather ND (the tuple's place in the coordinate), scatters.
    let ge = GatherElements::new(&t(f, &[2, 3]), &t(DataType::Int32, &[2, 3]), &t(f, &[2, 3]), 1).unwrap();
    let ix: Vec<u8> = [0i32, 1, 2, -4, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut y = vec![SENTINEL; 24];
    check(ge.execute(&x, &ix, &mut y), &y, &[1, 0], -4, 3);
    let nd = GatherNd::new(&t(f, &[2, 3]), &t(DataType::Uint32, &[2, 2]), &t(f, &[1, 2]), 2, 2, 0).unwrap();
    let ix: Vec<u8> = [1u32, 2, 1, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut y = vec![SENTINEL; 8];
    check(nd.execute(&x, &ix, &mut y), &y, &[1, 1], 3, 3);
    let se =
        ScatterElements::new(&t(f, &[2, 3]), &t(DataType::Int64, &[1, 2]), &t(f, &[1, 2]), &t(f, &[2, 3]), 0).unwrap();
    let mut y = vec![SENTINEL; 24];
    check(se.execute(&x, &bytes_of_i64(&[1, 2]), &x[..8], &mut y), &y, &[0, 1], 2, 2);
    let mut data = vec![SENTINEL; 24];
    let result = se.execute_in_place(&mut data, &bytes_of_i64(&[-3, 0]), &x[..8], &ExecOptions::default());
    check(result, &data, &[0, 0], -3, 2);
    let sn =
        ScatterNd::new(&t(f, &[2, 3]), &t(DataType::Int64, &[2, 1]), &t(f, &[2, 3]), &t(f, &[2, 3]), 2, 2).unwrap();
    let mut y = vec![SENTINEL; 24];
    check(sn.execute(&x, &bytes_of_i64(&[0, 2]), &x, &mut y), &y, &[1, 0], 2, 2);
    assert_eq!(
        Error::IndexOutOfRange { input: 1, coordinate: vec![1, 0], value: 2, size: 2 }.to_string(),
        "index 2 at coordinate [1, 0] of the indices (input 1) is outside a dimension of size 2; valid indices are 0 \
         to 1 (and -2 to -1 for signed types, counted from the end)"
    );
}

/// Every validation rule of the six operators.
#[test]
fn every_validation_rule_has_its_error() {
    let (f, i64t, u8t) = (DataType::Float32, DataType::Int64, DataType::Uint8);
    let x = t(f, &[4, 3]);
    // Gather.
    let ix = t(i64t, &[1, 2]);
    assert_eq!(
        Gather::new(&x, &t(i64t, &[2]), &t(f, &[2, 3]), 0, 1).unwrap_err(),
        Error::OperandRankMismatch { operand: Operand::InputAt(1), rank: 1, expected: 2 }
    );
    assert_eq!(
        Gather::new(&x, &ix, &t(u8t, &[2, 3]), 0, 1).unwrap_err(),
        Error::OperandDataTypeMismatch { operand: Operand::Output, data_type: u8t, expected: f }
    );
    assert!(matches!(
        Gather::new(&x, &t(f, &[1, 2]), &t(f, &[2, 3]), 0, 1).unwrap_err(),
        Error::UnsupportedDataType { data_type: DataType::Float32, .. }
    ));
    assert_eq!(Gather::new(&x, &ix, &t(f, &[2, 3]), 2, 1).unwrap_err(), Error::AxisOutOfRange { axis: 2, rank: 2 });
    assert_eq!(
        Gather::new(&x, &ix, &t(f, &[2, 3]), 0, 3).unwrap_err(),
        Error::ArgumentOutOfRange { argument: "IndexDimensions", value: 3, min: 0, max: 2 }
    );
    assert!(matches!(
        Gather::new(&x, &t(i64t, &[2, 2]), &t(f, &[2, 3]), 0, 1).unwrap_err(),
        Error::OperandSizeMismatch { operand: Operand::InputAt(1), dim: 0, size: 2, expected: 1, .. }
    ));
    assert!(matches!(
        Gather::new(&x, &ix, &t(f, &[3, 3]), 0, 1).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::Output, .. }
    ));
    // Two index dimensions into a rank-2 result: the leading gathered size (4 rows kept, axis 1) cannot be dropped.
    assert!(matches!(
        Gather::new(&x, &t(i64t, &[2, 2]), &t(f, &[2, 2]), 1, 2).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::Output, .. }
    ));
    assert!(matches!(
        Gather::new(&x, &ix, &TensorDesc::with_strides(f, &[2, 3], &[0, 1]).unwrap(), 0, 1).unwrap_err(),
        Error::OverlappingOutput { .. }
    ));
    // Gather elements.
    assert!(matches!(
        GatherElements::new(&x, &t(i64t, &[2, 4]), &t(f, &[2, 4]), 0).unwrap_err(),
        Error::OperandSizeMismatch { operand: Operand::InputAt(1), dim: 1, size: 4, expected: 3, .. }
    ));
    assert!(matches!(
        GatherElements::new(&x, &t(i64t, &[2, 3]), &t(f, &[3, 3]), 0).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::Output, .. }
    ));
    // Gather ND.
    let nd = |ix: &[u32], out: &[u32], r, q, b| GatherNd::new(&x, &t(i64t, ix), &t(f, out), r, q, b);
    assert_eq!(
        nd(&[1, 2], &[1, 1], 3, 2, 0).unwrap_err(),
        Error::ArgumentOutOfRange { argument: "InputDimensionCount", value: 3, min: 1, max: 2 }
    );
    assert_eq!(
        nd(&[1, 2], &[1, 1], 2, 0, 0).unwrap_err(),
        Error::ArgumentOutOfRange { argument: "IndicesDimensionCount", value: 0, min: 1, max: 2 }
    );
    assert_eq!(
        nd(&[4, 1], &[4, 3], 2, 2, 2).unwrap_err(),
        Error::ArgumentOutOfRange { argument: "BatchDimensionCount", value: 2, min: 0, max: 1 }
    );
    assert!(matches!(
        nd(&[1, 3], &[1, 1], 2, 2, 0).unwrap_err(),
        Error::ArgumentOutOfRange { value: 3, min: 1, max: 2, .. }
    ));
    assert!(matches!(
        nd(&[3, 1], &[1, 3], 2, 2, 1).unwrap_err(),
        Error::OperandSizeMismatch { operand: Operand::InputAt(1), dim: 0, size: 3, expected: 4, .. }
    ));
    assert!(matches!(
        nd(&[2, 1], &[2, 3], 2, 1, 0).unwrap_err(),
        Error::OperandSizeMismatch { operand: Operand::InputAt(1), dim: 0, size: 2, expected: 1, .. }
    ));
    assert!(matches!(nd(&[2, 1], &[2, 2], 2, 2, 0).unwrap_err(), Error::ShapeMismatch { .. }));
    // Scatter elements.
    let se =
        |ix: &[u32], up: &TensorDesc, out: &[u32], axis| ScatterElements::new(&x, &t(i64t, ix), up, &t(f, out), axis);
    assert!(matches!(
        se(&[1, 3], &t(f, &[1, 3]), &[4, 2], 0).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::Output, .. }
    ));
    assert!(matches!(
        se(&[1, 3], &t(f, &[1, 2]), &[4, 3], 0).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::InputAt(2), .. }
    ));
    assert_eq!(
        se(&[1, 3], &t(u8t, &[1, 3]), &[4, 3], 0).unwrap_err(),
        Error::OperandDataTypeMismatch { operand: Operand::InputAt(2), data_type: u8t, expected: f }
    );
    assert!(matches!(se(&[5, 3], &t(f, &[5, 3]), &[4, 3], 1).unwrap_err(), Error::OperandSizeMismatch { dim: 0, .. }));
    assert_eq!(se(&[1, 3], &t(f, &[1, 3]), &[4, 3], 5).unwrap_err(), Error::AxisOutOfRange { axis: 5, rank: 2 });
    let s = ScatterElements::new(
        &x,
        &t(i64t, &[1, 3]),
        &t(f, &[1, 3]),
        &TensorDesc::with_strides(f, &[4, 3], &[4, 1]).unwrap(),
        0,
    )
    .unwrap();
    let mut data = vec![0u8; 64];
    assert!(matches!(
        s.execute_in_place(&mut data, &[0; 24], &[0; 12], &ExecOptions::default()).unwrap_err(),
        Error::NotInPlace { dim: 0, input_stride: 3, output_stride: 4 }
    ));
    // Scatter ND.
    assert!(matches!(
        ScatterNd::new(&x, &t(i64t, &[2, 1]), &t(f, &[2, 2]), &x, 2, 2).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::InputAt(2), .. }
    ));
    assert!(matches!(
        ScatterNd::new(&x, &t(i64t, &[2, 3]), &t(f, &[1, 2]), &x, 2, 2).unwrap_err(),
        Error::ArgumentOutOfRange { value: 3, min: 1, max: 2, .. }
    ));
    // One-hot.
    let v = t(f, &[1, 2]);
    assert!(matches!(
        OneHot::new(&t(i64t, &[4, 3]), &v, &x, 1).unwrap_err(),
        Error::ShapeMismatch { operand: Operand::InputAt(0), .. }
    ));
    assert_eq!(
        OneHot::new(&t(i64t, &[4, 1]), &t(f, &[1, 1]), &x, 1).unwrap_err(),
        Error::ArgumentOutOfRange { argument: "the number of values", value: 1, min: 2, max: u64::MAX }
    );
    assert_eq!(
        OneHot::new(&t(i64t, &[4, 1]), &t(u8t, &[1, 2]), &x, 1).unwrap_err(),
        Error::OperandDataTypeMismatch { operand: Operand::Output, data_type: f, expected: u8t }
    );
    assert!(matches!(OneHot::new(&t(f, &[4, 1]), &v, &x, 1).unwrap_err(), Error::UnsupportedDataType { .. }));
    // Buffers: too short, and the operator list's operand count.
    let g = Gather::new(&x, &ix, &t(f, &[2, 3]), 0, 1).unwrap();
    let mut y = vec![0u8; 24];
    assert!(matches!(
        g.execute(&[0; 48], &[0; 15], &mut y).unwrap_err(),
        Error::BufferTooSmall { operand: Operand::InputAt(1), .. }
    ));
    let op = OperatorDesc::Gather {
        input: x.clone(),
        indices: ix.clone(),
        output: t(f, &[2, 3]),
        axis: 0,
        index_dimensions: 1,
    }
    .build()
    .unwrap();
    assert_eq!(op.name(), "DML_OPERATOR_GATHER");
    assert!(matches!(
        op.execute(&[&[0; 48]], &mut [&mut y]).unwrap_err(),
        Error::OperandCount { operand: "input", expected: 2, actual: 1 }
    ));
}

/// DirectML's own examples (the operator pages).
#[test]
fn directml_examples() {
    let f = DataType::Float32;
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let u32s = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // GATHER_ND1 example 2: batches.
    let x = t(f, &[1, 3, 2, 2]);
    let op = GatherNd::new(&x, &t(DataType::Uint32, &[1, 3, 2, 2]), &t(f, &[1, 1, 3, 2]), 3, 3, 1).unwrap();
    let mut y = vec![0u8; 24];
    let data: Vec<f32> = (0..12).map(|v| v as f32).collect();
    op.execute(&floats(&data), &u32s(&[0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0]), &mut y).unwrap();
    assert_eq!(y, floats(&[0.0, 3.0, 7.0, 4.0, 9.0, 10.0]));
    // GATHER_ELEMENTS: select vertically.
    let op = GatherElements::new(&t(f, &[3, 3]), &t(DataType::Uint32, &[2, 3]), &t(f, &[2, 3]), 0).unwrap();
    let mut y = vec![0u8; 24];
    op.execute(&floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]), &u32s(&[1, 2, 0, 2, 0, 0]), &mut y).unwrap();
    assert_eq!(y, floats(&[4.0, 8.0, 3.0, 7.0, 2.0, 3.0]));
    // ONE_HOT example 3: values {4, 2, 9} along a column, axis 3.
    let op = OneHot::new(&t(DataType::Uint32, &[1, 1, 3, 1]), &t(f, &[1, 1, 3, 1]), &t(f, &[1, 1, 3, 4]), 3).unwrap();
    let mut y = vec![0u8; 48];
    op.execute(&u32s(&[0, 3, 2]), &floats(&[4.0, 2.0, 9.0]), &mut y).unwrap();
    assert_eq!(y, floats(&[2.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 2.0, 4.0, 4.0, 2.0, 4.0]));
}

/// Embedding lookups with rows long enough for the row kernels (and streamed stores), into a padded output.
#[test]
fn long_rows_gather_like_embeddings() {
    note_isas();
    let mut r = rng(397);
    for (case, (dt, cols)) in
        [(DataType::Float32, 1100u32), (DataType::Float16, 2100), (DataType::Uint8, 5000)].into_iter().enumerate()
    {
        let rows = 37u32;
        let input = TensorDesc::new(dt, &[rows, cols]).unwrap();
        let output = TensorDesc::with_strides(dt, &[45, cols], &[cols + 3, 1]).unwrap();
        let x = random_input(&mut r, &input);
        let (indices, ib, iv) =
            index_tensor(&mut r, DataType::Int64, &[1, 45], |r, _| random_index(r, DataType::Int64, rows));
        let xa = Array::read(&input, x.bytes());
        let want = Array::build(&[45, cols], dt.size_in_bytes(), |c| xa.at(&[wrap(iv[c[0]], rows), c[1]]).to_vec())
            .write(&output);
        let op = Gather::new(&input, &indices, &output, 0, 1).unwrap();
        let what = || format!("embedding {case}: {dt:?} rows of {cols}");
        run_all(dt, &want, case, &what, |dst, opts| op.execute_with(x.bytes(), ib.bytes(), dst, opts));
    }
}

/// Element gathers along the last axis long enough for the hardware gathers (every index type, 1- to 8-byte
/// elements, negative indices), on every level, thread count and store kind.
#[test]
fn long_element_gathers_on_every_level() {
    note_isas();
    let mut r = rng(398);
    for (case, dt) in [DataType::Float32, DataType::Int64, DataType::Uint8, DataType::Float16, DataType::Float64]
        .into_iter()
        .enumerate()
    {
        for it in INDEX_TYPES {
            let (rows, cols, picks) = (5u32, 300u32, 257u32);
            let input = layout(&mut r, dt, &[rows, cols], true);
            let output = TensorDesc::new(dt, &[rows, picks]).unwrap();
            let x = random_input(&mut r, &input);
            let (indices, ib, iv) = index_tensor(&mut r, it, &[rows, picks], |r, _| random_index(r, it, cols));
            let xa = Array::read(&input, x.bytes());
            let want = Array::build(&[rows, picks], dt.size_in_bytes(), |c| {
                xa.at(&[c[0], wrap(iv[flat(c, &[rows, picks])], cols)]).to_vec()
            })
            .write(&output);
            let op = GatherElements::new(&input, &indices, &output, 1).unwrap();
            let what = || format!("{dt:?} by {it:?}, {input:?} by {indices:?}");
            run_all(dt, &want, case, &what, |dst, opts| op.execute_with(x.bytes(), ib.bytes(), dst, opts));
        }
    }
}

/// Scatters of elements whose output rows (after the first dimension) are long and packed copy each row of the
/// data just before its updates: the same bytes as the reference on every level and thread count, with the output
/// rows past the indices' first dimension, padded rows in the input or the output, fewer index rows and columns than
/// the data's, duplicates, and the in-place form (which copies nothing). Shorter rows, axis 0 and rows not packed
/// copy the whole data first.
#[test]
fn scatters_of_long_rows_copy_each_row_before_its_updates() {
    note_isas();
    let mut r = rng(400);
    // Padding after each row (dimension 0) and, for the input, after each of dimension 1.
    let padded = |dt: DataType, sizes: &[u32], pad: u32, inner: u32| {
        let mut strides: Vec<u32> = vec![1; sizes.len()];
        for d in (0..sizes.len() - 1).rev() {
            strides[d] = strides[d + 1] * sizes[d + 1] + if d == 1 { inner } else { 0 };
        }
        strides[0] += pad;
        TensorDesc::with_strides(dt, sizes, &strides).unwrap()
    };
    // (type, data sizes, index sizes, axis, input padding after rows, and after dimension 1, output padding, rows
    // first)
    type Case = (DataType, &'static [u32], &'static [u32], usize, u32, u32, u32, bool);
    let cases: [Case; 8] = [
        (DataType::Float32, &[6, 800], &[4, 900], 1, 0, 0, 0, true),
        (DataType::Uint8, &[5, 3100], &[5, 40], 1, 7, 0, 0, true),
        (DataType::Float16, &[3, 4, 400], &[3, 2, 60], 2, 0, 0, 13, true),
        (DataType::Int64, &[4, 3, 130], &[2, 7, 130], 1, 5, 0, 3, true),
        (DataType::Float32, &[4, 2, 400], &[4, 2, 9], 2, 0, 0, 0, true),
        (DataType::Float32, &[6, 700], &[4, 50], 1, 0, 0, 0, false),
        (DataType::Float32, &[800, 6], &[900, 4], 0, 0, 0, 0, false),
        (DataType::Float32, &[4, 2, 400], &[4, 2, 9], 2, 0, 3, 0, false),
    ];
    for (case, (dt, is, xs, a, in_pad, inner, out_pad, fused)) in cases.into_iter().enumerate() {
        let it = INDEX_TYPES[case % INDEX_TYPES.len()];
        let (input, output) = (padded(dt, is, in_pad, inner), padded(dt, is, out_pad, 0));
        let updates = TensorDesc::new(dt, xs).unwrap();
        let op = check_scatter_elements(&mut r, case, it, a, &input, &updates, &output);
        let rows = op.explain().contains("output row copied from input 0");
        assert_eq!(rows, fused, "case {case}: axis {a}, {input:?} into {output:?}\n{}", op.explain());
    }
}

/// Element scatters along the last axis long enough for the hardware scatters, with many duplicates (the last in
/// C order wins), every index type and element width, on every level and thread count.
#[test]
fn long_element_scatters_keep_the_last_duplicate() {
    note_isas();
    let mut r = rng(399);
    for (case, dt) in [DataType::Float32, DataType::Int64, DataType::Uint16].into_iter().enumerate() {
        for it in INDEX_TYPES {
            let (rows, cols, picks) = (3u32, 40u32, 300u32);
            let w = dt.size_in_bytes();
            let input = TensorDesc::new(dt, &[rows, cols]).unwrap();
            let shape = [rows, picks];
            let (indices, ib, iv) = index_tensor(&mut r, it, &shape, |r, _| random_index(r, it, cols));
            let updates = TensorDesc::new(dt, &shape).unwrap();
            let (x, u) = (random_input(&mut r, &input), random_input(&mut r, &updates));
            let (xa, ua) = (Array::read(&input, x.bytes()), Array::read(&updates, u.bytes()));
            let want = scattered(&xa, &shape, |c| (vec![c[0], wrap(iv[flat(c, &shape)], cols)], ua.at(c).to_vec()));
            assert_eq!(want.width, w);
            let want = want.write(&input);
            let op = ScatterElements::new(&input, &indices, &updates, &input, 1).unwrap();
            let what = || format!("{dt:?} by {it:?}, {indices:?}");
            run_all(dt, &want, case, &what, |dst, opts| op.execute_with(x.bytes(), ib.bytes(), u.bytes(), dst, opts));
        }
    }
}
