//! The data-movement family against references written from NumPy's definitions, on logical arrays: pad (every
//! mode, borders wider than the input), join, split, tile, depth↔space (both orders, through an explicit
//! reshape–transpose–reshape) and the fills — every data type, ranks 1 to 8, padded, permuted and broadcast
//! operands, misaligned sentinel-filled outputs, every instruction set and thread configuration.

mod common;

use common::arrays::{Array, data_type, layout, random_input, sizes};
use common::{Buf, SENTINEL, check_configs, note_isas, rng};
use rand::Rng;
use strider::{
    DataType, DepthSpaceOrder, DepthToSpace, Error, Fill, Join, Operand, Padding, PaddingMode, Scalar, Slice1,
    SpaceToDepth, Split, TensorDesc, Tile,
};

/// NumPy's index for position `t` of a padded dimension of `n` (relative to the first input element), by
/// bouncing off the edges one at a time — a different computation from the library's periodic one.
fn numpy_pad_index(mode: PaddingMode, t: i64, n: i64) -> Option<i64> {
    let mut i = t;
    loop {
        if (0..n).contains(&i) {
            return Some(i);
        }
        i = match mode {
            PaddingMode::Constant => return None,
            PaddingMode::Edge => i.clamp(0, n - 1),
            PaddingMode::Reflection if i < 0 => -i,
            PaddingMode::Reflection => 2 * (n - 1) - i,
            PaddingMode::Symmetric if i < 0 => -i - 1,
            PaddingMode::Symmetric => 2 * n - 1 - i,
            PaddingMode::Wrap if i < 0 => i + n,
            PaddingMode::Wrap => i - n,
        };
    }
}

const MODES: [PaddingMode; 5] =
    [PaddingMode::Constant, PaddingMode::Edge, PaddingMode::Reflection, PaddingMode::Symmetric, PaddingMode::Wrap];

#[test]
fn padding_matches_numpy() {
    note_isas();
    let mut r = rng(35);
    for case in 0..160 {
        let (rank, dt, mode) = (1 + case % 8, data_type(&mut r), MODES[case % 5]);
        let in_sizes = sizes(&mut r, rank);
        let wide = case % 7 == 0; // borders wider than the input: NumPy folds them
        let pads: Vec<(u32, u32)> = (0..rank)
            .map(|d| {
                let n = in_sizes[d];
                if mode == PaddingMode::Reflection && n == 1 || r.random_bool(0.3) {
                    return (0, 0);
                }
                let most = if wide { 3 * n + 5 } else { n.min(4) };
                (r.random_range(0..=most), r.random_range(0..=most))
            })
            .collect();
        let mut pads = pads;
        let out_count = |pads: &[(u32, u32)]| {
            in_sizes.iter().zip(pads).map(|(&n, &(s, e))| (n + s + e) as usize).product::<usize>()
        };
        // Keep outputs small (the folded borders of rank 8 would be millions of elements): narrow borders one
        // dimension at a time.
        let mut d = 0;
        while out_count(&pads) > 40_000 {
            let keep = if d < rank { 1 } else { 0 }; // then none at all
            pads[d % rank] = (pads[d % rank].0.min(keep), pads[d % rank].1.min(keep));
            d += 1;
        }
        let out_sizes: Vec<u32> = in_sizes.iter().zip(&pads).map(|(&n, &(s, e))| n + s + e).collect();
        let input = layout(&mut r, dt, &in_sizes, true);
        let output = layout(&mut r, dt, &out_sizes, false);
        let value = Scalar::from_union(dt, r.random());
        let (start, end): (Vec<u32>, Vec<u32>) = pads.iter().copied().unzip();
        let op = Padding::new(&input, &output, mode, value, &start, &end).unwrap();
        let x = random_input(&mut r, &input);
        let a = Array::read(&input, x.bytes());
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |c| {
            let mut at = Vec::with_capacity(rank);
            for d in 0..rank {
                let t = c[d] as i64 - i64::from(start[d]);
                match numpy_pad_index(mode, t, i64::from(in_sizes[d])) {
                    Some(i) => at.push(i as usize),
                    None => return value.bytes().to_vec(),
                }
            }
            a.at(&at).to_vec()
        })
        .write(&output);
        let what = || format!("case {case}: {mode:?} {dt} {input:?} → {output:?} start {start:?} end {end:?}");
        check_configs(dt, &want, case, &what, |y, o| op.execute_with(x.bytes(), y, o));
        let mut y = vec![SENTINEL; want.len()];
        op.execute_reference(x.bytes(), &mut y).unwrap();
        assert!(y == want, "{} (execute_reference)", what());
    }
}

