//! `Normalize` with a resize at its head (`ImageNormalize::resize`, `resize_shorter`, `letterbox`): the fused pass
//! against its reference (the resize kernel's portable code into an f32 image, then one loop over output coordinates
//! through the window, the letterbox and the scalar normalization) bit for bit in every configuration, over input
//! types and layouts, output types and layouts, filters with and without antialiasing, crops, flips, subsampling,
//! channel choices and orders, batches and single images; against the composition of its parts (`Resize`, then the
//! window); and every validation rule of the builder's resize.

mod common;

use common::{Buf, configs, with_threads};
use rand::Rng;
use strider::{
    DataType, Error, ExecOptions, ImageLayout, ImageNormalize, Normalize, Resize, ResizeFilter, TensorDesc,
    letterbox_geometry,
};

const FILTERS: [ResizeFilter; 4] =
    [ResizeFilter::Nearest, ResizeFilter::Bilinear, ResizeFilter::Bicubic, ResizeFilter::Area];

/// Random input bytes of `t` (floats in −2..3, other types any bytes).
fn random_input(t: &TensorDesc, r: &mut impl Rng, misalign: usize) -> Buf {
    let mut b = Buf::filled(t.required_buffer_bytes() as usize, misalign, 0);
    match t.data_type() {
        DataType::Uint8 => b.bytes_mut().iter_mut().for_each(|v| *v = r.random()),
        DataType::Float16 => b
            .bytes_mut()
            .chunks_mut(2)
            .for_each(|v| v.copy_from_slice(&strider::half::f16::from_f32(r.random_range(-2.0..3.0)).to_le_bytes())),
        DataType::Float32 => {
            b.bytes_mut().chunks_mut(4).for_each(|v| v.copy_from_slice(&r.random_range(-2.0f32..3.0).to_le_bytes()))
        }
        _ => b.bytes_mut().iter_mut().for_each(|v| *v = r.random()),
    }
    b
}

/// Every configuration gives the reference's bits.
fn check(op: &Normalize, src: &Buf, what: &str) {
    let n = op.output().required_buffer_bytes() as usize;
    let mut want = vec![0u8; n];
    op.execute_reference(src.bytes(), &mut want).unwrap();
    for (threads, opts) in configs() {
        let mut got = Buf::filled(n, threads % 3, 0x5A);
        with_threads(threads, || op.execute_with(src.bytes(), got.bytes_mut(), &opts)).unwrap();
        if let Some(i) = got.bytes().iter().zip(&want).position(|(a, b)| a != b) {
            panic!("{what}: {opts:?} on {threads} threads: byte {i} of {n} differs\n{}", op.explain());
        }
    }
}

/// One builder per case: the steps a preprocessing pipeline combines.
fn builder(input: &TensorDesc, k: usize, filter: ResizeFilter) -> ImageNormalize {
    let (h, w) = (input.sizes()[input.rank() - 2], input.sizes()[input.rank() - 1]);
    let b = Normalize::image(input).antialias(k % 3 != 2);
    let b = match k % 5 {
        0 => b.resize(7 + (k % 4) as u32, 5 + (k % 7) as u32, filter),
        1 => b.resize_shorter(6 + (k % 5) as u32, filter).center_crop(5, 6),
        2 => b.letterbox(12, 9 + (k % 6) as u32, filter, 114.0),
        3 => b.resize(2 * h + 1, w / 2 + 1, filter).crop(1, 0, 2 * h - 1, w / 2).subsample(2, 1 + (k % 2) as u32),
        _ => b.resize(h.div_ceil(3), 3 * w, filter).center_crop(1, 2 * w),
    };
    let b = if k % 2 == 1 { b.flip_horizontal() } else { b };
    let b = if k % 4 == 3 { b.flip_vertical() } else { b };
    let b = if k.is_multiple_of(3) { b.reverse_channels() } else { b };
    let b = match k % 4 {
        0 => b.imagenet(),
        1 => b.scale_bias(&[0.5], &[-1.0]),
        2 => b.mean_std(&[0.5, 0.25, 0.125], &[0.2, 0.3, 0.4]),
        _ => b,
    };
    // (The output type turns against the normalization, so that each meets each: u8 out of an identity map, whose
    // conversion alone saturates as its clamp would, included.)
    let out = [DataType::Float32, DataType::Float16, DataType::Uint8, DataType::Int8][(k + k / 4) % 4];
    b.output_type(out).layout(if k % 3 == 1 { ImageLayout::Nhwc } else { ImageLayout::Nchw })
}

