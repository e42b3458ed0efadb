//! `strider`: slice and normalize `.npy` files, benchmark suites against `memcpy`, report the machine.
//!
//! Every failure prints one line naming the problem on stderr and exits with status 2.

mod bench;
mod info;
mod plot;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use strider::Slice1;
use strider_cli::{dimensions, npy, window};

#[derive(Parser)]
#[command(name = "strider", version, about = "SIMD CPU kernels for DirectML's strided tensors, from the shell")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Copy a window of a .npy tensor into a new packed .npy file (DML_SLICE1).
    Slice1(Slice1Args),
    /// Preprocess a .npy image or batch in one pass: window (crop, flip, subsample, channel order), layout change,
    /// per-channel normalization and cast.
    Normalize(NormalizeArgs),
    /// Decoded images (.npy, HWC or NHWC) to a model's input in one pass: resize (to a size, by the shorter side or
    /// letterboxed), center crop, flip, BGR -> RGB, (x - mean) / std, cast and layout.
    Preprocess(PreprocessArgs),
    /// Time a suite of workloads beside a memcpy of the same bytes and print a table.
    Bench(BenchArgs),
    /// Print the version, the SIMD levels, the threads and the memcpy bandwidth of this machine.
    Info,
}

#[derive(Args)]
#[command(
    after_help = "WINDOWS\n  Per dimension: offset, size and a signed non-zero stride; a negative stride copies from the \
window's end. Omitted arguments default to offset 0, the rest of the dimension, stride 1; output sizes default to \
the most elements each window can copy, 1 + (size - 1) / |stride|.\n\n  --slice takes NumPy syntax instead, e.g. \
\"::2, 10:20, ::-1\" (Python's slice.indices rules; a single index keeps its dimension with size 1; '...' once)."
)]
struct Slice1Args {
    /// Input .npy file (any supported dtype, C or Fortran order).
    input: PathBuf,
    /// Output .npy file (packed, C order), written atomically.
    output: PathBuf,
    /// Window offsets, one per dimension (comma-separated, unsigned).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = unsigned("offset"), conflicts_with = "slice")]
    window_offsets: Option<Vec<u32>>,
    /// Window sizes, one per dimension (unsigned).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = unsigned("size"), conflicts_with = "slice")]
    window_sizes: Option<Vec<u32>>,
    /// Window strides (signed, non-zero), one per dimension.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, conflicts_with = "slice")]
    window_strides: Option<Vec<i32>>,
    /// Output sizes, one per dimension (default: the most each window can copy).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = unsigned("output size"))]
    output_sizes: Option<Vec<u32>>,
    /// NumPy-style slice instead of the window arguments, e.g. "::2,10:20,::-1".
    #[arg(long, allow_hyphen_values = true)]
    slice: Option<String>,
    /// Print the plan and the time taken.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Args)]
#[command(
    after_help = "AXES\n  The input is an image (3 dimensions) or a batch (4), channels last (hwc/nhwc, as decoders give them) \
unless --input-layout says otherwise. --slice takes NumPy syntax over the input file's axes, e.g. \"16:240, 16:240, \
::-1\" crops an HWC image and reverses its channels (BGR -> RGB); \"::-1\" on the width axis flips horizontally.\n\n\
VALUES\n  y = x * scale + bias per output channel, in f32 (product, then sum), converted to --dtype rounding to nearest \
(integers: half to even, saturating). --mean/--std are in 0..1 units (x/255 for u8): scale = 1/(255 std), bias = \
-mean/std. One value applies to every channel; otherwise one per output channel, in output order."
)]
struct NormalizeArgs {
    /// Input .npy file (any supported dtype, C or Fortran order).
    input: PathBuf,
    /// Output .npy file (packed, C order, axes in the --layout order), written atomically.
    output: PathBuf,
    /// Per-channel mean in 0..1 units (comma-separated).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, requires = "std", conflicts_with_all = ["scale", "bias"])]
    mean: Option<Vec<f32>>,
    /// Per-channel standard deviation in 0..1 units.
    #[arg(long, value_delimiter = ',', requires = "mean")]
    std: Option<Vec<f32>>,
    /// Per-channel factor (instead of --mean/--std; default 1).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    scale: Option<Vec<f32>>,
    /// Per-channel addend (default 0).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    bias: Option<Vec<f32>>,
    /// Output data type (f32, f16, u8, i8, …).
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Output layout: planes (nchw/chw) or interleaved (nhwc/hwc).
    #[arg(long, value_enum, default_value_t = Layout::Nchw)]
    layout: Layout,
    /// How the input file's axes are ordered (default: channels last).
    #[arg(long, value_enum, default_value_t = Layout::Nhwc)]
    input_layout: Layout,
    /// NumPy-style slice over the input file's axes, e.g. "16:240,16:240,::-1".
    #[arg(long, allow_hyphen_values = true)]
    slice: Option<String>,
    /// Print the plan and the time taken.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Args)]
#[command(
    after_help = "EXAMPLES\n  ImageNet classification input from a BGR frame:\n    strider preprocess frame.npy x.npy \
--resize-shorter 256 --crop 224 --bgr-to-rgb --mean 123.675,116.28,103.53 --std 58.395,57.12,57.375\n  YOLO input:\n    \
strider preprocess frame.npy x.npy --letterbox 640,640 --pad 114 --bgr-to-rgb --std 255\n\nVALUES\n  The resized pixels \
stay f32 (never rounded to u8); y = (x - mean) / std in input units (0..255 for u8), per output channel, computed as \
x * (1/std) + (-mean/std) in f32, converted to --dtype rounding to nearest (integers: half to even, saturating)."
)]
struct PreprocessArgs {
    /// Input .npy file: an image (H, W, C) or a batch (N, H, W, C); u8, f16 or f32.
    input: PathBuf,
    /// Output .npy file (packed, C order, axes in the --layout order), written atomically.
    output: PathBuf,
    /// Resize to HEIGHT,WIDTH (one value: a square).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["resize_shorter", "letterbox"])]
    resize: Option<Vec<u32>>,
    /// Resize keeping the aspect ratio, the shorter side to this (torchvision's Resize(int)).
    #[arg(long, conflicts_with = "letterbox")]
    resize_shorter: Option<u32>,
    /// YOLO's letterbox into a HEIGHT,WIDTH canvas (one value: a square), padded with --pad.
    #[arg(long, value_delimiter = ',')]
    letterbox: Option<Vec<u32>>,
    /// The letterbox canvas's value, in input units.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true, requires = "letterbox")]
    pad: f32,
    /// Center crop HEIGHT,WIDTH after the resize (one value: a square).
    #[arg(long, value_delimiter = ',')]
    crop: Option<Vec<u32>>,
    /// Resampling filter: nearest, bilinear, bicubic or area.
    #[arg(long, default_value = "bilinear")]
    filter: String,
    /// OpenCV's sampled filters (cv2.resize) instead of Pillow's antialiased ones.
    #[arg(long)]
    sampled: bool,
    /// Mirror left <-> right.
    #[arg(long)]
    flip: bool,
    /// Reverse the channels (BGR -> RGB).
    #[arg(long)]
    bgr_to_rgb: bool,
    /// Per-channel mean in input units (comma-separated; default 0).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    mean: Option<Vec<f64>>,
    /// Per-channel standard deviation in input units (default 1).
    #[arg(long, value_delimiter = ',')]
    std: Option<Vec<f64>>,
    /// Output data type (f32, f16, u8, i8, …).
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Output layout: planes (nchw/chw) or interleaved (nhwc/hwc).
    #[arg(long, value_enum, default_value_t = Layout::Nchw)]
    layout: Layout,
    /// Print the plan and the time taken.
    #[arg(short, long)]
    verbose: bool,
}