/// Paddings whose leading dimensions are unpadded run block by block (a block's interior, then its borders, on one
/// thread while the block is in the caches): the strategy is pinned, and the result holds when the blocks spread
/// over a pool (groups under the grain, the stage over it) and when each block's moves split (grain 1).
#[test]
fn padding_by_blocks() {
    let mut r = rng(37);
    let dt = DataType::Float32;
    let in_sizes = [3u32, 8, 150, 170];
    let (start, end) = ([0u32, 0, 3, 1], [0u32, 0, 2, 5]);
    let out_sizes: Vec<u32> = (0..4).map(|d| in_sizes[d] + start[d] + end[d]).collect();
    let (input, output) = (TensorDesc::new(dt, &in_sizes).unwrap(), TensorDesc::new(dt, &out_sizes).unwrap());
    let x = random_input(&mut r, &input);
    for mode in [PaddingMode::Edge, PaddingMode::Reflection, PaddingMode::Symmetric, PaddingMode::Wrap] {
        let op = Padding::new(&input, &output, mode, Scalar::from(0f32), &start, &end).unwrap();
        // Blocks of two planes (12 of them, 218 KB each): a block's interior and its four borders' moves.
        let moves = op.explain().lines().count();
        assert_eq!(moves, 12 * 5, "{mode:?}: {}", op.explain());
        let mut want = vec![0u8; output.addressed_bytes() as usize];
        op.execute_reference(x.bytes(), &mut want).unwrap();
        for (threads, grain) in [(1, 1 << 20), (2, 300 << 10), (7, 300 << 10), (2, 1), (7, 1)] {
            let opts = strider::ExecOptions::default().with_parallelism(strider::Parallelism::Grain(grain));
            let mut y = vec![SENTINEL; want.len()];
            common::with_threads(threads, || op.execute_with(x.bytes(), &mut y, &opts)).unwrap();
            assert!(y == want, "{mode:?}, {threads} threads, grain {grain}");
        }
    }
    // A constant padding fills its borders beside the interior in one stage: no blocks.
    let op = Padding::new(&input, &output, PaddingMode::Constant, Scalar::from(1f32), &start, &end).unwrap();
    assert_eq!(op.explain().lines().count(), 5);
}