#[test]
fn fused_pass_matches_its_reference_in_every_configuration() {
    common::note_isas();
    let mut r = common::rng(38);
    let mut k = 0;
    for dt in [DataType::Uint8, DataType::Float16, DataType::Float32] {
        for filter in FILTERS {
            for &(h, w) in &[(9u32, 13u32), (20, 7), (3, 40)] {
                let (n, c) = (1 + (k % 2) as u32, 3);
                let input = match k % 3 {
                    0 => TensorDesc::nhwc(dt, [n, c, h, w]).unwrap(),
                    1 => TensorDesc::nchw(dt, [n, c, h, w]).unwrap(),
                    // One image, channels last, padded rows.
                    _ => TensorDesc::with_strides(dt, &[c, h, w], &[1, w * c + 5, c]).unwrap(),
                };
                let src = random_input(&input, &mut r, k % 4);
                let op = builder(&input, k, filter).build().unwrap();
                check(&op, &src, &format!("case {k}: {dt:?} {filter:?} {h}x{w}"));
                k += 1;
            }
        }
    }
}

/// The alpha of BGRA dropped, channels reversed, into a larger batch of many units (several threads' worth).
#[test]
fn channel_windows_and_large_images_match() {
    let mut r = common::rng(7);
    let input = TensorDesc::nhwc(DataType::Uint8, [2, 4, 150, 170]).unwrap();
    let src = random_input(&input, &mut r, 1);
    for (k, filter) in FILTERS.into_iter().enumerate() {
        let op = Normalize::image(&input)
            .channels(0, 3)
            .reverse_channels()
            .resize_shorter(64 + k as u32, filter)
            .center_crop(60, 61)
            .imagenet()
            .build()
            .unwrap();
        check(&op, &src, &format!("BGRA {filter:?}"));
    }
    let op = Normalize::image(&input).letterbox(96, 64, ResizeFilter::Bilinear, 114.0).build().unwrap();
    check(&op, &src, "letterbox");
}

