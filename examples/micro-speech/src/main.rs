//! Keyword spotting from raw audio: each second of a 16 kHz recording through TFLM's micro_speech
//! audio preprocessor and keyword model (compiled by tinyaot as one group sharing one arena), and
//! the four keyword scores printed.
//!
//! ```sh
//! cargo run -p tinyaot-example-micro-speech -- AUDIO...
//! ```
//!
//! Each AUDIO is 16-bit mono at 16 kHz: raw little-endian samples, or a WAV file of that format.
//! Without an argument, the pipeline's golden clip (tests/fixtures/pipelines/micro_speech) runs.

#[cfg(micro_speech_models)]
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[cfg(micro_speech_models)]
fn main() -> ExitCode {
    use tinyaot_example_micro_speech as kws;

    // (what to call it, where it is)
    let mut paths: Vec<(String, PathBuf)> = std::env::args()
        .skip(1)
        .map(|p| (p.clone(), PathBuf::from(p)))
        .collect();
    if paths.is_empty() {
        let golden = "tests/fixtures/pipelines/micro_speech/case0/input0.bin";
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        paths.push((golden.to_string(), root.join(golden)));
    }
    // One buffer for both models (`const fn new`: a `static` on a microcontroller).
    let mut models = Box::new(kws::Models::new());
    println!(
        "micro_speech: preprocessor arena {} bytes, keyword arena {} bytes, the group {} bytes \
         (shared arena {} bytes)",
        kws::Preprocessor::ARENA_BYTES,
        kws::Keyword::ARENA_BYTES,
        kws::Models::MEMORY_BYTES,
        kws::Models::SHARED_BYTES
    );
    for (path, file) in &paths {
        let audio = match read_audio(file) {
            Ok(audio) => audio,
            Err(why) => {
                eprintln!("error: {path}: {why}");
                return ExitCode::FAILURE;
            }
        };
        if audio.len() < kws::WINDOW {
            eprintln!(
                "error: {path}: {} samples, fewer than one 30 ms window",
                audio.len()
            );
            return ExitCode::FAILURE;
        }
        // TFLM's example classifies one second at a time.
        for (second, clip) in audio.chunks(kws::SAMPLE_RATE).enumerate() {
            if clip.len() < kws::WINDOW {
                break;
            }
            let rows = kws::features(&mut models, clip);
            let scores = kws::scores(&mut models);
            let best = (0..scores.len())
                .max_by_key(|&i| (scores[i], std::cmp::Reverse(i)))
                .unwrap_or(0);
            let listed: Vec<String> = scores
                .iter()
                .zip(kws::LABELS)
                .map(|(&s, label)| format!("{label} {s} ({:.3})", kws::probability(s)))
                .collect();
            println!(
                "{path} [{second} s, {rows} windows]: {} -> {}",
                listed.join(", "),
                kws::LABELS[best]
            );
        }
    }
    ExitCode::SUCCESS
}

/// 16-bit samples of a raw little-endian file, or of the `data` chunk of a 16-bit mono 16 kHz WAV.
#[cfg(micro_speech_models)]
fn read_audio(path: &Path) -> Result<Vec<i16>, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let samples = if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WAVE") {
        wav_data(&bytes)?
    } else {
        &bytes[..]
    };
    if samples.len() % 2 != 0 {
        return Err("an odd number of bytes: not 16-bit samples".into());
    }
    Ok(samples
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect())
}

/// The `data` chunk of a WAV file whose `fmt ` chunk says PCM, mono, 16 kHz, 16 bits.
#[cfg(micro_speech_models)]
fn wav_data(bytes: &[u8]) -> Result<&[u8], String> {
    let mut at = 12;
    let mut format_ok = false;
    while let Some(header) = bytes.get(at..at + 8) {
        let size = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        let body = bytes
            .get(at + 8..(at + 8).saturating_add(size).min(bytes.len()))
            .unwrap_or(&[]);
        match &header[..4] {
            b"fmt " if body.len() >= 16 => {
                let u16_at = |i: usize| u16::from_le_bytes([body[i], body[i + 1]]);
                let rate = u32::from_le_bytes([body[4], body[5], body[6], body[7]]);
                format_ok = u16_at(0) == 1 && u16_at(2) == 1 && rate == 16_000 && u16_at(14) == 16;
            }
            b"data" if format_ok => return Ok(body),
            b"data" => return Err("not a 16-bit mono 16 kHz PCM WAV file".into()),
            _ => {}
        }
        // Chunks are padded to an even size.
        at = at + 8 + size + (size & 1);
    }
    Err("a WAV file without a data chunk".into())
}

#[cfg(not(micro_speech_models))]
fn main() -> ExitCode {
    eprintln!(
        "error: built without TFLM's micro_speech models (see the build's warning): put the \
         project's shared/ directory beside the repository or set TINYAOT_SHARED_DIR, and build \
         again"
    );
    ExitCode::FAILURE
}