#[test]
fn join_and_split_match_numpy() {
    let mut r = rng(36);
    for case in 0..120 {
        let (rank, dt) = (1 + case % 8, data_type(&mut r));
        let axis = r.random_range(0..rank);
        let base = sizes(&mut r, rank);
        let parts = r.random_range(1..=5);
        let part_sizes: Vec<Vec<u32>> = (0..parts)
            .map(|_| {
                let mut s = base.clone();
                s[axis] = r.random_range(1..=base[axis].max(2));
                s
            })
            .collect();
        let mut whole = base.clone();
        whole[axis] = part_sizes.iter().map(|s| s[axis]).sum();
        let ins: Vec<TensorDesc> = part_sizes.iter().map(|s| layout(&mut r, dt, s, true)).collect();
        let out = layout(&mut r, dt, &whole, false);
        let xs: Vec<Buf> = ins.iter().map(|t| random_input(&mut r, t)).collect();
        let arrays: Vec<Array> = ins.iter().zip(&xs).map(|(t, b)| Array::read(t, b.bytes())).collect();
        // np.concatenate
        let joined = Array::build(&whole, dt.size_in_bytes(), |c| {
            let mut at = c.to_vec();
            for a in &arrays {
                if at[axis] < a.sizes[axis] as usize {
                    return a.at(&at).to_vec();
                }
                at[axis] -= a.sizes[axis] as usize;
            }
            unreachable!()
        });
        let join = Join::new(&ins, &out, axis as u32).unwrap();
        let refs: Vec<&[u8]> = xs.iter().map(Buf::bytes).collect();
        let want = joined.write(&out);
        let what = || format!("join case {case}: {dt} axis {axis} {ins:?} → {out:?}");
        check_configs(dt, &want, case, &what, |y, o| join.execute_with(&refs, y, o));
        // Split the joined tensor back (from a strided copy of it), into fresh layouts.
        let src = layout(&mut r, dt, &whole, true);
        let src = TensorDesc::with_strides(dt, &whole, &strip_zeros(&src)).unwrap();
        let x = joined.write(&src);
        let outs: Vec<TensorDesc> = part_sizes.iter().map(|s| layout(&mut r, dt, s, false)).collect();
        let split = Split::new(&src, &outs, axis as u32).unwrap();
        for (threads, opts) in common::configs() {
            let mut bufs: Vec<Buf> =
                outs.iter().map(|t| Buf::filled(t.addressed_bytes() as usize, case % 7, SENTINEL)).collect();
            let mut ys: Vec<&mut [u8]> = bufs.iter_mut().map(Buf::bytes_mut).collect();
            common::with_threads(threads, || split.execute_with(&x, &mut ys, &opts)).unwrap();
            for (k, (t, b)) in outs.iter().zip(&bufs).enumerate() {
                assert!(b.bytes() == arrays[k].write(t), "split case {case} output {k} with {opts:?}");
            }
        }
    }
}

/// The strides of `t` with broadcast (0) strides replaced by packed ones, so that a split input holds distinct
/// elements (a broadcast input would make the expected blocks differ from the joined array).
fn strip_zeros(t: &TensorDesc) -> Vec<u32> {
    if t.strides().contains(&0) {
        TensorDesc::new(t.data_type(), t.sizes()).unwrap().strides().to_vec()
    } else {
        t.strides().to_vec()
    }
}

#[test]
fn tile_matches_numpy() {
    let mut r = rng(37);
    for case in 0..120 {
        let (rank, dt) = (1 + case % 8, data_type(&mut r));
        let in_sizes = sizes(&mut r, rank);
        let repeats: Vec<u32> = (0..rank).map(|_| if r.random_bool(0.5) { 1 } else { r.random_range(2..4) }).collect();
        let out_sizes: Vec<u32> = in_sizes.iter().zip(&repeats).map(|(&n, &k)| n * k).collect();
        if Array::count(&out_sizes) > 200_000 {
            continue;
        }
        let input = layout(&mut r, dt, &in_sizes, true);
        let output = layout(&mut r, dt, &out_sizes, false);
        let op = Tile::new(&input, &output, &repeats).unwrap();
        let x = random_input(&mut r, &input);
        let a = Array::read(&input, x.bytes());
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |c| {
            let at: Vec<usize> = c.iter().zip(&in_sizes).map(|(&o, &n)| o % n as usize).collect();
            a.at(&at).to_vec()
        })
        .write(&output);
        let what = || format!("tile case {case}: {dt} {input:?} × {repeats:?} → {output:?}");
        check_configs(dt, &want, case, &what, |y, o| op.execute_with(x.bytes(), y, o));
    }
}

