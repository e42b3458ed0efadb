//! The `strider` command end to end: each subcommand, a `.npy` round trip for every dtype in both memory orders,
//! and every class of bad input (one line on stderr, exit status 2, no output file left behind).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use npyz::WriterBuilder;
use strider::{DataType, Slice1, TensorDesc};

fn strider() -> Command {
    Command::cargo_bin("strider").unwrap()
}

/// Writes a `.npy` of `shape` holding `bytes` (elements of `dt`, in file order) with the given memory order.
fn write_npy(path: &Path, dt: DataType, shape: &[u64], bytes: &[u8], fortran: bool) {
    let order = if fortran { npyz::Order::Fortran } else { npyz::Order::C };
    let file = std::fs::File::create(path).unwrap();
    macro_rules! typed {
        ($t:ty) => {{
            let mut w = npyz::WriteOptions::<$t>::new()
                .default_dtype()
                .shape(shape)
                .order(order)
                .writer(std::io::BufWriter::new(file))
                .begin_nd()
                .unwrap();
            w.extend(bytes.chunks_exact(size_of::<$t>()).map(bytemuck::pod_read_unaligned::<$t>)).unwrap();
            w.finish().unwrap();
        }};
    }
    match dt {
        DataType::Float16 => typed!(half::f16),
        DataType::Float32 => typed!(f32),
        DataType::Float64 => typed!(f64),
        DataType::Int8 => typed!(i8),
        DataType::Int16 => typed!(i16),
        DataType::Int32 => typed!(i32),
        DataType::Int64 => typed!(i64),
        DataType::Uint8 => typed!(u8),
        DataType::Uint16 => typed!(u16),
        DataType::Uint32 => typed!(u32),
        DataType::Uint64 => typed!(u64),
        _ => unreachable!(),
    }
}

/// Reads a `.npy` back as (dtype string, shape, fortran, raw data bytes).
fn read_npy(path: &Path) -> (String, Vec<u64>, bool, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = npy.shape().to_vec();
    let fortran = npy.order() == npyz::Order::Fortran;
    let descr = npy.dtype().descr();
    let header_len = bytes.len() - npy.len() as usize * npy.dtype().num_bytes().unwrap();
    (descr, shape, fortran, bytes[header_len..].to_vec())
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

#[test]
fn info_reports_the_machine() {
    let out = strider().arg("info").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    for needle in ["strider 0.1.0", "simd level:", "levels:", "threads:", "memcpy  64 MiB:"] {
        assert!(text.contains(needle), "{needle} missing in:\n{text}");
    }
}

#[test]
fn bench_prints_a_table_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = strider()
        .args(["bench", "--filter", "doc_example", "--threads", "1,2", "--seconds", "0.01", "--json"])
        .arg(&json)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("f32_dml_doc_example_1x1x4x4") && text.contains("t/memcpy"), "{text}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let case = &report["cases"][0];
    assert_eq!(case["output_bytes"], 16);
    assert_eq!(case["runs"].as_array().unwrap().len(), 2);
    assert!(case["runs"][0]["time_over_memcpy"].as_f64().unwrap() > 0.0);
}

/// `--plot` draws the sweeps and one bar per case; rows go out as they complete with stdout not a terminal; too
/// many threads are warned about.
#[test]
fn bench_plots_and_streams_rows() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("out.svg");
    let more = std::thread::available_parallelism().map_or(1, |n| n.get()) + 1;
    let threads = format!("1,{more}");
    let out = strider()
        .args(["bench", "--filter", "sweep_f32_contiguous_16KiB", "--threads", &threads, "--seconds", "0.01", "--plot"])
        .arg(&svg)
        .assert()
        .success();
    let o = out.get_output();
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(stderr.contains(&format!("--threads {more} exceeds")), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("sweep_f32_contiguous_16KiB")), "{stdout}");
    assert!(lines.iter().all(|l| l.chars().count() <= 120), "{stdout}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Cache sweeps") && svg.contains("memcpy 1t"), "{svg}");
}