/// A HEIGHT,WIDTH argument (one value: both).
fn size_arg(v: &[u32], what: &str) -> Result<[u32; 2]> {
    match v {
        [n] => Ok([*n, *n]),
        [h, w] => Ok([*h, *w]),
        _ => bail!("--{what} takes HEIGHT,WIDTH or one size, not {} values", v.len()),
    }
}

fn preprocess(a: PreprocessArgs) -> Result<()> {
    let t = npy::read(&a.input)?;
    let dims = t.desc.sizes().to_vec();
    let rank = dims.len();
    if !(3..=4).contains(&rank) {
        bail!(
            "{} has {}; preprocess takes an image (3: HWC) or a batch (4: NHWC)",
            a.input.display(),
            dimensions(rank)
        );
    }
    let to: strider::DataType = a.dtype.parse()?;
    let Some(filter) = strider::ResizeFilter::from_name(&a.filter) else {
        bail!("--filter {:?}: give nearest, bilinear, bicubic or area", a.filter.to_ascii_lowercase());
    };
    let axes = Layout::Nhwc.file_axes(rank);
    let pick = |v: &[u32]| axes.iter().map(|&k| v[k]).collect::<Vec<u32>>();
    let input = strider::TensorDesc::with_strides(t.desc.data_type(), &pick(&dims), &pick(t.desc.strides()))?;
    let b = strider::Normalize::image(&input).antialias(!a.sampled);
    let b = match (&a.resize, a.resize_shorter, &a.letterbox) {
        (Some(s), ..) => {
            let [h, w] = size_arg(s, "resize")?;
            b.resize(h, w, filter)
        }
        (_, Some(s), _) => b.resize_shorter(s, filter),
        (.., Some(s)) => {
            let [h, w] = size_arg(s, "letterbox")?;
            b.letterbox(h, w, filter, a.pad)
        }
        _ => b,
    };
    let b = match &a.crop {
        Some(c) => {
            let [h, w] = size_arg(c, "crop")?;
            b.center_crop(h, w)
        }
        None => b,
    };
    let b = if a.flip { b.flip_horizontal() } else { b };
    let b = if a.bgr_to_rgb { b.reverse_channels() } else { b };
    // (x - mean) / std in input units: x · (1/std) + (−mean/std), each rounded once from f64.
    let (mean, std) = (a.mean.clone().unwrap_or_else(|| vec![0.0]), a.std.clone().unwrap_or_else(|| vec![1.0]));
    let n = mean.len().max(std.len());
    let channels = dims[rank - 1] as usize;
    for (what, v) in [("--mean", &mean), ("--std", &std)] {
        if v.len() != 1 && v.len() != channels {
            bail!("{what} has {} values; give 1 or one per channel ({channels})", v.len());
        }
    }
    if let Some(k) = std.iter().position(|&s| s == 0.0 || !s.is_finite()) {
        bail!("--std value {k} is {}; a standard deviation must be finite and not 0", std[k]);
    }
    let at = |v: &[f64], k: usize| if v.len() == 1 { v[0] } else { v[k] };
    let scale: Vec<f32> = (0..n).map(|k| (1.0 / at(&std, k)) as f32).collect();
    let bias: Vec<f32> = (0..n).map(|k| (-at(&mean, k) / at(&std, k)) as f32).collect();
    let layout = match a.layout {
        Layout::Nchw => strider::ImageLayout::Nchw,
        Layout::Nhwc => strider::ImageLayout::Nhwc,
    };
    let op = b.scale_bias(&scale, &bias).output_type(to).layout(layout).build().context("invalid preprocessing")?;
    let output = op.output().clone();
    let mut out = output_buffer(output.addressed_bytes())?;
    let start = Instant::now();
    op.execute(&t.bytes, &mut out)?;
    let took = start.elapsed();
    let file_sizes: Vec<u32> = a.layout.logical_order(rank).iter().map(|&k| output.sizes()[k]).collect();
    npy::write(&a.output, to, &file_sizes, &out)?;
    if a.verbose {
        eprintln!(
            "{} {:?} -> {} {:?}; {:.1} µs\n{}",
            t.desc.data_type(),
            dims,
            to,
            file_sizes,
            took.as_secs_f64() * 1e6,
            op.explain()
        );
    }
    Ok(())
}