/// Tiles whose view would need more than 8 dimensions: the outermost repeated dimensions are filled by doubling
/// copies from the output, so the number of moves grows with the logarithm of the repeats (a repeat of 100,000 is
/// 18 moves, not 100,000), and the result is still `np.tile`'s, on every layout and configuration.
#[test]
fn tiles_of_many_blocks_double_from_the_output() {
    let mut r = rng(38);
    let cases: [(&[u32], &[u32], usize); 4] = [
        (&[2, 1, 1, 1, 1, 1, 1, 1], &[100_000, 1, 1, 1, 1, 1, 1, 1], 18),
        (&[2; 8], &[3; 8], 1 + 8 * 2),
        (&[2, 3, 1, 2, 2, 1, 2, 2], &[5, 2, 4, 2, 3, 7, 2, 2], 1 + 3 + 1 + 1 + 2 + 1 + 1),
        (&[3, 2, 2, 2, 2, 2, 2, 2], &[2, 1, 2, 1, 2, 1, 2, 1], 1 + 4),
    ];
    for (case, (in_sizes, repeats, moves)) in cases.into_iter().enumerate() {
        let dt = data_type(&mut r);
        let out_sizes: Vec<u32> = in_sizes.iter().zip(repeats).map(|(&n, &k)| n * k).collect();
        let input = layout(&mut r, dt, in_sizes, true);
        let output = layout(&mut r, dt, &out_sizes, false);
        let op = Tile::new(&input, &output, repeats).unwrap();
        assert_eq!(op.explain().lines().count(), moves, "case {case}: {}", op.explain());
        let x = random_input(&mut r, &input);
        let a = Array::read(&input, x.bytes());
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |c| {
            let at: Vec<usize> = c.iter().zip(in_sizes.iter()).map(|(&o, &n)| o % n as usize).collect();
            a.at(&at).to_vec()
        })
        .write(&output);
        let what = || format!("tile case {case}: {dt} {input:?} × {repeats:?} → {output:?}");
        check_configs(dt, &want, case, &what, |y, o| op.execute_with(x.bytes(), y, o));
    }
}

/// Copies of long rows (at least 4 KiB) into outputs beyond L2, with input and output rows at the same offset in
/// their lines (through the CPU's string move where it has fast strings, see `kernels::arch::copy_strings`) and at
/// different offsets (through the registers): a tile of an f32 image and crops of rows of 4 KiB ± a line.
#[test]
fn long_row_copies_beyond_l2() {
    let mut r = rng(39);
    let f32_ = DataType::Float32;
    for (case, misalign) in [(0usize, 0usize), (7, 16), (14, 3)] {
        let input = TensorDesc::new(f32_, &[1, 3, 224, 224]).unwrap();
        let output = TensorDesc::new(f32_, &[4, 3, 224, 224]).unwrap();
        let op = Tile::new(&input, &output, &[4, 1, 1, 1]).unwrap();
        let mut x = Buf::random(input.addressed_bytes() as usize, misalign, &mut r);
        let a = Array::read(&input, x.bytes());
        let want = Array::build(output.sizes(), 4, |c| a.at(&[0, c[1], c[2], c[3]]).to_vec()).write(&output);
        let what = || format!("tile of 588 KiB rows, input {misalign} bytes past a line");
        check_configs(f32_, &want, case, &what, |y, o| op.execute_with(x.bytes(), y, o));
        // Rows of 1008–1040 f32 cropped from rows of 1100: each 4 KiB ± a line, at the input's offsets.
        for width in [1008u32, 1024, 1040] {
            let input = TensorDesc::new(f32_, &[600, 1100]).unwrap();
            let output = TensorDesc::new(f32_, &[600, width]).unwrap();
            let op = Slice1::new(&input, &output, &[0, 16], &[600, width], &[1, 1]).unwrap();
            x = Buf::random(input.addressed_bytes() as usize, misalign, &mut r);
            let a = Array::read(&input, x.bytes());
            let want = Array::build(output.sizes(), 4, |c| a.at(&[c[0], c[1] + 16]).to_vec()).write(&output);
            let what = || format!("crop of {width} of 1100 f32, input {misalign} bytes past a line");
            check_configs(f32_, &want, case, &what, |y, o| op.execute_with(x.bytes(), y, o));
        }
    }
}