/// A plot of cases without sweeps is only the bar chart (no empty sweep panel), its legend above the bars, its
/// text at least 15 pixels.
#[test]
fn bench_plot_draws_only_panels_with_data() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("b.svg");
    strider()
        .args(["bench", "--filter", "hflip", "--threads", "1,2", "--seconds", "0.01", "--plot"])
        .arg(&svg)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(!svg.contains("sweep") && !svg.contains("Cache sweeps"), "{svg}");
    let number = |tag: &str, attr: &str| -> f64 {
        let at = tag.find(&format!(" {attr}=\"")).unwrap_or_else(|| panic!("{attr} in {tag}")) + attr.len() + 3;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    let tags = |name: &str| -> Vec<String> {
        svg.split(&format!("<{name} ")).skip(1).map(|t| t.split('>').next().unwrap().to_owned()).collect()
    };
    // Text: the legend's labels, each case's name; bars: the rectangles below the legend's swatches.
    let texts: Vec<(String, f64, f64)> = svg
        .split("<text ")
        .skip(1)
        .map(|t| {
            let (tag, rest) = t.split_once('>').unwrap();
            let content = rest.split("</text>").next().unwrap().trim().to_owned();
            (content, number(&format!(" {tag}"), "y"), number(&format!(" {tag}"), "font-size"))
        })
        .collect();
    assert!(texts.iter().all(|(_, _, size)| *size >= 13.5), "{texts:?}");
    let legend = texts.iter().find(|(c, ..)| c == "2 threads").expect("legend").1;
    let first_case = texts.iter().filter(|(c, ..)| c.contains("hflip")).map(|t| t.1).fold(f64::MAX, f64::min);
    let bars: Vec<f64> = tags("rect").iter().map(|t| number(&format!(" {t}"), "y")).filter(|&y| y > 0.0).collect();
    assert!(bars.len() >= 2 * 2 + 2, "{bars:?}");
    let swatch_bottom = legend + 7.0;
    let first_bar = bars.iter().copied().filter(|&y| y > swatch_bottom).fold(f64::MAX, f64::min);
    assert!(legend < first_case && swatch_bottom < first_bar, "legend at {legend}, first bar at {first_bar}");
}

/// Problems with the bench's arguments are found before the run.
#[test]
fn bench_checks_its_arguments_first() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "[]").unwrap();
    let run = |args: &[&str]| {
        let o = strider().args(args).assert().code(2).get_output().clone();
        String::from_utf8(o.stderr).unwrap()
    };
    let e = run(&["bench", "--suite", empty.to_str().unwrap()]);
    assert!(e.contains("holds no cases"), "{e}");
    let e = run(&["bench", "--seconds", "0"]);
    assert!(e.contains("--seconds must be a positive number"), "{e}");
    let nowhere = dir.path().join("no/such/dir/out.json");
    let t = std::time::Instant::now();
    let e = run(&["bench", "--json", nowhere.to_str().unwrap()]);
    assert!(e.contains("cannot write") && t.elapsed().as_secs() < 5, "{e}");
    let e = run(&["bench", "--plot", nowhere.to_str().unwrap()]);
    assert!(e.contains("cannot write"), "{e}");
}

#[test]
fn info_reports_caches_and_honours_the_override() {
    let out = strider().arg("info").env("STRIDER_CACHE", "l2=2MiB,l3=480MiB,sharing=2").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("last level 480.0 MiB shared by 2 CPU(s)"), "{text}");
    assert!(text.contains("stream from 360.0 MiB"), "{text}");
}

#[test]
fn info_reports_the_helper_switches() {
    let out = strider().arg("info").env_remove("STRIDER_LINGER").env_remove("STRIDER_TIMED_STORES").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("poll for the next call") && text.contains("timed (STRIDER_TIMED_STORES=0"), "{text}");
    let out = strider().arg("info").env("STRIDER_LINGER", "0").env("STRIDER_TIMED_STORES", "0").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("sleep right after a split") && text.contains("by the rule"), "{text}");
}

#[test]
fn bench_reads_a_suite_file() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.json");
    std::fs::write(
        &suite,
        r#"[{"name": "mine", "dtype": "u8", "input_sizes": [64, 64], "offsets": [0, 0], "window_sizes": [64, 64],
             "window_strides": [-1, 2], "output_sizes": [64, 32]}]"#,
    )
    .unwrap();
    let out =
        strider().args(["bench", "--threads", "1", "--seconds", "0.01", "--suite"]).arg(&suite).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("mine"));
}