/// An image layout on the command line (`hwc` and `chw` are accepted as the one-image names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Layout {
    #[value(alias = "chw")]
    Nchw,
    #[value(alias = "hwc")]
    Nhwc,
}

impl Layout {
    /// For each logical axis (`[N,] C, H, W`), the file axis holding it.
    fn file_axes(self, rank: usize) -> Vec<usize> {
        match (self, rank) {
            (Layout::Nchw, _) => (0..rank).collect(),
            (Layout::Nhwc, 4) => vec![0, 3, 1, 2],
            (Layout::Nhwc, _) => vec![2, 0, 1],
        }
    }

    /// For each file axis, outermost first, the logical axis it holds (the inverse of [`Layout::file_axes`]).
    fn logical_order(self, rank: usize) -> Vec<usize> {
        let axes = self.file_axes(rank);
        (0..rank).map(|f| axes.iter().position(|&k| k == f).unwrap_or(f)).collect()
    }
}

#[derive(Args)]
#[command(after_help = SUITE_HELP)]
struct BenchArgs {
    /// "default" (the public workloads plus cache sweeps, embedded) or a JSON file of workloads (see below).
    #[arg(long, default_value = "default")]
    suite: String,
    /// Thread counts to run, comma-separated (default: 1 and all cores).
    #[arg(long, value_delimiter = ',')]
    threads: Option<Vec<usize>>,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw the results as an SVG chart in this file: the cache sweeps as GB/s against size beside memcpy,
    /// and one bar per case for its time ÷ memcpy.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Only the cases whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Time budget per case and thread count, in seconds.
    #[arg(long, default_value_t = 0.25)]
    seconds: f64,
    /// How to sample: rounds alternating operator and memcpy, or each in its own tight loop as the peer scripts
    /// do (for side-by-side comparisons: `python3 benches/peers/casts.py`, `benches/peers/normalize.py`).
    #[arg(long, value_enum, default_value_t = bench::Method::Interleaved)]
    method: bench::Method,
    /// Non-temporal stores: chosen per case from the cache sizes, measured near the threshold (auto), or forced on
    /// or off.
    #[arg(long, value_enum, default_value_t = bench::Streaming::Auto)]
    streaming: bench::Streaming,
    /// Force an instruction-set level (scalar, v3, v4, v4-vbmi) instead of the best this CPU has.
    #[arg(long, value_parser = parse_isa)]
    isa: Option<strider::Isa>,
    /// Start every buffer this many bytes past a 64-byte line (0-63; numpy's large arrays start 16 past one).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..64))]
    misalign: u8,
    /// Exit with status 1, after the table and a list of the offenders, when a case's time ÷ limit exceeds this
    /// at any thread count (a sweep's check: `python3 benches/sweep.py` runs one with 3).
    #[arg(long)]
    fail_above: Option<f64>,
}