#[test]
fn depth_to_space_and_back_match_onnx() {
    let mut r = rng(38);
    for case in 0..100 {
        let dt = data_type(&mut r);
        let b = r.random_range(1..=3u32);
        let (n, c, h, w) = (r.random_range(1..3), r.random_range(1..4), r.random_range(1..6), r.random_range(1..6));
        let order = if case % 2 == 0 { DepthSpaceOrder::DepthColumnRow } else { DepthSpaceOrder::ColumnRowDepth };
        let depth_sizes = [n, c * b * b, h, w];
        let space_sizes = [n, c, h * b, w * b];
        let input = layout(&mut r, dt, &depth_sizes, true);
        let output = layout(&mut r, dt, &space_sizes, false);
        let x = random_input(&mut r, &input);
        let a = Array::read(&input, x.bytes());
        // ONNX DepthToSpace: reshape, transpose, reshape.
        let space = match order {
            DepthSpaceOrder::DepthColumnRow => a.reshape_transpose(&[n, b, b, c, h, w], &[0, 3, 4, 1, 5, 2]),
            DepthSpaceOrder::ColumnRowDepth => a.reshape_transpose(&[n, c, b, b, h, w], &[0, 1, 4, 2, 5, 3]),
        };
        let space = Array { sizes: space_sizes.to_vec(), ..space };
        let op = DepthToSpace::new(&input, &output, b, order).unwrap();
        let what = || format!("depth→space case {case}: {dt} b {b} {order:?} {input:?} → {output:?}");
        check_configs(dt, &space.write(&output), case, &what, |y, o| op.execute_with(x.bytes(), y, o));
        // And back: space → depth gives the depth array again (from a layout without broadcast).
        let src = layout(&mut r, dt, &space_sizes, false);
        let back = layout(&mut r, dt, &depth_sizes, false);
        let inverse = SpaceToDepth::new(&src, &back, b, order).unwrap();
        let what = || format!("space→depth case {case}: {dt} b {b} {order:?} {src:?} → {back:?}");
        let xs = space.write(&src);
        let want = Array::read(&input, x.bytes()).write(&back);
        // A broadcast input repeats elements: the round trip holds for the logical array either way.
        check_configs(dt, &want, case, &what, |y, o| inverse.execute_with(&xs, y, o));
    }
}

/// NumPy's `arange(start, stop, delta).astype(dt)` in closed form: integers wrap, floats round once from f64.
fn sequence_value(dt: DataType, i: u64, start: f64, delta: f64, istart: i64, idelta: i64) -> Vec<u8> {
    let wrap = (istart as i128 + i as i128 * idelta as i128) as u64; // the low 64 bits: wrapping arithmetic
    let f = start + i as f64 * delta;
    match dt {
        DataType::Float64 => f.to_le_bytes().to_vec(),
        DataType::Float32 => (f as f32).to_le_bytes().to_vec(),
        DataType::Float16 => strider::half::f16::from_f64(f).to_le_bytes().to_vec(),
        _ => wrap.to_le_bytes()[..dt.size_in_bytes()].to_vec(),
    }
}

#[test]
fn fills_match_numpy() {
    let mut r = rng(39);
    for case in 0..120 {
        let (rank, dt) = (1 + case % 8, data_type(&mut r));
        let out_sizes = sizes(&mut r, rank);
        let output = layout(&mut r, dt, &out_sizes, false);
        let value = Scalar::from_union(dt, r.random());
        let fill = Fill::constant(&output, value).unwrap();
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |_| value.bytes().to_vec()).write(&output);
        let what = || format!("fill case {case}: {value} into {output:?}");
        check_configs(dt, &want, case, &what, |y, o| fill.execute_with(y, o));
        // Sequences: floats from f64 start and delta, integers from any 64-bit values.
        let (start, delta) = (r.random_range(-1e6..1e6f64), r.random_range(-1e3..1e3f64) / 7.0);
        let (istart, idelta): (i64, i64) = (r.random(), r.random_range(-300..300));
        let seq = if dt.is_float() {
            Fill::sequence(&output, Scalar::from(start), Scalar::from(delta)).unwrap()
        } else {
            Fill::sequence(&output, Scalar::from(istart), Scalar::from(idelta)).unwrap()
        };
        let mut i = 0u64;
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |_| {
            i += 1;
            sequence_value(dt, i - 1, start, delta, istart, idelta)
        })
        .write(&output);
        let what = || format!("sequence case {case}: {dt} into {output:?}");
        check_configs(dt, &want, case, &what, |y, o| seq.execute_with(y, o));
        let mut y = vec![SENTINEL; want.len()];
        seq.execute_reference(&mut y).unwrap();
        assert!(y == want, "{} (execute_reference)", what());
    }
}