/// Round trip of every dtype, C and Fortran order: the output equals the library's reference on the same input.
#[test]
fn slice1_round_trips_every_dtype_and_order() {
    let dir = tempfile::tempdir().unwrap();
    let dtypes = [
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::Uint8,
        DataType::Uint16,
        DataType::Uint32,
        DataType::Uint64,
    ];
    let shape = [3u32, 5, 4];
    for dt in dtypes {
        for fortran in [false, true] {
            let n = shape.iter().product::<u32>() as usize * dt.size_in_bytes();
            let data: Vec<u8> = (0..n).map(|i| (i * 37 % 251) as u8).collect();
            let input = dir.path().join(format!("in_{}_{fortran}.npy", dt.short_name()));
            let output = dir.path().join(format!("out_{}_{fortran}.npy", dt.short_name()));
            write_npy(&input, dt, &shape.map(u64::from), &data, fortran);
            strider()
                .arg("slice1")
                .arg(&input)
                .arg(&output)
                .args(["--window-offsets", "0,1,0", "--window-sizes", "3,4,4", "--window-strides", "-1,2,-3"])
                .assert()
                .success();
            // expected: the same window through the library's reference on the same layout
            let strides: Vec<u32> = if fortran { vec![1, 3, 15] } else { vec![20, 4, 1] };
            let idesc = TensorDesc::with_strides(dt, &shape, &strides).unwrap();
            let odesc = TensorDesc::new(dt, &[3, 2, 2]).unwrap();
            let op = Slice1::new(&idesc, &odesc, &[0, 1, 0], &[3, 4, 4], &[-1, 2, -3]).unwrap();
            let mut want = vec![0u8; odesc.addressed_bytes() as usize];
            op.execute_reference(&data, &mut want).unwrap();
            let (descr, out_shape, out_fortran, got) = read_npy(&output);
            assert_eq!(out_shape, vec![3, 2, 2], "{dt}");
            assert!(!out_fortran);
            assert!(descr.trim_matches('\'').ends_with(&dt.size_in_bytes().to_string()), "{descr} for {dt}");
            assert_eq!(got, want, "{dt} fortran={fortran}");
        }
    }
}

#[test]
fn slice1_numpy_slice_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    let output = dir.path().join("out.npy");
    let data: Vec<u8> = (0..60).collect();
    write_npy(&input, DataType::Uint8, &[6, 10], &data, false);
    strider().arg("slice1").arg(&input).arg(&output).args(["--slice", "::-2, 1:8:3", "-v"]).assert().success();
    let (_, shape, _, got) = read_npy(&output);
    // numpy: x[::-2, 1:8:3] -> rows 5, 3, 1; columns 1, 4, 7
    assert_eq!(shape, vec![3, 3]);
    assert_eq!(got, vec![51, 54, 57, 31, 34, 37, 11, 14, 17]);
}

/// `strider normalize`: a BGR batch cropped, mirrored, turned to RGB, normalized with mean/std into planes; and a
/// one-image HWC file to f16 pixels with raw scale/bias. The values are checked element by element against the
/// documented formula.
#[test]
fn normalize_preprocesses_npy_images() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    let output = dir.path().join("out.npy");
    let (n, h, w, c) = (2usize, 5usize, 7usize, 3usize);
    let data: Vec<u8> = (0..n * h * w * c).map(|i| (i * 37 % 256) as u8).collect();
    write_npy(&input, DataType::Uint8, &[n as u64, h as u64, w as u64, c as u64], &data, false);
    let (mean, std) = ([0.485f32, 0.456, 0.406], [0.229f32, 0.224, 0.225]);
    strider()
        .arg("normalize")
        .arg(&input)
        .arg(&output)
        .args(["--mean", "0.485,0.456,0.406", "--std", "0.229,0.224,0.225", "--slice", ":, 1:4, ::-1, ::-1", "-v"])
        .assert()
        .success();
    let (descr, shape, fortran, got) = read_npy(&output);
    assert_eq!((descr.as_str(), shape.as_slice(), fortran), ("'<f4'", &[2u64, 3, 3, 7][..], false));
    let got: Vec<f32> = got.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    let (scale, bias) = strider::mean_std_to_scale_bias(DataType::Uint8, &mean, &std, 3).unwrap();
    let mut i = 0;
    for b in 0..n {
        for k in 0..c {
            for y in 1..4 {
                for x in (0..w).rev() {
                    let v = f32::from(data[((b * h + y) * w + x) * c + (c - 1 - k)]);
                    assert_eq!(got[i], v * scale[k] + bias[k], "image {b} channel {k} row {y} column {x}");
                    i += 1;
                }
            }
        }
    }

    // One HWC image into f16 pixels.
    write_npy(&input, DataType::Uint8, &[h as u64, w as u64, c as u64], &data[..h * w * c], false);
    strider()
        .arg("normalize")
        .arg(&input)
        .arg(&output)
        .args(["--scale", "0.5,1,2", "--bias", "-1", "--dtype", "f16", "--layout", "hwc"])
        .assert()
        .success();
    let (descr, shape, _, got) = read_npy(&output);
    assert_eq!((descr.as_str(), shape.as_slice()), ("'<f2'", &[h as u64, w as u64, c as u64][..]));
    for (i, b) in got.chunks(2).enumerate() {
        let want = half::f16::from_f32(f32::from(data[i]) * [0.5, 1.0, 2.0][i % 3] - 1.0);
        assert_eq!(u16::from_le_bytes([b[0], b[1]]), want.to_bits(), "element {i}");
    }
}