/// With unit parameters into f32, the fused pass is `Resize` then the window: bit for bit for float images, and for
/// u8 images the unrounded values `Resize` rounds half up.
#[test]
fn equals_resize_then_window() {
    let mut r = common::rng(11);
    for dt in [DataType::Uint8, DataType::Float32] {
        for filter in FILTERS {
            for antialias in [true, false] {
                let input = TensorDesc::nhwc(dt, [1, 3, 31, 23]).unwrap();
                let src = random_input(&input, &mut r, 0);
                let (rh, rw) = (17u32, 40u32);
                let op = Normalize::image(&input)
                    .resize(rh, rw, filter)
                    .antialias(antialias)
                    .crop(3, 5, 11, 30)
                    .subsample(2, 3)
                    .flip_horizontal()
                    .build()
                    .unwrap();
                let mut bytes = vec![0u8; op.output().required_buffer_bytes() as usize];
                op.execute(src.bytes(), &mut bytes).unwrap();
                let fused: Vec<f32> = bytes.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
                let resized = TensorDesc::nchw(dt, [1, 3, rh, rw]).unwrap();
                let plain = Resize::new(&input, &resized, filter, antialias).unwrap();
                let mut whole = vec![0u8; resized.required_buffer_bytes() as usize];
                plain.execute(src.bytes(), &mut whole).unwrap();
                let s = op.output().sizes().to_vec();
                assert_eq!(s, [1, 3, 6, 10]);
                for c in 0..3usize {
                    for y in 0..6usize {
                        for x in 0..10usize {
                            let (ry, rx) = (3 + 2 * y, 5 + 29 - 3 * x); // window walked backwards along W
                            let got = fused[(c * 6 + y) * 10 + x];
                            let e = (c * rh as usize + ry) * rw as usize + rx;
                            let what = format!("{dt:?} {filter:?} {antialias} [{c}, {y}, {x}]");
                            match dt {
                                DataType::Uint8 => assert_eq!((got + 0.5).floor(), f32::from(whole[e]), "{what}"),
                                _ => assert_eq!(
                                    got,
                                    f32::from_le_bytes(whole[4 * e..4 * e + 4].try_into().unwrap()),
                                    "{what}"
                                ),
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The letterbox canvas: the pad value normalized, the image where `letterbox_geometry` puts it.
#[test]
fn letterbox_pads_around_the_image() {
    let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 30, 50]).unwrap();
    let src = vec![10u8; 30 * 50 * 3];
    let op = Normalize::image(&input)
        .letterbox(64, 64, ResizeFilter::Bilinear, 114.0)
        .scale_bias(&[1.0 / 255.0], &[0.0])
        .build()
        .unwrap();
    let g = letterbox_geometry([30, 50], [64, 64]).unwrap();
    assert_eq!((g.top, g.left, g.height, g.width), (13, 0, 38, 64));
    let mut y = vec![0f32; 3 * 64 * 64];
    op.execute_typed(&src, &mut y).unwrap();
    for (i, &v) in y.iter().enumerate() {
        let row = (i / 64) % 64;
        let want = if (13..13 + 38).contains(&row) { 10.0 } else { 114.0 } * (1.0f32 / 255.0);
        assert_eq!(v, want, "element {i} (row {row})");
    }
}

#[test]
fn builder_resize_rules() {
    let input = TensorDesc::nhwc(DataType::Uint8, [1, 3, 30, 50]).unwrap();
    let b = || Normalize::image(&input);
    let f = ResizeFilter::Bilinear;
    assert!(matches!(
        b().letterbox(64, 64, f, 114.0).center_crop(10, 10).build(),
        Err(Error::Incompatible { first: "a letterbox", second: "a crop" })
    ));
    assert!(matches!(
        b().letterbox(64, 64, f, 114.0).subsample(2, 1).build(),
        Err(Error::Incompatible { first: "a letterbox", second: "a subsampling" })
    ));
    assert!(matches!(
        b().letterbox(64, 64, f, f32::NAN).build(),
        Err(Error::NonFiniteParameter { argument: "pad", .. })
    ));
    assert!(matches!(b().resize(0, 5, f).build(), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(b().resize(5, (1 << 24) + 1, f).build(), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(b().resize_shorter(0, f).build(), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(b().letterbox(0, 5, f, 0.0).build(), Err(Error::ArgumentOutOfRange { .. })));
    // A crop larger than the resized image.
    assert!(matches!(b().resize(20, 20, f).center_crop(21, 20).build(), Err(Error::ArgumentOutOfRange { .. })));
    assert!(matches!(b().resize(20, 20, f).crop(5, 0, 16, 20).build(), Err(Error::WindowOutOfBounds { .. })));
    // A crop of the input's size that no longer fits the resized image.
    assert!(b().crop(0, 0, 30, 50).build().is_ok());
    assert!(b().resize(20, 20, f).crop(0, 0, 30, 50).build().is_err());
    let wide = TensorDesc::nhwc(DataType::Int16, [1, 3, 30, 50]).unwrap();
    assert!(matches!(
        Normalize::image(&wide).resize(5, 5, f).build(),
        Err(Error::UnsupportedDataType { data_type: DataType::Int16, .. })
    ));
    assert!(matches!(b().resize(5, 5, f).mean_std(&[0.5; 2], &[0.2]).build(), Err(Error::ParameterLength { .. })));
    // Buffers too short: an error, nothing written.
    let op = b().resize(5, 5, f).build().unwrap();
    let mut y = vec![7u8; op.output().required_buffer_bytes() as usize];
    assert!(matches!(op.execute(&[0u8; 100], &mut y), Err(Error::BufferTooSmall { .. })));
    assert!(y.iter().all(|&v| v == 7));
}

/// Images of different sizes into the slots of one batch: the bits of one call per image whatever the threads; a
/// short buffer anywhere writes nothing anywhere.
#[test]
fn batches_of_mixed_sizes() {
    let mut r = common::rng(12);
    let sizes = [(48u32, 64u32), (30, 31), (48, 64), (20, 90), (90, 20), (33, 33), (64, 48)];
    let inputs: Vec<TensorDesc> =
        sizes.iter().map(|&(h, w)| TensorDesc::nhwc(DataType::Uint8, [1, 3, h, w]).unwrap()).collect();
    let srcs: Vec<Buf> = inputs.iter().enumerate().map(|(i, t)| random_input(t, &mut r, i % 3)).collect();
    let ops: Vec<Normalize> = inputs
        .iter()
        .map(|t| Normalize::image(t).resize_shorter(24, ResizeFilter::Bicubic).center_crop(24, 24).imagenet().build())
        .collect::<Result<_, _>>()
        .unwrap();
    let slot = ops[0].output().required_buffer_bytes() as usize;
    let mut want = vec![0u8; slot * ops.len()];
    for ((op, src), out) in ops.iter().zip(&srcs).zip(want.chunks_mut(slot)) {
        op.execute(src.bytes(), out).unwrap();
    }
    for opts in [ExecOptions::sequential(), ExecOptions::default().with_threads(2), ExecOptions::default()] {
        let mut got = vec![0u8; slot * ops.len()];
        let mut jobs: Vec<(&Normalize, &[u8], &mut [u8])> =
            ops.iter().zip(&srcs).zip(got.chunks_mut(slot)).map(|((op, s), o)| (op, s.bytes(), o)).collect();
        Normalize::execute_batch(&mut jobs, &opts).unwrap();
        assert!(got == want, "{opts:?}");
    }
    let mut got = vec![9u8; slot * ops.len()];
    let mut jobs: Vec<(&Normalize, &[u8], &mut [u8])> =
        ops.iter().zip(&srcs).zip(got.chunks_mut(slot)).map(|((op, s), o)| (op, s.bytes(), o)).collect();
    let short = jobs.len() - 1;
    jobs[short].1 = &jobs[short].1[..10];
    assert!(matches!(Normalize::execute_batch(&mut jobs, &ExecOptions::default()), Err(Error::BufferTooSmall { .. })));
    assert!(got.iter().all(|&b| b == 9));
}

/// Random pipelines over random small images (any layout, broadcast and mirrored axes among them) build or fail
/// cleanly, and those that build give their reference's bits; giant descriptors (billions of channels, sides of
/// 2^24, broadcast inputs) are refused or run without exhausting memory.
#[test]
fn random_pipelines_build_or_fail_cleanly() {
    let mut r = common::rng(99);
    let f = [ResizeFilter::Nearest, ResizeFilter::Bilinear, ResizeFilter::Bicubic, ResizeFilter::Area];
    let mut built = 0;
    for k in 0..600 {
        let dt = [DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int16][r.random_range(0..4)];
        let (n, c, h, w) =
            (r.random_range(1..3u32), r.random_range(1..5u32), r.random_range(1..9u32), r.random_range(1..9u32));
        let sizes = [n, c, h, w];
        let strides: Vec<u32> = match r.random_range(0..3) {
            0 => vec![h * w * c, 1, w * c, c],
            1 => vec![c * h * w, h * w, w, 1],
            _ => (0..4).map(|_| r.random_range(0..40)).collect(),
        };
        let Ok(input) = TensorDesc::with_strides(dt, &sizes, &strides) else { continue };
        let input = if r.random_bool(0.2) { input.with_reversed_dims(&[3]).unwrap() } else { input };
        let side = |r: &mut rand::rngs::StdRng| r.random_range(1..10u32);
        let b = Normalize::image(&input).antialias(r.random_bool(0.5));
        let filter = f[r.random_range(0..4)];
        let b = match r.random_range(0..4) {
            0 => b,
            1 => b.resize(side(&mut r), side(&mut r), filter),
            2 => b.resize_shorter(side(&mut r), filter),
            _ => b.letterbox(side(&mut r), side(&mut r), filter, r.random_range(-5.0..300.0)),
        };
        let b = if r.random_bool(0.4) { b.center_crop(side(&mut r), side(&mut r)) } else { b };
        let b = if r.random_bool(0.3) { b.subsample(r.random_range(1..3), r.random_range(1..3)) } else { b };
        let b = if r.random_bool(0.3) { b.flip_horizontal().flip_vertical() } else { b };
        let b = if r.random_bool(0.3) { b.reverse_channels() } else { b };
        let b = if r.random_bool(0.3) { b.channels(r.random_range(0..2), r.random_range(1..4)) } else { b };
        let out = [DataType::Float32, DataType::Uint8, DataType::Int32, DataType::Float16][r.random_range(0..4)];
        let Ok(op) = b.scale_bias(&[r.random_range(-2.0..2.0)], &[r.random_range(-9.0..9.0)]).output_type(out).build()
        else {
            continue;
        };
        built += 1;
        let src = random_input(&input, &mut r, k % 3);
        check(&op, &src, &format!("random case {k}"));
    }
    assert!(built > 150, "only {built} of 600 random pipelines built");
    // Giants: planned without allocating per channel or per pixel beyond the output's rows.
    let huge = TensorDesc::with_strides(DataType::Uint8, &[1, u32::MAX, 4, 4], &[0, 0, 4, 1]).unwrap();
    for b in [
        Normalize::image(&huge).resize(2, 2, ResizeFilter::Bilinear),
        Normalize::image(&huge).letterbox(3, 5, ResizeFilter::Bilinear, 1.0),
        Normalize::image(&huge).resize(1 << 24, 1, ResizeFilter::Area),
        Normalize::image(&huge).resize((1 << 24) + 1, 1, ResizeFilter::Area),
    ] {
        let _ = b.build();
    }
    let wide = TensorDesc::with_strides(DataType::Uint8, &[1, 1 << 20, 2, 2], &[0, 1, 0, 0]).unwrap();
    let _ = Normalize::image(&wide).resize(2, 3, ResizeFilter::Bicubic).build();
}

/// Which pass comes first: the rows for u8 images whose height shrinks under non-negative weights, the columns
/// when it grows, for overshooting filters (bicubic: Pillow's clamp after the horizontal pass) and float images.
#[test]
fn the_order_of_the_passes() {
    let order_of = |dt: DataType, [h, w]: [u32; 2], filter: ResizeFilter, to: [u32; 2], antialias: bool| {
        let input = TensorDesc::nhwc(dt, [1, 3, h, w]).unwrap();
        let op = Normalize::image(&input).resize(to[0], to[1], filter).antialias(antialias).build().unwrap();
        let text = op.explain();
        match (text.contains("rows first"), text.contains("columns first")) {
            (true, false) => "rows",
            (false, true) => "columns",
            _ => panic!("{text}"),
        }
    };
    let order = |dt, size, filter, to| order_of(dt, size, filter, to, true);
    let (u8_, f32_) = (DataType::Uint8, DataType::Float32);
    assert_eq!(order(u8_, [1080, 1920], ResizeFilter::Bilinear, [224, 224]), "rows");
    assert_eq!(order(u8_, [480, 640], ResizeFilter::Area, [256, 341]), "rows");
    assert_eq!(order(u8_, [224, 224], ResizeFilter::Bilinear, [640, 640]), "columns");
    assert_eq!(order(u8_, [1080, 1920], ResizeFilter::Bicubic, [224, 224]), "columns");
    assert_eq!(order(f32_, [1080, 1920], ResizeFilter::Bilinear, [224, 224]), "columns");
    // A width shrinking 20× under a height halved: fewer instructions columns first.
    assert_eq!(order(u8_, [100, 2000], ResizeFilter::Bilinear, [50, 100]), "columns");
    // Sampled (2 taps a side): rows first for the large shrinks too, but that one.
    let sampled = |size, to| order_of(u8_, size, ResizeFilter::Bilinear, to, false);
    assert_eq!(sampled([1080, 1920], [224, 224]), "rows");
    assert_eq!(sampled([3279, 4928], [567, 852]), "rows");
    assert_eq!(sampled([720, 1280], [640, 640]), "rows");
    assert_eq!(sampled([100, 2000], [50, 100]), "columns");
    // Two taps across, pixels of 3 or 4 bytes in runs, sampled: each output pixel's pair read from the input rows,
    // both passes at once rows first, each input row across columns first (not antialiased, planes, other channel
    // counts or bicubic's four taps).
    let pairs = |c: u32, nhwc: bool, filter: ResizeFilter, antialias: bool, to: u32| {
        let (s, d) = ([1, c, 720, 720], DataType::Uint8);
        let input = if nhwc { TensorDesc::nhwc(d, s) } else { TensorDesc::nchw(d, s) }.unwrap();
        let op = Normalize::image(&input).resize(to, to, filter).antialias(antialias).build().unwrap();
        op.explain().contains("pixel pairs")
    };
    for to in [224, 1280] {
        assert!(pairs(3, true, ResizeFilter::Bilinear, false, to));
        assert!(pairs(4, true, ResizeFilter::Bilinear, false, to));
        assert!(!pairs(3, true, ResizeFilter::Bilinear, true, to));
        assert!(!pairs(3, false, ResizeFilter::Bilinear, false, to));
        assert!(!pairs(1, true, ResizeFilter::Bilinear, false, to));
        assert!(!pairs(3, true, ResizeFilter::Bicubic, false, to));
    }
}
