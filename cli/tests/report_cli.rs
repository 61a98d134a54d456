//! `tinyaot report` end to end: the JSON's content on the bundled ds_cnn fixture, the page's
//! self-containment, the cost model's held-out error as the data file records it, and the page
//! rendered by headless Chromium without console errors (ds_cnn, and the reference models
//! person_detect and mobilenet_v2 224 from the shared data).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn tinyaot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tinyaot"))
        .args(args)
        .output()
        .expect("run tinyaot")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "tinyaot failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

fn ds_cnn() -> String {
    tinyaot_test_support::fixtures_dir()
        .join("models/ds_cnn.tflite")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn json_describes_ds_cnn() {
    let model = ds_cnn();
    let text = stdout(&tinyaot(&[
        "report",
        &model,
        "--json",
        "--tflm-arena",
        "24224",
    ]));
    let json: Value = serde_json::from_str(&text).expect("the report is JSON");
    let plan: Value =
        serde_json::from_str(&stdout(&tinyaot(&["plan", &model, "--format", "json"])))
            .expect("plan JSON");
    let s = &json["summary"];
    assert_eq!(json["model"], "ds_cnn.tflite");
    assert_eq!(s["operators"], 12);
    assert_eq!(s["folded_operators"], 0);
    // 1 10x4 convolution over 25x5x64 outputs, 4 depthwise 3x3 and 4 pointwise 64->64, the dense.
    let conv = 25 * 5 * 64 * 10 * 4;
    let depthwise = 25 * 5 * 64 * 9;
    let pointwise = 25 * 5 * 64 * 64;
    assert_eq!(s["macs"], conv + 4 * depthwise + 4 * pointwise + 12 * 64);
    assert_eq!(s["tflm_arena_bytes"], 24224);
    assert_eq!(s["tflm_arena"]["source"], "given");
    assert_eq!(s["compiles"], true);
    // The same plan as `tinyaot plan`, embedded whole.
    for key in ["arena_bytes", "lower_bound_bytes", "state_bytes"] {
        assert_eq!(s[key], plan[key], "{key}");
    }
    assert_eq!(json["plan"], plan);
    let ops = json["operators"].as_array().expect("operators");
    assert_eq!(ops.len(), 12);
    let weights: u64 = ops
        .iter()
        .map(|o| o["weight_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(s["weight_bytes"].as_u64(), Some(weights));
    let macs: u64 = ops.iter().map(|o| o["macs"].as_u64().unwrap()).sum();
    assert_eq!(s["macs"].as_u64(), Some(macs));
    let first = &ops[0];
    assert_eq!(first["op"], "CONV_2D");
    assert_eq!(first["macs"], conv);
    assert_eq!(
        first["inputs"][0]["shape"],
        serde_json::json!([1, 49, 10, 1])
    );
    assert_eq!(first["inputs"][0]["type"], "INT8");
    assert_eq!(first["inputs"][1]["storage"], "flash");
    assert_eq!(first["inputs"][1]["offset"], Value::Null);
    assert_eq!(
        first["outputs"][0]["shape"],
        serde_json::json!([1, 25, 5, 64])
    );
    // Weights 64x10x4x1 int8 and a bias of 64 int32.
    assert_eq!(first["weight_bytes"], 64 * 40 + 64 * 4);
    for (i, op) in ops.iter().enumerate() {
        assert_eq!(op["position"], i);
        let kernel = op["kernel"].as_str().expect("every operator has a kernel");
        let family = match op["op"].as_str().unwrap() {
            "CONV_2D" | "FULLY_CONNECTED" => "conv::",
            "DEPTHWISE_CONV_2D" => "depthwise::",
            "AVERAGE_POOL_2D" => "pool::",
            "SOFTMAX" => "softmax::",
            other => panic!("unexpected operator {other}"),
        };
        assert!(kernel.starts_with(family), "#{i}: {kernel}");
        // Arena offsets are the plan's.
        for t in op["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .chain(op["outputs"].as_array().unwrap())
        {
            if t["storage"] == "arena" {
                let placed = plan["tensors"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["index"] == t["index"])
                    .expect("an arena tensor is in the plan");
                assert_eq!(placed["offset"], t["offset"]);
                assert_eq!(placed["bytes"], t["bytes"]);
            }
        }
    }
    // An estimate for every core of the cost model, per operator and per inference.
    let cores = json["estimates"]["cores"].as_array().expect("cores");
    let names: Vec<&str> = cores.iter().map(|c| c["core"].as_str().unwrap()).collect();
    // Every verified core (`cargo xtask mcu --core all`).
    assert_eq!(names, ["m0plus", "m4", "m7", "m33", "m55", "rv32"]);
    for c in cores {
        let per_op = c["operators"].as_array().unwrap();
        assert_eq!(per_op.len(), 12);
        let sum: f64 = per_op
            .iter()
            .map(|o| o["instructions"].as_f64().unwrap())
            .sum();
        let total = c["instructions"].as_f64().unwrap();
        assert!(total >= sum && sum > 0.0, "{}: {total} vs {sum}", c["core"]);
        // ds_cnn's operators are within the measured range of their kernels.
        assert!(per_op.iter().all(|o| o["beyond_measured"] == false));
        assert_eq!(c["beyond_measured_instructions"], 0);
    }
    // Without the TFLM figure, null.
    let plain: Value =
        serde_json::from_str(&stdout(&tinyaot(&["report", &model, "--json"]))).unwrap();
    assert_eq!(plain["summary"]["tflm_arena_bytes"], Value::Null);
}

/// A model that loads but does not compile is reported as `tinyaot plan` plans it: its memory, no
/// kernels, no estimates, and why.
#[test]
fn a_model_that_does_not_compile_is_still_reported() {
    let model = tinyaot_test_support::workspace_root().join("tests/ui/data/unsupported_op.tflite");
    let json: Value = serde_json::from_str(&stdout(&tinyaot(&[
        "report",
        model.to_str().unwrap(),
        "--json",
    ])))
    .unwrap();
    assert_eq!(json["summary"]["compiles"], false);
    let why = json["summary"]["refusal"].as_str().unwrap();
    assert!(why.contains("LSH_PROJECTION"), "{why}");
    assert_eq!(json["operators"][0]["kernel"], Value::Null);
    assert_eq!(json["estimates"]["cores"], serde_json::json!([]));
}

/// `--tflm-arena auto` asks TFLM itself (tflite-micro for Python) and gets the figure the project
/// records for the fixture (tests/fixtures/models.json, from tflm_reference.py); without TFLM it
/// is an error naming what is missing.
#[test]
fn tflm_arena_auto_asks_tflm() {
    let python = std::env::var("TINYAOT_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let unavailable = Command::new(&python)
        .args(["-c", "import tflite_micro"])
        .output()
        .map_or(true, |o| !o.status.success());
    let bad = Command::new(env!("CARGO_BIN_EXE_tinyaot"))
        .args(["report", &ds_cnn(), "--json", "--tflm-arena", "auto"])
        .env("TINYAOT_PYTHON", "/nonexistent/python")
        .output()
        .expect("run tinyaot");
    assert_eq!(bad.status.code(), Some(1));
    let message = String::from_utf8_lossy(&bad.stderr);
    assert!(message.contains("--tflm-arena"), "{message}");
    if unavailable {
        tinyaot_test_support::skip_or_fail(
            "`tinyaot report --tflm-arena auto`",
            &format!("{python} has no tflite_micro (pip install --pre tflite-micro numpy)"),
        );
        return;
    }
    let json: Value = serde_json::from_str(&stdout(&tinyaot(&[
        "report",
        &ds_cnn(),
        "--json",
        "--tflm-arena",
        "auto",
    ])))
    .unwrap();
    let list = tinyaot_test_support::fixtures_dir().join("models.json");
    let fixtures: Value = serde_json::from_slice(&std::fs::read(list).unwrap()).unwrap();
    let recorded = &fixtures["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "ds_cnn")
        .unwrap()["tflm_arena"];
    let s = &json["summary"];
    assert_eq!(s["tflm_arena_bytes"], recorded["total"]);
    assert_eq!(s["tflm_arena"]["source"], "tflite-micro");
    assert_eq!(s["tflm_arena"]["head_bytes"], recorded["head"]);
    assert_eq!(s["tflm_arena"]["tail_bytes"], recorded["tail"]);
}

/// The cost model's recorded error on the models it was not fitted on: the bar, M4
/// instructions per inference within 15% on person_detect, ds_cnn and mobilenet_v2 224.
#[test]
fn held_out_error_within_15_percent_on_m4() {
    let json: Value =
        serde_json::from_str(&stdout(&tinyaot(&["report", &ds_cnn(), "--json"]))).unwrap();
    let estimates = &json["estimates"];
    let fitted: Vec<&str> = estimates["fitted_on"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let m4 = estimates["cores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["core"] == "m4")
        .expect("an M4 fit");
    for model in [
        "person_detect",
        "ds_cnn",
        "mobilenet_v2_quantized_1x3x224x224",
    ] {
        assert!(!fitted.contains(&model), "{model} was fitted on");
        let h = m4["held_out"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["model"] == model)
            .unwrap_or_else(|| panic!("no held-out figure for {model}"));
        let error = h["error_percent"].as_f64().unwrap();
        assert!(error.abs() <= 15.0, "{model}: {error}% off");
    }
}

#[test]
fn page_is_self_contained() {
    let dir = common::scratch("report-page");
    let page = dir.join("ds_cnn.html");
    let o = tinyaot(&["report", &ds_cnn(), "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(html.starts_with("<!DOCTYPE html>"));
    for section in [
        "Summary",
        "Estimated instructions",
        "Operators",
        "Memory plan",
    ] {
        assert!(html.contains(&format!(">{section}</h2>")), "no {section}");
    }
    assert!(html.contains("<svg"), "the plan is inline");
    assert!(html.contains("conv::conv2d_1x1_s8"), "kernels are named");
    // Nothing fetched: no script, link, image or URL but the SVG namespace.
    for banned in ["<script", "<link", "<img", "src=", "@import"] {
        assert!(!html.contains(banned), "the page has {banned}");
    }
    // The SVG's fills refer to its own patterns only (`url(#overlap)`).
    assert_eq!(html.matches("url(").count(), html.matches("url(#").count());
    let urls = html.matches("http").count();
    let namespaces = html.matches("http://www.w3.org/2000/svg").count();
    assert_eq!(urls, namespaces, "a URL besides the SVG namespace");
    // Usage errors.
    let o = tinyaot(&["report", &ds_cnn()]);
    assert_eq!(o.status.code(), Some(2));
    let o = tinyaot(&["report", &ds_cnn(), "--json", "--tflm-arena", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(dir);
}

/// Chromium's headless shell, or `None` (after `skip_or_fail`: in CI, a failure).
fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let found = Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if found {
            return Some(PathBuf::from(name));
        }
    }
    tinyaot_test_support::skip_or_fail(
        "rendering `tinyaot report` in headless Chromium",
        "chromium is not installed (apt-get install chromium)",
    );
    None
}

/// Renders `page` headless and offline (host names resolve to nothing): Chromium's log, and the
/// console messages and uncaught errors in it (`--enable-logging=stderr` logs each as a
/// `CONSOLE` line); the screenshot is written to `png`.
fn render(browser: &Path, page: &Path, png: &Path) -> (String, Vec<String>) {
    let profile = png.with_extension("profile");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--window-size=1400,2400",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let console = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(str::to_string)
        .collect();
    assert!(out.status.success(), "chromium failed:\n{log}");
    (log, console)
}

#[test]
fn renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        return;
    };
    let dir = tinyaot_test_support::scratch_dir("report", "chromium");
    // The check catches what it should: a page logging an error and throwing one.
    let bad = dir.join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><script>console.error('broken'); undefined_function();\
         </script></body></html>",
    )
    .unwrap();
    let (log, console) = render(&browser, &bad, &dir.join("bad.png"));
    assert!(
        console.iter().any(|l| l.contains("broken")) && console.len() >= 2,
        "the console check misses errors:\n{log}"
    );
    let mut models = vec![PathBuf::from(ds_cnn())];
    if let Some(shared) =
        tinyaot_test_support::shared_dir_or_skip("`tinyaot report` on the reference models")
    {
        models.push(shared.join("models/person_detect.tflite"));
        models.push(shared.join("models/mobilenet_v2_quantized_1x3x224x224.tflite"));
    }
    for model in models {
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        let page = dir.join(format!("{stem}.html"));
        let o = tinyaot(&[
            "report",
            model.to_str().unwrap(),
            "-o",
            page.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let png = dir.join(format!("{stem}.png"));
        let (log, console) = render(&browser, &page, &png);
        assert!(console.is_empty(), "{stem}: console messages:\n{log}");
        let shot = std::fs::read(&png).unwrap_or_default();
        assert!(
            shot.starts_with(b"\x89PNG") && shot.len() > 10_000,
            "{stem}: no screenshot ({} bytes)",
            shot.len()
        );
        // The screenshot stays for whoever reads the test's output.
        println!("{stem}: rendered, screenshot {}", png.display());
    }
}