/// The suite file format, for `strider bench --help`.
const SUITE_HELP: &str = "SUITE FILES
  A JSON list of cases; each has \"name\", \"dtype\" (f32, u8, FLOAT16, ...) and an \"op\" (default \"slice1\"):
    slice1     \"input_sizes\", \"offsets\", \"window_sizes\", \"window_strides\" (signed), \"output_sizes\"
    identity   \"sizes\"; optional \"scale\" and \"bias\" (numbers: DML_SCALE_BIAS)
    cast       \"sizes\", \"output_dtype\"
    normalize  the slice1 fields (the window defaults to the whole input), \"output_dtype\" (default f32),
               \"channel_axis\", \"scale\" and \"bias\" (a number or one per channel)
  Every op takes optional \"input_strides\" and \"output_strides\" (in elements; absent = packed). Unknown fields
  are reported once and ignored. Example:
    [{\"name\": \"hflip\", \"dtype\": \"u8\", \"input_sizes\": [1080, 1920, 3], \"offsets\": [0, 0, 0],
      \"window_sizes\": [1080, 1920, 3], \"window_strides\": [1, -1, 1], \"output_sizes\": [1080, 1920, 3]}]

PEERS
  Run the same cases with numpy, torch, OpenCV and DALI beside Strider in one session:
    python3 benches/peers/casts.py        python3 benches/peers/normalize.py [--setup]";

fn parse_isa(name: &str) -> Result<strider::Isa, String> {
    let isa = strider::Isa::ALL.into_iter().find(|i| i.name() == name);
    let names: Vec<&str> = strider::Isa::ALL.iter().map(|i| i.name()).collect();
    let isa = isa.ok_or_else(|| format!("unknown level {name:?}: expected one of {}", names.join(", ")))?;
    if !isa.is_available() {
        return Err(format!("{isa} is not available on this CPU"));
    }
    Ok(isa)
}

/// A parser of unsigned 32-bit window values that says so when given a negative one (instead of clap's tip about
/// `--`, which does not apply).
fn unsigned(what: &'static str) -> impl Fn(&str) -> Result<u32, String> + Clone {
    move |s: &str| {
        let t = s.trim();
        if t.starts_with('-') {
            return Err(format!("{what} {t} is negative: window {what}s are unsigned (a negative stride reverses)"));
        }
        t.parse::<u32>().map_err(|e| format!("{what} {t:?}: {e}"))
    }
}

fn slice1(a: Slice1Args) -> Result<()> {
    let t = npy::read(&a.input)?;
    let dims = t.desc.sizes().to_vec();
    let rank = dims.len();
    let w = match &a.slice {
        Some(spec) => window::parse(spec, &dims)?,
        None => {
            let mut w = window::Window::full(&dims);
            for (name, given, len) in [
                ("--window-offsets", a.window_offsets.as_ref().map(Vec::len), rank),
                ("--window-sizes", a.window_sizes.as_ref().map(Vec::len), rank),
                ("--window-strides", a.window_strides.as_ref().map(Vec::len), rank),
            ] {
                if let Some(n) = given
                    && n != len
                {
                    bail!("{name} has {n} values but {} has {}", a.input.display(), dimensions(rank));
                }
            }
            if let Some(o) = &a.window_offsets {
                if let Some(dim) = (0..rank).find(|&d| o[d] >= dims[d]) {
                    bail!("--window-offsets: offset {} of dimension {dim} is beyond its size {}", o[dim], dims[dim]);
                }
                w.offsets.clone_from(o);
                // default sizes: the rest of each dimension after the offset
                w.sizes = dims.iter().zip(o).map(|(&d, &o)| d.saturating_sub(o)).collect();
            }
            if let Some(s) = &a.window_sizes {
                w.sizes.clone_from(s);
            }
            if let Some(k) = &a.window_strides {
                w.strides.clone_from(k);
            }
            w
        }
    };
    let out_sizes = match a.output_sizes {
        Some(s) if s.len() != rank => {
            bail!("--output-sizes has {} values but {} has {}", s.len(), a.input.display(), dimensions(rank))
        }
        Some(s) => s,
        None => w.max_output_sizes(),
    };
    let out_desc = strider::TensorDesc::new(t.desc.data_type(), &out_sizes).context("invalid output sizes")?;
    let op = Slice1::new(&t.desc, &out_desc, &w.offsets, &w.sizes, &w.strides).context("invalid window")?;
    let mut out = output_buffer(out_desc.addressed_bytes())?;
    let start = Instant::now();
    op.execute(&t.bytes, &mut out)?;
    let took = start.elapsed();
    npy::write(&a.output, out_desc.data_type(), &out_sizes, &out)?;
    if a.verbose {
        eprintln!(
            "{} {:?} -> {:?}: offsets {:?} sizes {:?} strides {:?}; {} ({}); {:.1} µs",
            t.desc.data_type(),
            dims,
            out_sizes,
            w.offsets,
            w.sizes,
            w.strides,
            op.plan(),
            op.row_kind(),
            took.as_secs_f64() * 1e6
        );
    }
    Ok(())
}

fn normalize(a: NormalizeArgs) -> Result<()> {
    let t = npy::read(&a.input)?;
    let dims = t.desc.sizes().to_vec();
    let rank = dims.len();
    if !(3..=4).contains(&rank) {
        bail!(
            "{} has {}; normalize takes an image (3: HWC or CHW) or a batch (4)",
            a.input.display(),
            dimensions(rank)
        );
    }
    let to: strider::DataType = a.dtype.parse()?;
    // The window over the file's axes, then everything in logical order ([N,] C, H, W).
    let w = match &a.slice {
        Some(spec) => window::parse(spec, &dims)?,
        None => window::Window::full(&dims),
    };
    let axes = a.input_layout.file_axes(rank);
    let pick = |v: &[u32]| axes.iter().map(|&k| v[k]).collect::<Vec<u32>>();
    let strides: Vec<u32> = pick(t.desc.strides());
    let input = strider::TensorDesc::with_strides(t.desc.data_type(), &pick(&dims), &strides)?;
    let (offsets, sizes) = (pick(&w.offsets), pick(&w.sizes));
    let window_strides: Vec<i32> = axes.iter().map(|&k| w.strides[k]).collect();
    let out_sizes = pick(&w.max_output_sizes());
    let output = match a.layout {
        Layout::Nchw => strider::TensorDesc::new(to, &out_sizes)?,
        Layout::Nhwc => strider::TensorDesc::permuted(to, &out_sizes, &Layout::Nhwc.logical_order(rank))?,
    };
    let channel_axis = rank - 3;
    let channels = out_sizes[channel_axis];
    let (scale, bias) = match (&a.mean, &a.std) {
        (Some(mean), Some(std)) => strider::mean_std_to_scale_bias(input.data_type(), mean, std, channels)?,
        _ => (a.scale.clone().unwrap_or_else(|| vec![1.0]), a.bias.clone().unwrap_or_else(|| vec![0.0])),
    };
    let op =
        strider::Normalize::new(&input, &output, &offsets, &sizes, &window_strides, Some(channel_axis), &scale, &bias)
            .context("invalid normalization")?;
    let mut out = output_buffer(output.addressed_bytes())?;
    let start = Instant::now();
    op.execute(&t.bytes, &mut out)?;
    let took = start.elapsed();
    // The file's axes in the output layout's order.
    let file_sizes: Vec<u32> = a.layout.logical_order(rank).iter().map(|&k| out_sizes[k]).collect();
    npy::write(&a.output, to, &file_sizes, &out)?;
    if a.verbose {
        eprintln!(
            "{} {:?} -> {} {:?}: scale {:?} bias {:?}; {} ({}); {:.1} µs",
            t.desc.data_type(),
            dims,
            to,
            file_sizes,
            op.scale(),
            op.bias(),
            op.plan(),
            op.row_kind(),
            took.as_secs_f64() * 1e6
        );
    }
    Ok(())
}

fn bench(a: BenchArgs) -> Result<()> {
    let cases = match a.suite.as_str() {
        "default" => bench::default_suite(),
        path => bench::load_suite(std::path::Path::new(path))?,
    };
    if cases.is_empty() {
        bail!("the suite {} holds no cases", a.suite);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = a.threads.unwrap_or_else(|| if cores > 1 { vec![1, cores] } else { vec![1] });
    if threads.is_empty() || threads.contains(&0) {
        bail!("--threads needs counts of at least 1");
    }
    if let Some(&t) = threads.iter().find(|&&t| t > cores) {
        eprintln!("strider: warning: --threads {t} exceeds the {cores} cores of this machine; its times will mislead");
    }
    if let Some(b) = a.fail_above.filter(|b| !(*b > 0.0 && b.is_finite())) {
        bail!("--fail-above must be a positive ratio (got {b})");
    }
    if !(a.seconds > 0.0 && a.seconds.is_finite()) {
        bail!("--seconds must be a positive number of seconds (got {})", a.seconds);
    }
    // Fail before a long run, not after it: the JSON and plot files go to writable places.
    let json = a.json.as_deref().map(bench::Output::create).transpose()?;
    let plot = a.plot.as_deref().map(bench::Output::create).transpose()?;
    let opts = bench::Options {
        threads: threads.clone(),
        filter: a.filter,
        seconds_per_case: a.seconds,
        method: a.method,
        streaming: a.streaming,
        isa: a.isa,
        misalign: a.misalign.into(),
    };
    if let Some(f) = opts.filter.as_deref().filter(|f| !cases.iter().any(|c| c.name.contains(f))) {
        bail!("no case of the suite matches --filter {f:?}");
    }
    let isa = a.isa.unwrap_or_else(strider::Isa::best).to_string();
    println!("{}", bench::header(&isa, &bench::method_text(&opts), &threads));
    let report = bench::run(&cases, &opts, &mut |c, print| print(&bench::row(c)))?;
    if let Some(out) = json {
        out.write(serde_json::to_string_pretty(&report)?.as_bytes())?;
    }
    if let Some(out) = plot {
        out.write(bench::plot(&report)?.as_bytes())?;
    }
    if let Some(bound) = a.fail_above {
        let over: Vec<String> = report
            .cases
            .iter()
            .flat_map(|c| c.runs.iter().map(move |r| (c, r)))
            .filter(|(_, r)| r.time_over_limit > bound)
            .map(|(c, r)| {
                format!("  {} at {} thread(s): t/limit {:.2} ({})", c.name, r.threads, r.time_over_limit, c.plan)
            })
            .collect();
        if !over.is_empty() {
            println!("{} case(s) above t/limit {bound}:\n{}", over.len(), over.join("\n"));
            return Err(FailAbove(over.len()).into());
        }
        println!("every case within t/limit {bound}");
    }
    Ok(())
}

/// `--fail-above` found cases over the bound (exit status 1, not 2: the run itself worked).
#[derive(Debug)]
struct FailAbove(usize);

impl std::fmt::Display for FailAbove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} case(s) above the --fail-above bound", self.0)
    }
}

impl std::error::Error for FailAbove {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Slice1(a) => slice1(a),
        Command::Normalize(a) => normalize(a),
        Command::Preprocess(a) => preprocess(a),
        Command::Bench(a) => bench(a),
        Command::Info => {
            print!("{}", info::report());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("strider: error: {e:#}");
            ExitCode::from(if e.is::<FailAbove>() { 1 } else { 2 })
        }
    }
}

/// A zeroed output buffer of `bytes` bytes, or an error saying that it cannot be allocated.
fn output_buffer(bytes: u64) -> Result<Vec<u8>> {
    let n = usize::try_from(bytes).with_context(|| format!("an output of {bytes} bytes does not fit this machine"))?;
    let mut out = Vec::new();
    out.try_reserve_exact(n).with_context(|| format!("cannot allocate the {n}-byte output"))?;
    out.resize(n, 0);
    Ok(out)
}
