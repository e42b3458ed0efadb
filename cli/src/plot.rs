//! `strider bench --plot`: the report as an SVG — the cache sweeps as GB/s against output size beside `memcpy`,
//! and one bar per case for its time ÷ memcpy at each thread count.

use anyhow::{Result, anyhow};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::bench::{CaseResult, Report};

const WIDTH: u32 = 1100;
const SWEEP_HEIGHT: u32 = 460;
/// Pixels per case in the bar chart.
const BAR_ROW: u32 = 26;
/// The bar chart's title and legend, above its bars (a legend inside the chart covered the first bars).
const BAR_HEADER: u32 = 64;
/// Bars longer than this many memcpy times are clipped (their value is written at the edge).
const CLIP: f64 = 6.0;
/// Text sizes (plotters draws them at 0.8 of this: 20, 15 and 14 pixels): titles, axis and case labels, values
/// written on clipped bars.
const TITLE: u32 = 25;
const LABEL: u32 = 19;
const VALUE: u32 = 17;

/// The SVG text of `report`'s charts: the cache sweeps when the report has `sweep_*` cases, one bar per other case
/// when it has others (only the panels with data, each at a readable size).
pub fn svg(report: &Report) -> Result<String> {
    let series = sweep_series(report);
    let others: Vec<&CaseResult> = report.cases.iter().filter(|c| !is_sweep(c)).collect();
    let sweep_height = if series.is_empty() { 0 } else { SWEEP_HEIGHT };
    let bars_height = if others.is_empty() { 0 } else { BAR_HEADER + 50 + BAR_ROW * others.len() as u32 };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, (sweep_height + bars_height).max(1))).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, bottom) = root.split_vertically(sweep_height);
        if !series.is_empty() {
            sweeps(&top, &series)?;
        }
        if !others.is_empty() {
            bars(&bottom, &others)?;
        }
        root.present().map_err(err)?;
    }
    Ok(out)
}

fn is_sweep(c: &CaseResult) -> bool {
    c.name.starts_with("sweep_")
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the plot: {e:?}")
}

/// The sweep cases (`sweep_<type>_<kind>_<size>`) grouped by kind: (output bytes, GB/s per thread count, memcpy GB/s).
fn sweep_series(report: &Report) -> Series<'_> {
    let mut kinds: Vec<(String, Vec<&CaseResult>)> = Vec::new();
    for c in report.cases.iter().filter(|c| is_sweep(c)) {
        let kind = c.name.rsplit_once('_').map_or(c.name.as_str(), |(k, _)| k).to_owned();
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, v)) => v.push(c),
            None => kinds.push((kind, vec![c])),
        }
    }
    kinds
}

type Series<'a> = Vec<(String, Vec<&'a CaseResult>)>;

fn sweeps(area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, series: &Series<'_>) -> Result<()> {
    let cases: Vec<&CaseResult> = series.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    let kib = |c: &CaseResult| c.output_bytes as f64 / 1024.0;
    let (lo, hi) = cases.iter().fold((f64::MAX, 0f64), |(lo, hi), c| (lo.min(kib(c)), hi.max(kib(c))));
    let top =
        cases.iter().flat_map(|c| c.runs.iter().map(|r| r.gb_per_s).chain([c.memcpy_gb_per_s])).fold(0f64, f64::max)
            * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption("Cache sweeps: GB/s of output against output size", ("sans-serif", TITLE))
        .margin(14)
        .x_label_area_size(50)
        .y_label_area_size(64)
        .build_cartesian_2d((lo * 0.8..hi * 1.25).log_scale(), 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("output KiB")
        .y_desc("GB/s")
        .label_style(("sans-serif", LABEL))
        .axis_desc_style(("sans-serif", LABEL))
        .x_max_light_lines(1)
        .draw()
        .map_err(err)?;
    let threads: Vec<usize> = cases[0].runs.iter().map(|r| r.threads).collect();
    let mut color = 0;
    for (kind, v) in series {
        for (i, t) in threads.iter().enumerate() {
            let style = Palette99::pick(color).stroke_width(2);
            color += 1;
            let points: Vec<(f64, f64)> = v.iter().map(|c| (kib(c), c.runs[i].gb_per_s)).collect();
            chart
                .draw_series(LineSeries::new(points, style))
                .map_err(err)?
                .label(format!("{} {t}t", kind.trim_start_matches("sweep_")))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        }
    }
    let memcpy: Vec<(f64, f64)> = series[0].1.iter().map(|c| (kib(c), c.memcpy_gb_per_s)).collect();
    let dashed = BLACK.stroke_width(2);
    chart
        .draw_series(LineSeries::new(memcpy, dashed))
        .map_err(err)?
        .label("memcpy 1t")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], dashed));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", LABEL))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    Ok(())
}