/// Long sequences reach the vector loops, the staging chunks and the streamed stores.
#[test]
fn long_sequences_are_exact() {
    for dt in [DataType::Int64, DataType::Float32, DataType::Float16, DataType::Uint8, DataType::Float64] {
        let n = 100_003u32;
        let out = TensorDesc::new(dt, &[n]).unwrap();
        let (start, delta) = if dt.is_float() {
            (Scalar::from(-12.5f64), Scalar::from(0.1f64))
        } else {
            (Scalar::from(7i64), Scalar::from(-3i64))
        };
        let op = Fill::sequence(&out, start, delta).unwrap();
        let want: Vec<u8> = (0..u64::from(n)).flat_map(|i| sequence_value(dt, i, -12.5, 0.1, 7, -3)).collect();
        let what = || format!("sequence of {n} {dt}");
        check_configs(dt, &want, 3, &what, |y, o| op.execute_with(y, o));
    }
}

#[test]
fn validation_rules_name_the_field() {
    let t = |dt, s: &[u32]| TensorDesc::new(dt, s).unwrap();
    let f32s = |s: &[u32]| t(DataType::Float32, s);
    let says = |e: Error, words: &[&str]| {
        let text = e.to_string();
        for w in words {
            assert!(text.contains(w), "{text:?} lacks {w:?}");
        }
    };
    // Padding
    let e = Padding::new(&f32s(&[2, 3]), &f32s(&[4, 3]), PaddingMode::Constant, Scalar::from(0u8), &[1, 0], &[1, 0]);
    assert_eq!(
        e.unwrap_err(),
        Error::ScalarDataTypeMismatch { argument: "value", data_type: DataType::Uint8, expected: DataType::Float32 }
    );
    let e = Padding::new(&f32s(&[2, 3]), &f32s(&[5, 3]), PaddingMode::Edge, Scalar::from(0f32), &[1, 0], &[1, 0])
        .unwrap_err();
    says(e, &["output tensor has size 5 in dimension 0 but 4 is needed"]);
    let e = Padding::new(&f32s(&[1, 3]), &f32s(&[2, 3]), PaddingMode::Reflection, Scalar::from(0f32), &[1, 0], &[0, 0]);
    assert_eq!(e.unwrap_err(), Error::ReflectionOfSingleElement { dim: 0, start: 1, end: 0 });
    let e = Padding::new(&f32s(&[2]), &f32s(&[4]), PaddingMode::Wrap, Scalar::from(0f32), &[1], &[1, 1]).unwrap_err();
    says(e, &["end has 2 entries"]);
    // Join / Split
    assert_eq!(Join::new(&[], &f32s(&[2]), 0).unwrap_err(), Error::EmptyTensorList { argument: "inputs" });
    let e = Join::new(&[f32s(&[2, 2]), f32s(&[2, 3])], &f32s(&[2, 5]), 2).unwrap_err();
    assert_eq!(e, Error::AxisOutOfRange { axis: 2, rank: 2 });
    let e = Join::new(&[f32s(&[2, 2]), f32s(&[3, 3])], &f32s(&[2, 5]), 1).unwrap_err();
    says(e, &["input 1 tensor has size 3 in dimension 0 but 2 is needed"]);
    let e = Join::new(&[f32s(&[2, 2]), f32s(&[2, 3])], &f32s(&[2, 6]), 1).unwrap_err();
    assert_eq!(e, Error::AxisSizeSum { list: "input", axis: 1, sum: 5, operand: Operand::Output, size: 6 });
    let e = Join::new(&[f32s(&[2]), t(DataType::Float16, &[2])], &f32s(&[4]), 0).unwrap_err();
    assert_eq!(
        e,
        Error::OperandDataTypeMismatch {
            operand: Operand::InputAt(1),
            data_type: DataType::Float16,
            expected: DataType::Float32
        }
    );
    let e = Split::new(&f32s(&[4]), &[f32s(&[2]), f32s(&[1, 2])], 0).unwrap_err();
    assert_eq!(e, Error::OperandRankMismatch { operand: Operand::OutputAt(1), rank: 2, expected: 1 });
    let e = Split::new(&f32s(&[4]), &[f32s(&[2]), f32s(&[3])], 0).unwrap_err();
    assert_eq!(e, Error::AxisSizeSum { list: "output", axis: 0, sum: 5, operand: Operand::Input, size: 4 });
    // Tile
    assert_eq!(Tile::new(&f32s(&[2]), &f32s(&[2]), &[0]).unwrap_err(), Error::ZeroRepeat { dim: 0 });
    says(
        Tile::new(&f32s(&[2]), &f32s(&[5]), &[2]).unwrap_err(),
        &["size 5 in dimension 0 but 4 is needed", "times the repeat"],
    );
    // Depth ↔ space
    let order = DepthSpaceOrder::DepthColumnRow;
    let e = DepthToSpace::new(&f32s(&[1, 4, 1]), &f32s(&[1, 1, 2]), 2, order).unwrap_err();
    assert_eq!(e, Error::UnsupportedRank { operator: "DML_DEPTH_TO_SPACE", rank: 3, expected: 4 });
    assert_eq!(
        DepthToSpace::new(&f32s(&[1, 4, 1, 1]), &f32s(&[1, 4, 1, 1]), 0, order).unwrap_err(),
        Error::ZeroBlockSize
    );
    let e = DepthToSpace::new(&f32s(&[1, 6, 1, 1]), &f32s(&[1, 1, 2, 2]), 2, order).unwrap_err();
    says(e, &["block size 2", "size 6 in dimension 1 is not a multiple of 4"]);
    let e = SpaceToDepth::new(&f32s(&[1, 1, 3, 2]), &f32s(&[1, 4, 1, 1]), 2, order).unwrap_err();
    says(e, &["input tensor's size 3 in dimension 2 is not a multiple of 2"]);
    let e = DepthToSpace::new(&f32s(&[1, 8, 1, 1]), &f32s(&[1, 2, 2, 3]), 2, order).unwrap_err();
    says(e, &["output tensor has size 3 in dimension 3 but 2 is needed"]);
    // Fills
    let e = Fill::constant(&f32s(&[2]), Scalar::from(1f64)).unwrap_err();
    assert_eq!(
        e,
        Error::ScalarDataTypeMismatch { argument: "value", data_type: DataType::Float64, expected: DataType::Float32 }
    );
    let e = Fill::sequence(&t(DataType::Int32, &[2]), Scalar::from(0i32), Scalar::from(1.0f32)).unwrap_err();
    assert_eq!(
        e,
        Error::ScalarDataTypeMismatch { argument: "delta", data_type: DataType::Float32, expected: DataType::Int32 }
    );
    // Outputs that map two coordinates to one element, and buffers.
    let aliased = TensorDesc::with_strides(DataType::Float32, &[2, 2], &[1, 1]).unwrap();
    assert!(matches!(Fill::constant(&aliased, Scalar::from(0f32)).unwrap_err(), Error::OverlappingOutput { .. }));
    let join = Join::new(&[f32s(&[2]), f32s(&[2])], &f32s(&[4]), 0).unwrap();
    let mut y = [0u8; 16];
    assert_eq!(
        join.execute(&[&[0; 8]], &mut y).unwrap_err(),
        Error::OperandCount { operand: "input", expected: 2, actual: 1 }
    );
    let e = join.execute(&[&[0; 8], &[0; 7]], &mut y).unwrap_err();
    assert_eq!(
        e,
        Error::BufferTooSmall { operand: Operand::InputAt(1), data_type: DataType::Float32, required: 8, actual: 7 }
    );
    assert_eq!(y, [0; 16], "nothing written");
}

