//! Layout conversion: Identity and DML_SLICE against the reference, every permutation of ranks 2..5 with odd
//! sizes and every element width, padded ↔ packed, broadcast materialization, the spec's NHWC example; the
//! layout helpers; and the validation rules of the two operators.

mod common;

use common::{Buf, SENTINEL, WIDTH_TYPES};
use strider::{DataType, Error, Identity, RowKind, Slice, Slice1, TensorDesc};

/// Runs `op` under every configuration and compares the whole output buffer (sentinel padding included).
fn check_identity(input: &TensorDesc, output: &TensorDesc, salt: u64) {
    let op = Identity::new(input, output).unwrap();
    let mut rng = common::rng(salt);
    let src = Buf::random(input.addressed_bytes() as usize, (salt % 5) as usize, &mut rng);
    let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
    common::reference_identity(input, output, src.bytes(), &mut want);
    for (threads, opts) in common::configs() {
        let mut dst = Buf::filled(want.len(), (salt % 3) as usize, SENTINEL);
        common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
        assert!(
            dst.bytes() == &want[..],
            "{input:?} -> {output:?} with {opts:?} on {threads}: {} {}",
            op.row_kind(),
            op.plan()
        );
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn identity_every_permutation_of_ranks_2_to_5() {
    common::note_isas();
    let sizes_by_rank: [&[u32]; 4] = [&[13, 19], &[5, 7, 9], &[3, 5, 7, 9], &[3, 5, 3, 7, 5]];
    for sizes in sizes_by_rank {
        for order in permutations(sizes.len()) {
            for dt in WIDTH_TYPES {
                let permuted = TensorDesc::permuted(dt, sizes, &order).unwrap();
                let packed = TensorDesc::new(dt, sizes).unwrap();
                check_identity(&permuted, &packed, order.len() as u64 * 7 + order[0] as u64);
                check_identity(&packed, &permuted, order.len() as u64 * 11 + order[0] as u64);
            }
        }
    }
}

#[test]
fn identity_transposes_large_enough_for_tiles() {
    // 2-D and batched transposes with edges of every residue around the 8x8 tiles, every width
    for dt in WIDTH_TYPES {
        for (rows, cols) in
            [(8, 8), (16, 24), (17, 33), (63, 65), (3, 100), (100, 3), (4, 257), (257, 4), (2, 40), (40, 2)]
        {
            let packed = TensorDesc::new(dt, &[rows, cols]).unwrap();
            let colmaj = TensorDesc::column_major(dt, [rows, cols]).unwrap();
            check_identity(&packed, &colmaj, u64::from(rows * cols));
            check_identity(&colmaj, &packed, u64::from(rows + cols));
        }
        // NCHW <-> NHWC with 3 and 4 channels and with many channels (13: a block one whole tile and 5 columns wide)
        for c in [3u32, 4, 13, 16, 33] {
            let nchw = TensorDesc::nchw(dt, [2, c, 9, 13]).unwrap();
            let nhwc = TensorDesc::nhwc(dt, [2, c, 9, 13]).unwrap();
            check_identity(&nchw, &nhwc, u64::from(c));
            check_identity(&nhwc, &nchw, u64::from(c) + 1);
        }
    }
}

/// Transposes whose output rows are a multiple of 1 KiB (or 512 bytes) apart (they walk square blocks, see
/// `params::TRANSPOSE_CRITICAL_STRIDE`): block edges, partial tiles on both sides, padded outputs.
#[test]
fn identity_transposes_with_critical_output_strides() {
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        let ni = 1024 / w; // output rows 1 KiB apart when packed
        // (ni / 2: 512 bytes apart, critical for 8×8 tiles of partial lines.)
        for (n_i, nj, pad) in [(ni, 37, 0), (ni * 2 + 3, 131, ni - 3), (ni - 5, 20, 5 + 1024 / w), (ni / 2, 45, 0)] {
            // input [n_i, nj] packed; output element (i, j) at j·(n_i + pad) + i
            let input = TensorDesc::new(dt, &[n_i, nj]).unwrap();
            let output = TensorDesc::with_strides(dt, &[n_i, nj], &[1, n_i + pad]).unwrap();
            let op = Identity::new(&input, &output).unwrap();
            assert!(matches!(op.row_kind(), strider::RowKind::Transpose { .. }), "{dt} {n_i}x{nj}: {}", op.row_kind());
            check_identity(&input, &output, u64::from(n_i * 7 + nj));
        }
    }
}

/// Transposes whose rows are whole multiples of a 64-byte line apart in both operands (on AVX-512 16×16 register
/// tiles for 4-byte elements, 32×16 for 2-byte ones): whole tiles, leftover rows of 1–7, 8–15 and 16–31 (8×8 tiles
/// plus partial ones), leftover columns, misaligned buffers (`check_identity`).
#[test]
fn identity_transposes_with_line_multiple_strides() {
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        let line = 64 / w.min(64); // elements per line
        let up = |n: u32| n.div_ceil(line) * line;
        for (n_i, nj) in [(16, 16), (32, 48), (37, 45), (24, 40), (61, 19), (16, 70), (100, 33), (19, 128)] {
            // input [n_i, nj] with rows up(nj) + line elements apart; output element (i, j) at j·up(n_i) + i
            let input = TensorDesc::with_strides(dt, &[n_i, nj], &[up(nj) + line, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[n_i, nj], &[1, up(n_i)]).unwrap();
            let op = Identity::new(&input, &output).unwrap();
            assert!(matches!(op.row_kind(), strider::RowKind::Transpose { .. }), "{dt} {n_i}x{nj}: {}", op.row_kind());
            check_identity(&input, &output, u64::from(n_i * 3 + nj));
            check_identity(&output, &input, u64::from(n_i + nj * 5));
        }
        // Packed pixels of 16 channels into planes (NHWC → NCHW with C = 16: 32-byte input rows for 2-byte types).
        for hw in [32u32, 70, 200] {
            let input = TensorDesc::with_strides(dt, &[hw, 16], &[16, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[hw, 16], &[1, up(hw)]).unwrap();
            check_identity(&input, &output, u64::from(hw));
        }
        // Pixels of 8, 13 or 24 channels into planes of 1 KiB or more (32- and 96-byte input rows for 4-byte types:
        // pairs of 8×8 tiles on AVX-512), with leftover pixels and channels.
        for (hw, c) in [(256u32, 8u32), (300, 24), (519, 13), (1024 / w + 17, 8)] {
            let input = TensorDesc::with_strides(dt, &[hw, c], &[c, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[hw, c], &[1, up(hw)]).unwrap();
            check_identity(&input, &output, u64::from(hw + c));
        }
    }
}

/// Transposes through whole-line tiles on buffers that start past a line by whole elements, as numpy's large arrays
/// start 16 bytes past one: a block's first rows (and columns, for the input) go through smaller tiles so that the
/// rest starts on lines on both sides. Whole and partial tiles, either side aligned or both misaligned.
#[test]
fn identity_transposes_on_buffers_past_a_line() {
    for dt in [DataType::Float16, DataType::Float32] {
        let w = dt.size_in_bytes();
        for (n_i, nj) in [(64u32, 64u32), (45, 77), (128, 40), (20, 300)] {
            // Rows 320 elements apart on both sides: a multiple of a line for both widths.
            let input = TensorDesc::with_strides(dt, &[n_i, nj], &[320, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[n_i, nj], &[1, 320]).unwrap();
            transposes_past_a_line(&input, &output, &[(16, 16), (0, 48), (32, 0), (w, 64 - w), (60, 2 * w)]);
        }
    }
}

/// Transposes into packed rows (NCHW → NHWC: output rows of whole lines, one after the other) on buffers past a line:
/// the rotated blocks (`rows::transpose::rotation`) with their wrapped first rows, the edges around them, and the
/// blocks too narrow to rotate, across placements of both operands, channel counts on both sweeps (all strips and
/// super-blocks), input rows a multiple of a line apart or not.
#[test]
fn identity_transposes_into_packed_rows_past_a_line() {
    for dt in [DataType::Float16, DataType::Float32] {
        let w = dt.size_in_bytes();
        for (c, p, pitch) in [(64u32, 300u32, 320u32), (16, 100, 112), (32, 40, 48), (96, 37, 37), (128, 17, 32)] {
            let input = TensorDesc::with_strides(dt, &[c, p], &[pitch, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[c, p], &[1, c]).unwrap();
            transposes_past_a_line(&input, &output, &[(16, 16), (0, 48), (w, w), (16, 64 - w), (60, 2 * w), (0, 0)]);
        }
    }
}

/// The transpose `input` → `output` against the reference with its buffers `(input, output)` bytes past a line, in
/// every configuration.
fn transposes_past_a_line(input: &TensorDesc, output: &TensorDesc, placements: &[(usize, usize)]) {
    let op = Identity::new(input, output).unwrap();
    let what = format!("{} {:?} → {:?}", input.data_type(), input.strides(), output.strides());
    assert!(matches!(op.row_kind(), strider::RowKind::Transpose { .. }), "{what}: {}", op.row_kind());
    let mut rng = common::rng(input.addressed_bytes() + output.addressed_bytes());
    let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
    for &(past_in, past_out) in placements {
        let src = Buf::random(input.addressed_bytes() as usize, past_in, &mut rng);
        want.fill(SENTINEL);
        common::reference_identity(input, output, src.bytes(), &mut want);
        for (threads, opts) in common::configs() {
            let mut dst = Buf::filled(want.len(), past_out, SENTINEL);
            common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
            assert!(
                dst.bytes() == &want[..],
                "{what} {:?}, input {past_in} and output {past_out} bytes past a line, {opts:?} on {threads}",
                input.sizes()
            );
        }
    }
}

/// Transposes whose input and output rows are both a multiple of 1 KiB apart (1- and 2-byte elements go through a
/// buffer there): whole and partial 64-element blocks, both directions, every width; then the same in child processes
/// whose L1 is said to have the fewest and the most ways `STRIDER_CACHE` takes (1 and 256), on both sides of the
/// associativity from which the square blocks of wide tiles are swept in diagonals instead of columns, on any host.
#[test]
fn identity_transposes_with_critical_strides_on_both_sides() {
    critical_stride_transposes();
    for ways in [1, 256] {
        common::run_ignored_with_env(
            "critical_stride_transposes_in_the_other_order",
            "STRIDER_CACHE",
            &format!("l1ways={ways}"),
        );
    }
}

/// Run by `identity_transposes_with_critical_strides_on_both_sides` with `STRIDER_CACHE=l1ways=..` (ignored
/// otherwise).
#[test]
#[ignore = "run in a child process with STRIDER_CACHE=l1ways=.."]
fn critical_stride_transposes_in_the_other_order() {
    assert!(std::env::var("STRIDER_CACHE").is_ok_and(|v| v.starts_with("l1ways=")));
    critical_stride_transposes();
}

fn critical_stride_transposes() {
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        // The smallest row stride (elements) of at least n elements that is a multiple of 1 KiB.
        let crit = |n: u32| (n * w).div_ceil(1024) * 1024 / w;
        // (530 × 1100: several blocks of wide tiles, partial ones at both ends, swept in diagonals or columns.)
        for (n_i, nj) in [(64, 64), (8, 8), (70, 130), (129, 65), (8, 200), (200, 9), (1, 300), (128, 1), (530, 1100)] {
            let input = TensorDesc::with_strides(dt, &[n_i, nj], &[crit(nj), 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[n_i, nj], &[1, crit(n_i)]).unwrap();
            let op = Identity::new(&input, &output).unwrap();
            if n_i > 1 && nj > 1 {
                assert!(matches!(op.row_kind(), strider::RowKind::Transpose { .. }), "{dt} {n_i}x{nj}");
            }
            check_identity(&input, &output, u64::from(n_i * 7 + nj));
            check_identity(&output, &input, u64::from(n_i + nj * 3));
        }
    }
}

/// Transposes whose input rows crowd into a few L1 sets (NCHW planes a multiple of 4 KiB apart into NHWC with 16
/// channels or more: on AVX-512 through a buffer of rows, see `rows::transpose::aliased_rows`): whole strips of
/// tile rows and leftover rows, chunks and column super-blocks with partial ends, padded planes, every width.
#[test]
fn identity_transposes_with_aliased_input_rows() {
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        let way = 4096 / w; // elements of 4 KiB
        // (48 channels of 4 ways and 37 elements: two column super-blocks for 4- and 2-byte elements.)
        for (c, hw, plane) in [(16u32, way, way), (33, 1000.min(way - 3), way), (48, 4 * way + 37, 5 * way)] {
            let input = TensorDesc::with_strides(dt, &[c, hw], &[plane, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[c, hw], &[1, c]).unwrap();
            let op = Identity::new(&input, &output).unwrap();
            assert!(matches!(op.row_kind(), strider::RowKind::Transpose { .. }), "{dt} {c}x{hw}: {}", op.row_kind());
            check_identity(&input, &output, u64::from(c * 5 + hw));
        }
    }
}

/// Transposes whose output rows crowd into a few L1 sets (NHWC pixels into NCHW planes a multiple of 4 KiB apart:
/// on every level through a buffer of output rows, see `rows::transpose::out_rows`): whole and partial blocks of
/// rows and columns, 8 to 40 channels, padded planes, every width.
#[test]
fn identity_transposes_with_crowded_output_rows() {
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        let way = 4096 / w; // elements of 4 KiB
        let side = 512 / w; // pixels of one block
        for (c, hw, plane) in [(16u32, way, way), (33, 2 * side + 37, 2 * way), (8, 3 * side, 3 * way), (40, side, way)]
        {
            let input = TensorDesc::with_strides(dt, &[hw, c], &[c, 1]).unwrap();
            let output = TensorDesc::with_strides(dt, &[hw, c], &[1, plane]).unwrap();
            let op = Identity::new(&input, &output).unwrap();
            assert!(matches!(op.row_kind(), strider::RowKind::Transpose { .. }), "{dt} {hw}x{c}: {}", op.row_kind());
            check_identity(&input, &output, u64::from(c * 3 + hw));
        }
    }
}

/// Blocks one 8×8 tile wide of 4-byte elements (8 channels of NHWC pixels into NCHW planes, the public rank-5
/// permutation's 32 × 8 blocks), which go down their column in line-wide stacks where the output rows are a multiple
/// of a line apart (`rows::transpose::column_stacks`) and in 8×8 tiles otherwise: row counts around a stack's 16
/// (partial stacks, leftover rows), planes a line apart or not, at every level with regular and streamed stores.
#[test]
fn identity_transposes_blocks_one_tile_wide() {
    let f32s = DataType::Float32;
    for (hw, plane) in [(16u32, 16u32), (17, 32), (31, 48), (32, 32), (48, 64), (100, 112), (100, 101), (33, 35)] {
        let input = TensorDesc::with_strides(f32s, &[8, hw], &[1, 8]).unwrap();
        let output = TensorDesc::with_strides(f32s, &[8, hw], &[plane, 1]).unwrap();
        check_identity(&input, &output, u64::from(hw + plane));
    }
    // The public rank-5 permutation (0, 4, 2, 1, 3) at a smaller size.
    let sizes = [2, 3, 32, 32, 8];
    let output = TensorDesc::with_strides(f32s, &sizes, &[24576, 32, 96, 1, 3072]).unwrap();
    check_identity(&TensorDesc::new(f32s, &sizes).unwrap(), &output, 5);
}

#[test]
fn identity_padded_and_packed() {
    for dt in WIDTH_TYPES {
        let packed = TensorDesc::new(dt, &[5, 7, 9]).unwrap();
        let padded = TensorDesc::with_strides(dt, &[5, 7, 9], &[7 * 12 + 3, 12, 1]).unwrap();
        check_identity(&packed, &padded, 1);
        check_identity(&padded, &packed, 2);
        assert_eq!(padded.row_pitch_bytes(), Some(12 * dt.size_in_bytes() as u64));
        assert!(!padded.is_packed() && packed.is_packed());
    }
}

/// Pixels out of wider slots (RGBX → RGB, any element width) and into them (RGB → RGBX: the slots' spare bytes
/// keep the sentinel): rows of every length around the shuffle lanes' widths, slots one to three elements wider
/// than the pixel.
#[test]
fn identity_unpads_and_pads_pixels() {
    for dt in WIDTH_TYPES {
        for channels in 1..=4u32 {
            for slot in channels + 1..=channels + 3 {
                for (salt, width) in [1u32, 5, 6, 21, 22, 40, 67].into_iter().enumerate() {
                    let sizes = [3, width, channels];
                    let padded = TensorDesc::with_strides(dt, &sizes, &[width * slot + 1, slot, 1]).unwrap();
                    let packed = TensorDesc::new(dt, &sizes).unwrap();
                    check_identity(&padded, &packed, salt as u64);
                    check_identity(&packed, &padded, salt as u64 + 7);
                }
            }
        }
    }
}

/// Pixels in slots wider than their channels (RGBX, two of four) into planes: deinterleaved like packed pixels, the
/// unused slots never read into a plane; every element width, rows around every register width.
#[test]
fn identity_deinterleaves_slotted_pixels() {
    for dt in WIDTH_TYPES {
        for channels in 2..=3u32 {
            for slots in channels + 1..=4 {
                for (salt, width) in [16u32, 21, 64, 67, 130].into_iter().enumerate() {
                    let sizes = [2, channels, 3, width];
                    let strides = [3 * width * slots, 1, width * slots, slots];
                    let slotted = TensorDesc::with_strides(dt, &sizes, &strides).unwrap();
                    let planes = TensorDesc::new(dt, &sizes).unwrap();
                    check_identity(&slotted, &planes, salt as u64);
                    let kind = Identity::new(&slotted, &planes).unwrap().row_kind();
                    assert_eq!(kind, strider::RowKind::Deinterleave { planes: channels as usize }, "{dt} {slots}");
                }
            }
        }
    }
}

/// Mirrored pixels with their channels reversed into planes in one slice (a horizontal flip, BGR → RGB and NHWC →
/// NCHW): the deinterleave reads the pixels backwards and their channels in reverse order; every element width, 2
/// to 4 channels, rows around every register width, under every configuration (the portable level moves every
/// pixel one at a time).
#[test]
fn slice1_deinterleaves_mirrored_pixels_with_reversed_channels() {
    for dt in WIDTH_TYPES {
        for channels in 2..=4u32 {
            for (salt, width) in [1u32, 7, 16, 21, 64, 67, 130].into_iter().enumerate() {
                let sizes = [3, width, channels];
                let input = TensorDesc::new(dt, &sizes).unwrap();
                // The logical [H, W, C] stored as planes (C outermost).
                let output = TensorDesc::with_strides(dt, &sizes, &[width, 1, 3 * width]).unwrap();
                let op = Slice1::new(&input, &output, &[0, 0, 0], &sizes, &[1, -1, -1]).unwrap();
                if width >= 16 {
                    assert_eq!(op.row_kind(), RowKind::Deinterleave { planes: channels as usize }, "{dt} {width}");
                }
                let mut rng = common::rng(salt as u64);
                let src = Buf::random(input.addressed_bytes() as usize, salt % 5, &mut rng);
                let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
                common::reference_slice1(&input, &output, &[0, 0, 0], &sizes, &[1, -1, -1], src.bytes(), &mut want);
                for (threads, opts) in common::configs() {
                    let mut dst = Buf::filled(want.len(), salt % 3, SENTINEL);
                    common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
                    assert!(
                        dst.bytes() == &want[..],
                        "{dt} {channels} {width} with {opts:?} on {threads}: {}",
                        op.plan()
                    );
                }
            }
        }
    }
}

#[test]
fn identity_materializes_broadcasts() {
    for dt in WIDTH_TYPES {
        for (sizes, strides) in [
            (&[4u32, 5][..], &[0u32, 1][..]),
            (&[4, 5], &[1, 0]),
            (&[3, 4, 5], &[5, 0, 1]),
            (&[3, 4, 70], &[0, 70, 1]),
            (&[3, 4, 70], &[0, 0, 0]),
        ] {
            let input = TensorDesc::with_strides(dt, sizes, strides).unwrap();
            assert!(input.is_broadcast());
            let output = TensorDesc::new(dt, sizes).unwrap();
            check_identity(&input, &output, sizes.len() as u64);
        }
    }
}

#[test]
fn identity_spec_nhwc_example() {
    // The spec's example: {1, 1, 3, 5} with packed NHWC strides {15, 1, 5, 1}. With one channel NHWC and NCHW are
    // the same layout, so the conversion is a plain copy.
    let nhwc = TensorDesc::with_strides(DataType::Float32, &[1, 1, 3, 5], &[15, 1, 5, 1]).unwrap();
    assert_eq!(nhwc, TensorDesc::nhwc(DataType::Float32, [1, 1, 3, 5]).unwrap());
    let nchw = TensorDesc::nchw(DataType::Float32, [1, 1, 3, 5]).unwrap();
    let op = Identity::new(&nhwc, &nchw).unwrap();
    let x: Vec<f32> = (0..15).map(|v| v as f32).collect();
    let mut y = vec![0f32; 15];
    op.execute_typed(&x, &mut y).unwrap();
    assert_eq!(x, y);
    // Three channels, where the layouts differ: element (c, h, w) of NHWC sits at 15h + 3w + c.
    let nhwc = TensorDesc::nhwc(DataType::Float32, [1, 3, 3, 5]).unwrap();
    assert_eq!(nhwc.strides(), &[45, 1, 15, 3]);
    let nchw = TensorDesc::nchw(DataType::Float32, [1, 3, 3, 5]).unwrap();
    let x: Vec<f32> = (0..45).map(|v| v as f32).collect();
    let mut y = vec![0f32; 45];
    Identity::new(&nhwc, &nchw).unwrap().execute_typed(&x, &mut y).unwrap();
    for (c, h, w) in (0..3).flat_map(|c| (0..3).flat_map(move |h| (0..5).map(move |w| (c, h, w)))) {
        assert_eq!(y[c * 15 + h * 5 + w], (15 * h + 3 * w + c) as f32, "c {c} h {h} w {w}");
    }
    // and a real NHWC image: 2 channels, 2x3 pixels
    let nhwc = TensorDesc::nhwc(DataType::Uint8, [1, 2, 2, 3]).unwrap();
    let nchw = TensorDesc::nchw(DataType::Uint8, [1, 2, 2, 3]).unwrap();
    let mut planes = [0u8; 12];
    Identity::new(&nhwc, &nchw).unwrap().execute(&[1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12], &mut planes).unwrap();
    assert_eq!(planes, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
}

#[test]
fn layout_helpers() {
    let dt = DataType::Float16;
    assert_eq!(TensorDesc::nhwc(dt, [2, 3, 4, 5]).unwrap().strides(), &[60, 1, 15, 3]);
    assert_eq!(TensorDesc::ndhwc(dt, [2, 3, 4, 5, 6]).unwrap().strides(), &[360, 1, 90, 18, 3]);
    assert_eq!(TensorDesc::ncdhw(dt, [2, 3, 4, 5, 6]).unwrap().strides(), &[360, 120, 30, 6, 1]);
    assert_eq!(TensorDesc::column_major(dt, [2, 3]).unwrap().strides(), &[1, 2]);
    assert!(TensorDesc::nhwc(dt, [2, 3, 4, 5]).unwrap().is_packed());
    assert!(!TensorDesc::nhwc(dt, [2, 3, 4, 5]).unwrap().is_row_major_packed());
    assert!(TensorDesc::with_strides(dt, &[1, 3], &[99, 1]).unwrap().is_row_major_packed());
    let b = TensorDesc::with_strides(dt, &[2, 3, 1], &[0, 1, 0]).unwrap();
    assert_eq!(b.broadcast_dims(), vec![0]);
    assert!(!b.is_packed());
    let p = TensorDesc::with_strides(dt, &[3, 5], &[7, 1]).unwrap().promote(5).unwrap();
    assert_eq!((p.sizes(), p.strides()), (&[1, 1, 1, 3, 5][..], &[21, 21, 21, 7, 1][..]));
    assert_eq!(TensorDesc::new(dt, &[3]).unwrap().promote(3).unwrap().strides(), &[3, 3, 1]);
    assert_eq!(TensorDesc::new(dt, &[1]).unwrap().row_pitch_bytes(), None);
    let e = TensorDesc::new(dt, &[2, 2, 2]).unwrap().promote(2).unwrap_err();
    assert_eq!(e, Error::RankPromotion { rank: 3, target: 2 });
    assert!(e.to_string().contains("3 dimensions to 2"));
    assert_eq!(TensorDesc::new(dt, &[2]).unwrap().promote(9).unwrap_err(), Error::InvalidRank { rank: 9 });
    let e = TensorDesc::permuted(dt, &[2, 3, 4], &[0, 2, 2]).unwrap_err();
    assert_eq!(e, Error::InvalidPermutation { order: vec![0, 2, 2], rank: 3 });
    assert!(e.to_string().contains("[0, 2, 2]"));
    assert!(TensorDesc::permuted(dt, &[2, 3], &[0, 1, 2]).is_err());
}

#[test]
fn identity_validation() {
    let a = TensorDesc::new(DataType::Uint8, &[2, 3]).unwrap();
    let e = Identity::new(&a, &TensorDesc::new(DataType::Uint8, &[2, 4]).unwrap()).unwrap_err();
    assert_eq!(e, Error::OutputSizeMismatch { dim: 1, output_size: 4, expected: 3 });
    assert!(e.to_string().contains("dimension 1"));
    let e = Identity::new(&a, &TensorDesc::new(DataType::Int8, &[2, 3]).unwrap()).unwrap_err();
    assert!(matches!(e, Error::DataTypeMismatch { .. }));
    let e = Identity::new(&a, &TensorDesc::new(DataType::Uint8, &[6]).unwrap()).unwrap_err();
    assert!(matches!(e, Error::RankMismatch { .. }));
    let bcast = TensorDesc::with_strides(DataType::Uint8, &[2, 3], &[0, 1]).unwrap();
    assert!(matches!(Identity::new(&a, &bcast).unwrap_err(), Error::OverlappingOutput { .. }));
    let op = Identity::new(&a, &a).unwrap();
    let mut out = [SENTINEL; 6];
    assert!(matches!(op.execute(&[0; 5], &mut out).unwrap_err(), Error::BufferTooSmall { .. }));
    assert_eq!(out, [SENTINEL; 6]);
}

fn check_slice(input: &TensorDesc, output: &TensorDesc, offsets: &[u32], strides: &[u32]) {
    let op = Slice::new(input, output, offsets, output.sizes(), strides).unwrap();
    let src = Buf::random(input.addressed_bytes() as usize, 1, &mut common::rng(9));
    let mut want = vec![SENTINEL; output.addressed_bytes() as usize];
    common::reference_slice(input, output, offsets, strides, src.bytes(), &mut want);
    for (threads, opts) in common::configs() {
        let mut dst = Buf::filled(want.len(), 0, SENTINEL);
        common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
        assert!(dst.bytes() == &want[..], "{opts:?}");
    }
}

#[test]
fn slice_matches_reference() {
    for dt in WIDTH_TYPES {
        let input = TensorDesc::new(dt, &[9, 11, 70]).unwrap();
        check_slice(&input, &TensorDesc::new(dt, &[3, 5, 23]).unwrap(), &[1, 0, 2], &[3, 2, 3]);
        check_slice(&input, &TensorDesc::new(dt, &[9, 11, 70]).unwrap(), &[0, 0, 0], &[1, 1, 1]);
        let padded_out = TensorDesc::with_strides(dt, &[4, 2, 34], &[200, 40, 1]).unwrap();
        check_slice(&input, &padded_out, &[1, 3, 1], &[2, 4, 2]);
        let nhwc_in = TensorDesc::nhwc(dt, [2, 3, 9, 11]).unwrap();
        check_slice(&nhwc_in, &TensorDesc::new(dt, &[2, 3, 4, 5]).unwrap(), &[0, 0, 1, 1], &[1, 1, 2, 2]);
    }
}

#[test]
fn slice_validation() {
    let input = TensorDesc::new(DataType::Float32, &[4, 4]).unwrap();
    let out = TensorDesc::new(DataType::Float32, &[2, 2]).unwrap();
    let e = Slice::new(&input, &out, &[0, 0], &[2, 2], &[1, 0]).unwrap_err();
    assert_eq!(e, Error::ZeroSliceStride { dim: 1 });
    assert!(e.to_string().contains("dimension 1"));
    let e = Slice::new(&input, &out, &[0, 0], &[2, 3], &[1, 1]).unwrap_err();
    assert_eq!(e, Error::OutputSizeMismatch { dim: 1, output_size: 2, expected: 3 });
    let e = Slice::new(&input, &out, &[1, 0], &[2, 2], &[3, 1]).unwrap_err();
    assert_eq!(e, Error::SliceOutOfBounds { dim: 0, offset: 1, size: 2, stride: 3, last: 4, input_size: 4 });
    assert!(e.to_string().contains("index 4") && e.to_string().contains("input size 4"));
    // no u32 wrap-around in offset + (size - 1) * stride
    let e = Slice::new(&input, &out, &[0, u32::MAX], &[2, 2], &[1, u32::MAX]).unwrap_err();
    assert!(matches!(e, Error::SliceOutOfBounds { dim: 1, .. }), "{e:?}");
    let e = Slice::new(&input, &out, &[0], &[2, 2], &[1, 1]).unwrap_err();
    assert_eq!(e, Error::ArgumentLength { argument: "offsets", len: 1, rank: 2 });
    assert!(Slice::new(&input, &out, &[2, 1], &[2, 2], &[1, 2]).is_ok());
}