fn bars(area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, cases: &[&CaseResult]) -> Result<()> {
    let n = cases.len();
    let threads: Vec<usize> = cases[0].runs.iter().map(|r| r.threads).collect();
    let top = cases.iter().flat_map(|c| c.runs.iter().map(|r| r.time_over_memcpy)).fold(1.0f64, f64::max);
    let top = top.min(CLIP) * 1.05; // far outliers are clipped, their value written beside the bar
    let (header, body) = area.split_vertically(BAR_HEADER);
    // Title, then the legend on its own line: one swatch per thread count and the memcpy line.
    let title = "time ÷ memcpy of the output bytes per case (lower is better; the line at 1 is memcpy)";
    header.draw(&Text::new(title, (14, 6), ("sans-serif", TITLE))).map_err(err)?;
    let legend = ("sans-serif", LABEL).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    let mut x = 14;
    let y = BAR_HEADER as i32 - 18;
    for (ti, t) in threads.iter().enumerate() {
        header.draw(&Rectangle::new([(x, y - 7), (x + 14, y + 7)], Palette99::pick(ti).filled())).map_err(err)?;
        let text = format!("{t} thread{}", if *t == 1 { "" } else { "s" });
        header.draw(&Text::new(text, (x + 20, y), legend.clone())).map_err(err)?;
        x += 130;
    }
    header.draw(&PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(2))).map_err(err)?;
    header.draw(&Text::new("memcpy", (x + 24, y), legend.clone())).map_err(err)?;

    let mut chart = ChartBuilder::on(&body)
        .margin(14)
        .x_label_area_size(36)
        .y_label_area_size(380)
        .build_cartesian_2d(0f64..top, -0.5f64..n as f64 - 0.5)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .label_style(("sans-serif", LABEL))
        .x_max_light_lines(1)
        .draw()
        .map_err(err)?;
    // One name per case, right-aligned beside its bars (the mesh's own labels would skip some).
    let label = ("sans-serif", LABEL).into_font().color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center));
    let (bx, by) = body.get_base_pixel(); // the chart maps to backend pixels, the area draws relative to itself
    for (i, c) in cases.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(0.0, (n - 1 - i) as f64));
        body.draw(&Text::new(c.name.clone(), (x - bx - 6, y - by), label.clone())).map_err(err)?;
    }
    let h = 0.8 / threads.len() as f64;
    let value = ("sans-serif", VALUE).into_font().color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center));
    for ti in 0..threads.len() {
        let color = Palette99::pick(ti).filled();
        chart
            .draw_series(cases.iter().enumerate().map(|(i, c)| {
                let y0 = (n - 1 - i) as f64 - 0.4 + ti as f64 * h;
                Rectangle::new([(0.0, y0), (c.runs[ti].time_over_memcpy.min(top), y0 + h)], color)
            }))
            .map_err(err)?;
        chart
            .draw_series(cases.iter().enumerate().filter(|(_, c)| c.runs[ti].time_over_memcpy > top).map(|(i, c)| {
                let y = (n - 1 - i) as f64 - 0.4 + (ti as f64 + 0.5) * h;
                Text::new(format!("{:.1}", c.runs[ti].time_over_memcpy), (top * 0.99, y), value.clone())
            }))
            .map_err(err)?;
    }
    chart.draw_series(LineSeries::new([(1.0, -0.5), (1.0, n as f64 - 0.5)], BLACK.stroke_width(2))).map_err(err)?;
    Ok(())
}
