//! Every row pattern at every length from 1 to 4·64+1 (four AVX-512 vectors of bytes, plus one) and around 1024,
//! for each element width, with misaligned buffers, on every instruction set and thread configuration. This is
//! where SIMD tails and heads are exercised.

mod common;

use common::{Buf, SENTINEL, WIDTH_TYPES};
use strider::{DataType, RowKind, Slice1, TensorDesc};

fn lengths() -> impl Iterator<Item = u32> {
    (1..=257).chain([511, 512, 513, 1023, 1024, 1025])
}

/// Runs one slice under every configuration against the reference, with misalignments derived from `salt`.
fn run(input: &TensorDesc, output: &TensorDesc, offsets: &[u32], sizes: &[u32], strides: &[i32], salt: u32) -> RowKind {
    let op = Slice1::new(input, output, offsets, sizes, strides).unwrap();
    let mut rng = common::rng(u64::from(salt));
    let (in_mis, out_mis) = ((salt % 5) as usize, (salt * 3 % 7) as usize);
    let src = Buf::random(input.addressed_bytes() as usize, in_mis, &mut rng);
    let out_len = output.addressed_bytes() as usize;
    let mut want = vec![SENTINEL; out_len];
    common::reference_slice1(input, output, offsets, sizes, strides, src.bytes(), &mut want);
    for (threads, opts) in common::configs() {
        let mut dst = Buf::filled(out_len, out_mis, SENTINEL);
        common::with_threads(threads, || op.execute_with(src.bytes(), dst.bytes_mut(), &opts)).unwrap();
        assert!(dst.bytes() == &want[..], "{:?} {opts:?} threads {threads}: plan {:?}", input, op.plan());
    }
    op.row_kind()
}

/// Two rows of `len` output elements read with window stride `step` from rows long enough to hold them.
fn rows(dt: DataType, len: u32, step: i32) -> RowKind {
    let n = (len - 1) * step.unsigned_abs() + 1;
    let input = TensorDesc::new(dt, &[2, n]).unwrap();
    let output = TensorDesc::new(dt, &[2, len]).unwrap();
    run(&input, &output, &[0, 0], &[2, n], &[1, step], len * 31 + step.unsigned_abs())
}

#[test]
fn slice1_rows_contiguous_reverse_and_gathers() {
    common::note_isas();
    for dt in WIDTH_TYPES {
        for len in lengths() {
            for step in [1, -1, 2, -2, 3, -3, 4, -4] {
                let kind = rows(dt, len, step);
                if len as usize * dt.size_in_bytes() >= 64 {
                    let expect = match step {
                        1 => RowKind::Copy,
                        -1 => RowKind::Reverse,
                        s => RowKind::Gather { stride: s as isize },
                    };
                    // Two rows that are contiguous in both operands coalesce into one longer row.
                    assert_eq!(kind, expect, "{dt} len {len} step {step}");
                }
            }
        }
    }
}

#[test]
fn slice1_rows_broadcast_input() {
    for dt in WIDTH_TYPES {
        for len in lengths() {
            // every row of the input is the same element: input strides {1, 0}
            let input = TensorDesc::with_strides(dt, &[3, len], &[1, 0]).unwrap();
            let output = TensorDesc::new(dt, &[3, len]).unwrap();
            let kind = run(&input, &output, &[0, 0], &[3, len], &[1, 1], len);
            if len as usize * dt.size_in_bytes() >= 64 {
                assert_eq!(kind, RowKind::Broadcast);
            }
        }
    }
}

#[test]
fn slice1_rows_strided_output() {
    for dt in WIDTH_TYPES {
        for len in lengths().step_by(3) {
            // output rows interleave with padding: inner output stride 2
            let input = TensorDesc::new(dt, &[2, len]).unwrap();
            let output = TensorDesc::with_strides(dt, &[2, len], &[2 * len + 1, 2]).unwrap();
            let kind = run(&input, &output, &[0, 0], &[2, len], &[1, -1], len + 5);
            if len as usize * dt.size_in_bytes() >= 64 {
                assert_eq!(kind, RowKind::Strided);
            }
        }
    }
}