/// `strider preprocess`: a BGR batch resized by its shorter side, center-cropped, turned to RGB and normalized, and a
/// letterboxed image: the same bits as the library's builder with the same steps; its errors.
#[test]
fn preprocess_resizes_npy_images() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    let (n, h, w, c) = (2u32, 30u32, 41u32, 3u32);
    let data: Vec<u8> = (0..n * h * w * c).map(|i| (i * 37 % 251) as u8).collect();
    write_npy(&input, DataType::Uint8, &[n as u64, h as u64, w as u64, c as u64], &data, false);
    let (mean, std) = ([123.675, 116.28, 103.53], [58.395, 57.12, 57.375]);
    strider()
        .arg("preprocess")
        .arg(&input)
        .arg(&output)
        .args(["--resize-shorter", "16", "--crop", "12,14", "--bgr-to-rgb", "--mean", "123.675,116.28,103.53"])
        .args(["--std", "58.395,57.12,57.375", "-v"])
        .assert()
        .success();
    let (descr, shape, _, got) = read_npy(&output);
    assert_eq!((descr.as_str(), shape.as_slice()), ("'<f4'", &[2u64, 3, 12, 14][..]));
    let x = strider::TensorDesc::nhwc(DataType::Uint8, [n, c, h, w]).unwrap();
    let scale: Vec<f32> = std.iter().map(|s: &f64| (1.0 / s) as f32).collect();
    let bias: Vec<f32> = mean.iter().zip(&std).map(|(m, s): (&f64, &f64)| (-m / s) as f32).collect();
    let op = strider::Normalize::image(&x)
        .resize_shorter(16, strider::ResizeFilter::Bilinear)
        .center_crop(12, 14)
        .reverse_channels()
        .scale_bias(&scale, &bias)
        .build()
        .unwrap();
    let mut want = vec![0u8; got.len()];
    op.execute(&data, &mut want).unwrap();
    assert!(got == want, "the command and the library differ");

    // One HWC image letterboxed (sampled filter), u8 out: the canvas is the pad value.
    write_npy(&input, DataType::Uint8, &[h as u64, w as u64, c as u64], &data[..(h * w * c) as usize], false);
    strider()
        .arg("preprocess")
        .arg(&input)
        .arg(&output)
        .args(["--letterbox", "40", "--pad", "114", "--sampled", "--dtype", "u8", "--layout", "hwc"])
        .assert()
        .success();
    let (descr, shape, _, got) = read_npy(&output);
    assert_eq!((descr.as_str(), shape.as_slice()), ("'|u1'", &[40u64, 40, 3][..]));
    assert!(got[..40 * 3].iter().all(|&v| v == 114), "the first row is canvas");

    std::fs::remove_file(&output).unwrap();
    let d = dir.path();
    let (si, so) = (input.to_str().unwrap(), output.to_str().unwrap());
    let keep = [input.as_path()];
    fails(d, &keep, &["preprocess", si, so, "--resize", "1,2,3"], "--resize takes HEIGHT,WIDTH");
    fails(d, &keep, &["preprocess", si, so, "--resize", "0,4"], "height or width is 0");
    fails(d, &keep, &["preprocess", si, so, "--resize-shorter", "8", "--crop", "9"], "crop");
    fails(d, &keep, &["preprocess", si, so, "--letterbox", "8", "--crop", "4"], "cannot be combined");
    fails(d, &keep, &["preprocess", si, so, "--filter", "lanczos"], "--filter");
    fails(d, &keep, &["preprocess", si, so, "--std", "0"], "--std value 0 is 0");
    fails(d, &keep, &["preprocess", si, so, "--mean", "1,2"], "--mean has 2 values");
}