/// The operators of one input read and write reversed dimensions (NumPy's negative strides) in logical order too:
/// identity, cast, slice, slice1 and normalize against the same logical references, every configuration.
#[test]
fn reversed_operands_in_every_operator() {
    use strider::{Cast, Identity, Normalize, Slice, Slice1};
    let mut r = rng(40);
    for case in 0..80 {
        let (rank, dt) = (1 + case % 6, data_type(&mut r));
        let sizes_in = sizes(&mut r, rank);
        let input = layout(&mut r, dt, &sizes_in, true);
        let output = layout(&mut r, dt, &sizes_in, false);
        let x = random_input(&mut r, &input);
        let a = Array::read(&input, x.bytes());
        let what = || format!("case {case}: {input:?} → {output:?}");
        let op = Identity::new(&input, &output).unwrap();
        check_configs(dt, &a.write(&output), case, &what, |y, o| op.execute_with(x.bytes(), y, o));
        // Cast to f32 through the value reference.
        let f32_out = layout(&mut r, DataType::Float32, &sizes_in, false);
        let cast = Cast::new(&input, &f32_out).unwrap();
        let want = Array {
            width: 4,
            data: a
                .data
                .chunks(dt.size_in_bytes())
                .flat_map(|e| common::values::encode(DataType::Float32, common::values::decode(dt, e)))
                .collect(),
            ..a.clone()
        };
        check_configs(DataType::Float32, &want.write(&f32_out), case, &what, |y, o| cast.execute_with(x.bytes(), y, o));
        // A window: every other element backwards along the last dimension.
        let last = rank - 1;
        let n = sizes_in[last];
        let mut out_sizes = sizes_in.clone();
        out_sizes[last] = n.div_ceil(2);
        let out = layout(&mut r, dt, &out_sizes, false);
        let (offsets, mut strides) = (vec![0u32; rank], vec![1i32; rank]);
        strides[last] = -2;
        let slice1 = Slice1::new(&input, &out, &offsets, &sizes_in, &strides).unwrap();
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |c| {
            let mut at = c.to_vec();
            at[last] = n as usize - 1 - 2 * c[last];
            a.at(&at).to_vec()
        });
        check_configs(dt, &want.write(&out), case, &what, |y, o| slice1.execute_with(x.bytes(), y, o));
        // DML_SLICE: every other element forwards.
        let mut steps = vec![1u32; rank];
        steps[last] = 2;
        let slice = Slice::new(&input, &out, &offsets, &out_sizes, &steps).unwrap();
        let want = Array::build(&out_sizes, dt.size_in_bytes(), |c| {
            let mut at = c.to_vec();
            at[last] = 2 * c[last];
            a.at(&at).to_vec()
        });
        check_configs(dt, &want.write(&out), case, &what, |y, o| slice.execute_with(x.bytes(), y, o));
        // Normalize with per-channel parameters on dimension 0.
        let channels = sizes_in[0] as usize;
        let (scale, bias): (Vec<f32>, Vec<f32>) = (0..channels).map(|k| (0.5 + k as f32, -(k as f32))).unzip();
        let norm =
            Normalize::new(&input, &f32_out, &offsets, &sizes_in, &vec![1; rank], Some(0), &scale, &bias).unwrap();
        let mut i = 0;
        let want = Array::build(&sizes_in, 4, |c| {
            i += 1;
            let e = a.at(c);
            common::values::normalize(dt, DataType::Float32, e, scale[c[0]], bias[c[0]])
        });
        let _ = i;
        check_configs(DataType::Float32, &want.write(&f32_out), case, &what, |y, o| norm.execute_with(x.bytes(), y, o));
    }
}