#[test]
fn slice1_rows_of_interleaved_pixels() {
    // HWC images with 3 or 4 channels of 1-, 2- and 4-byte elements: horizontal flip and subsampling
    // run over whole pixels.
    for dt in [DataType::Uint8, DataType::Float16, DataType::Float32] {
        for c in [3u32, 4] {
            for len in lengths().filter(|l| l % 2 == 1) {
                let n = 2 * len;
                let input = TensorDesc::new(dt, &[2, n, c]).unwrap();
                let flip = TensorDesc::new(dt, &[2, n, c]).unwrap();
                let kind = run(&input, &flip, &[0, 0, 0], &[2, n, c], &[1, -1, 1], len);
                if (n * c) as usize * dt.size_in_bytes() >= 64 {
                    assert_eq!(kind, RowKind::Reverse);
                }
                let half = TensorDesc::new(dt, &[2, len, c]).unwrap();
                run(&input, &half, &[0, 0, 0], &[2, n, c], &[1, 2, 1], len + 1);
                run(&input, &half, &[0, 0, 0], &[2, n, c], &[1, -2, 1], len + 2);
                // every third / fourth pixel, forwards and backwards
                for step in [3i32, -3, 4, -4] {
                    let m = 1 + (n - 1) / step.unsigned_abs();
                    let sub = TensorDesc::new(dt, &[2, m, c]).unwrap();
                    run(&input, &sub, &[0, 0, 0], &[2, n, c], &[1, step, 1], len + 3);
                }
            }
        }
    }
}

/// Channel swaps: pixels of 2 to 16 bytes whose channels are reversed (BGR ↔ RGB, RGBA → ABGR), read forwards,
/// subsampled and backwards, at every row length around the shuffle lanes (16-byte and 64-byte), misaligned, on
/// every level; the strategy is pinned to the swap kernel wherever its tables exist.
#[test]
fn slice1_channel_swaps() {
    common::note_isas();
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        for channels in (2..=16 / w).filter(|c| matches!(c * w, 2 | 3 | 4 | 6 | 8 | 12 | 16)) {
            for step in [1i32, 2, 3, -2] {
                for pixels in (1..=90).chain([127, 128, 129, 300]) {
                    let n = (pixels - 1) * step.unsigned_abs() + 1;
                    let input = TensorDesc::new(dt, &[2, n, channels]).unwrap();
                    let output = TensorDesc::new(dt, &[2, pixels, channels]).unwrap();
                    let strides = [1, step, -1];
                    let kind = run(&input, &output, &[0, 0, 0], &[2, n, channels], &strides, pixels * 7 + channels);
                    if pixels >= 2 {
                        assert_eq!(kind, RowKind::Swap { channels: channels as usize }, "{dt} c{channels} step {step}");
                    }
                }
            }
        }
    }
}

/// Channel swaps out of slots one or two channels wider than the pixel (BGRX → RGB), forwards and mirrored, at
/// every row length around the shuffle lanes: the swap kernel with a byte step wherever its tables exist.
#[test]
fn slice1_channel_swaps_out_of_wider_slots() {
    common::note_isas();
    for dt in WIDTH_TYPES {
        let w = dt.size_in_bytes() as u32;
        for channels in (2..=16 / w).filter(|c| matches!(c * w, 2 | 3 | 4 | 6 | 8 | 12 | 16)) {
            for (extra, step) in [(1u32, 1i32), (2, 1), (1, -1)] {
                for pixels in (1..=70).chain([127, 129, 300]) {
                    let input = TensorDesc::new(dt, &[2, pixels, channels + extra]).unwrap();
                    let output = TensorDesc::new(dt, &[2, pixels, channels]).unwrap();
                    let salt = pixels * 7 + channels + extra;
                    let kind = run(&input, &output, &[0, 0, 0], &[2, pixels, channels], &[1, step, -1], salt);
                    if pixels >= 2 && channels * w <= 4 {
                        assert_eq!(kind, RowKind::Swap { channels: channels as usize }, "{dt} c{channels} +{extra}");
                    }
                }
            }
        }
    }
}