/// Runs a failing command: exit status 2, one line naming the problem, no file left in `dir` but `keep`.
fn fails(dir: &Path, keep: &[&Path], args: &[&str], expect: &str) {
    let out = strider().args(args).assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("strider: error: "), "{err}");
    assert!(err.contains(expect), "{err:?} should mention {expect:?}");
    let left: Vec<PathBuf> = files_in(dir).into_iter().filter(|p| !keep.contains(&p.as_path())).collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn bad_input_gets_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = |name: &str| d.join(name);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let out = p("out.npy");

    // a valid input to misuse
    let good = p("good.npy");
    write_npy(&good, DataType::Float32, &[4, 4], &[0u8; 64], false);
    // corrupt: not an npy at all
    let corrupt = p("corrupt.npy");
    std::fs::write(&corrupt, b"this is not a numpy file at all").unwrap();
    // truncated: a valid header, half the data
    let truncated = p("truncated.npy");
    let full = std::fs::read(&good).unwrap();
    std::fs::write(&truncated, &full[..full.len() - 32]).unwrap();
    // unsupported dtype: complex64
    let complex = p("complex.npy");
    let mut header = b"\x93NUMPY\x01\x00".to_vec();
    let dict = "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }";
    let pad = 64 - (10 + dict.len() + 1) % 64;
    let dict = format!("{dict}{}\n", " ".repeat(pad));
    header.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    header.extend_from_slice(dict.as_bytes());
    header.extend_from_slice(&[0u8; 16]);
    std::fs::write(&complex, header).unwrap();
    // a header cut short, and an empty array
    let short_header = p("short_header.npy");
    std::fs::write(&short_header, &full[..40]).unwrap();
    let empty = p("empty.npy");
    write_npy(&empty, DataType::Uint8, &[3, 0, 2], &[], false);
    let inputs = [good.as_path(), corrupt.as_path(), truncated.as_path(), complex.as_path()];
    let inputs = [&inputs[..], &[short_header.as_path(), empty.as_path()]].concat();
    let inputs: [&Path; 6] = inputs.try_into().unwrap();

    let so = s(&out);
    fails(d, &inputs, &["slice1", &s(&p("missing.npy")), &so], "cannot open");
    fails(d, &inputs, &["slice1", &s(d), &so], "is a directory, not a .npy file");
    fails(d, &inputs, &["slice1", &s(&corrupt), &so], "not a valid .npy file");
    fails(d, &inputs, &["slice1", &s(&truncated), &so], "truncated");
    fails(d, &inputs, &["slice1", &s(&complex), &so], "unsupported dtype");
    fails(d, &inputs, &["slice1", &s(&short_header), &so], "the .npy header is truncated");
    fails(d, &inputs, &["slice1", &s(&empty), &so], "need every size to be at least 1");
    fails(
        d,
        &inputs,
        &["slice1", &s(&good), &so, "--window-offsets", "0,4"],
        "offset 4 of dimension 1 is beyond its size 4",
    );
    fails(d, &inputs, &["slice1", &s(&good), &so, "--slice", "3:1"], "NumPy would give an empty array");
    // A negative offset: clap's usage error (status 2), saying offsets are unsigned rather than suggesting `--`.
    let out =
        strider().args(["slice1", &s(&good), &so, "--window-offsets", "-1,0"]).assert().code(2).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("window offsets are unsigned") && !err.contains("-- -1"), "{err}");
    fails(d, &inputs, &["slice1", &s(&good), &so, "--window-strides", "1,1,1"], "--window-strides has 3 values");
    fails(d, &inputs, &["slice1", &s(&good), &so, "--output-sizes", "2"], "--output-sizes has 1 values");
    fails(
        d,
        &inputs,
        &["slice1", &s(&good), &so, "--window-offsets", "0,3", "--window-sizes", "4,4"],
        "extends beyond",
    );
    fails(d, &inputs, &["slice1", &s(&good), &so, "--window-strides", "0,1"], "stride of dimension 0 is 0");
    fails(d, &inputs, &["slice1", &s(&good), &so, "--output-sizes", "5,4"], "exceeds");
    fails(d, &inputs, &["slice1", &s(&good), &so, "--slice", "5"], "out of range");
    fails(d, &inputs, &["slice1", &s(&good), &so, "--slice", "2:2"], "selects no element");
    fails(d, &inputs, &["slice1", &s(&good), &s(&d.join("no/such/dir/out.npy"))], "cannot write");
    let image = p("image.npy");
    write_npy(&image, DataType::Uint8, &[4, 4, 3], &[0u8; 48], false);
    let inputs = [&inputs[..], &[image.as_path()]].concat();
    let si = s(&image);
    fails(d, &inputs, &["normalize", &s(&good), &so], "has 2 dimensions");
    fails(d, &inputs, &["normalize", &s(&truncated), &so], "truncated");
    fails(d, &inputs, &["normalize", &si, &so, "--mean", "0.5,0.5", "--std", "0.2"], "mean has 2 values");
    fails(d, &inputs, &["normalize", &si, &so, "--mean", "0.5", "--std", "0"], "std[0] is 0");
    fails(d, &inputs, &["normalize", &si, &so, "--scale", "1,2"], "scale has 2 values");
    fails(d, &inputs, &["normalize", &si, &so, "--bias", "nan"], "bias[0] is NaN");
    fails(d, &inputs, &["normalize", &si, &so, "--dtype", "q8"], "unknown data type");
    fails(d, &inputs, &["normalize", &si, &so, "--slice", "::0"], "step of dimension 0 is 0");
    fails(d, &inputs, &["normalize", &si, &so, "--slice", "9"], "out of range");
    fails(d, &inputs, &["bench", "--filter", "no such case"], "no case");
    fails(d, &inputs, &["bench", "--suite", &s(&corrupt)], "is not a workload list");
    fails(d, &inputs, &["bench", "--threads", "0"], "at least 1");
}

#[test]
fn output_is_replaced_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    let output = dir.path().join("out.npy");
    write_npy(&input, DataType::Uint8, &[4], &[1, 2, 3, 4], false);
    std::fs::write(&output, b"old").unwrap();
    // a failing run leaves the old file as it was
    strider().arg("slice1").arg(&input).arg(&output).args(["--window-strides", "0"]).assert().code(2);
    assert_eq!(std::fs::read(&output).unwrap(), b"old");
    strider().arg("slice1").arg(&input).arg(&output).args(["--window-strides", "-1"]).assert().success();
    assert_eq!(read_npy(&output).3, vec![4, 3, 2, 1]);
    assert_eq!(files_in(dir.path()).len(), 2);
}

/// A filter that matches nothing is an error before anything is printed, and `--fail-above` needs a positive
/// ratio.
#[test]
fn bench_refuses_before_printing() {
    let out = strider().args(["bench", "--filter", "nosuchcase"]).assert().code(2).get_output().clone();
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no case of the suite matches --filter \"nosuchcase\""), "{err}");
    let out = strider().args(["bench", "--fail-above", "0"]).assert().code(2).get_output().clone();
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr).unwrap().contains("--fail-above must be a positive ratio"));
    // Over the bound: the table, the offenders, status 1; within it: status 0.
    let args = ["bench", "--filter", "doc_example", "--seconds", "0.01", "--threads", "1", "--fail-above"];
    let out = strider().args(args).arg("0.000001").assert().code(1).get_output().clone();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1 case(s) above t/limit") && text.contains("f32_dml_doc_example_1x1x4x4 at 1 thread"),
        "{text}"
    );
    let out = strider().args(args).arg("1000000").assert().code(0).get_output().clone();
    assert!(String::from_utf8(out.stdout).unwrap().contains("every case within t/limit"));
}
