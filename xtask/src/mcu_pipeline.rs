//! The keyword pipeline as one entry of `cargo xtask mcu`, [`NAME`]: TFLM's micro_speech audio
//! preprocessor and keyword model (../shared/models) compiled as one group sharing one arena, with
//! examples/micro-speech's framing over it (`src/pipeline.rs` in Rust, `c/micro_speech.c` in C),
//! behind an adapter that gives the firmwares their one-model interface: input 0 is one second of
//! 16 kHz audio (16,000 int16), output 0 the 49 x 40 features, output 1 the 4 keyword scores,
//! checked against TFLM's (tests/fixtures/pipelines/micro_speech). One invoke of the adapter is the
//! whole pipeline: 49 preprocessor invokes and one keyword invoke, the instructions the table
//! reports. Its arena column is the group's shared arena, its state the preprocessor's state and
//! the kept feature buffer; the adapter's own buffers (the audio, copies of the outputs) count as
//! the harness's RAM would, in the other-RAM column.

use std::path::{Path, PathBuf};

use tinyaot_codegen::{Config, GroupModel, Planning};

/// The entry's name in `--models` and in the tables.
pub const NAME: &str = "micro_speech_pipeline";

/// The C prefixes of the two models (the example's): their constants are the weights.
pub const C_PREFIXES: &[&str] = &["preprocessor", "keyword"];

/// Where the pipeline's parts are.
pub struct Pipeline {
    /// The audio preprocessor.
    pub preprocessor: PathBuf,
    /// The keyword model.
    pub keyword: PathBuf,
    /// examples/micro-speech.
    pub example: PathBuf,
}

impl Pipeline {
    /// The pipeline of the checkout `root` over the models of `shared`; its golden directory.
    pub fn new(root: &Path, shared: &Path) -> (Self, PathBuf) {
        let models = shared.join("models");
        (
            Pipeline {
                preprocessor: models.join("audio_frontend/audio_preprocessor_int8.tflite"),
                keyword: models.join("micro_speech_quantized.tflite"),
                example: root.join("examples/micro-speech"),
            },
            root.join("tests/fixtures/pipelines/micro_speech"),
        )
    }

    /// The group as the example compiles it (Rust names, C prefixes, the feature buffer kept).
    fn members(&self) -> [GroupModel; 2] {
        [
            GroupModel::new(&self.preprocessor)
                .name("Preprocessor")
                .prefix(C_PREFIXES[0]),
            GroupModel::new(&self.keyword)
                .name("Keyword")
                .prefix(C_PREFIXES[1])
                .keep("input0"),
        ]
    }

    /// MACs of one invoke of the adapter (49 windows and the keyword model) and the larger of the
    /// two models' liveness lower bounds (the least a shared arena can be without overlaps).
    pub fn macs_and_bound(&self) -> Result<(u64, u64), String> {
        let mut macs = 0;
        let mut bound = 0;
        for (path, invokes) in [(&self.preprocessor, 49), (&self.keyword, 1)] {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let graph =
                tinyaot_codegen::config::load_and_fold(&bytes, &tinyaot_codegen::Limits::default())
                    .map_err(|e| e.to_string())?;
            macs += invokes * crate::macs::macs(&graph);
            let plan = Config::new().plan(&bytes).map_err(|e| e.to_string())?;
            bound = bound.max(plan.memory_plan().lower_bound_bytes as u64);
        }
        Ok((macs, bound))
    }

    /// The Rust firmware's `model.rs`: the group, the example's pipeline module and the adapter
    /// `Net`; and the constant bytes the group's header states.
    pub fn rust(&self, planning: &Planning) -> Result<(String, u64), String> {
        if !planning.regions.is_empty() {
            return Err("a group of models takes no memory regions".into());
        }
        let group = Config::new()
            .planning(planning.clone())
            .generate_group(&self.members())
            .map_err(|e| e.to_string())?;
        let weights = group_constants(&group)?;
        let pipeline = self.example.join("src/pipeline.rs");
        let pipeline = pipeline
            .canonicalize()
            .map_err(|e| format!("{}: {e}", pipeline.display()))?;
        Ok((
            format!(
                "{group}\n{}",
                RUST_ADAPTER.replace("@PIPELINE@", &pipeline.display().to_string())
            ),
            weights,
        ))
    }

    /// The C firmware's sources: the group's, the example's `micro_speech.h`/`.c` and the adapter
    /// `net.h`/`net.c`.
    pub fn c(&self, planning: &Planning) -> Result<Vec<(String, String)>, String> {
        if !planning.regions.is_empty() {
            return Err("a group of models takes no memory regions".into());
        }
        let mut files = Config::new()
            .planning(planning.clone())
            .generate_group_c(&self.members())
            .map_err(|e| e.to_string())?;
        for name in ["micro_speech.h", "micro_speech.c"] {
            let path = self.example.join("c").join(name);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            files.push((name.to_string(), text));
        }
        files.push(("net.h".to_string(), C_ADAPTER_H.to_string()));
        files.push(("net.c".to_string(), C_ADAPTER_C.to_string()));
        Ok(files)
    }
}

/// The sum of the constant bytes the group's header states, one line per model (`// `Name`
/// (`file`): …; constants N bytes.`).
fn group_constants(source: &str) -> Result<u64, String> {
    let stated: Vec<u64> = source
        .lines()
        .take_while(|line| line.starts_with("//"))
        .filter_map(|line| {
            let rest = line.split("; constants ").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
        .collect();
    if stated.len() != 2 {
        return Err("the generated group does not state each model's constant bytes".into());
    }
    Ok(stated.iter().sum())
}

/// The Rust adapter, after the group's source (`@PIPELINE@`: the example's pipeline.rs).
const RUST_ADAPTER: &str = r#"
/// TFLM's micro_speech framing over the group above (examples/micro-speech/src/pipeline.rs).
#[path = "@PIPELINE@"]
pub mod pipeline;

/// The pipeline with a model's interface, for the firmware: input 0 one second of 16 kHz audio,
/// output 0 the 49 x 40 features (the keyword model's input once filled), output 1 the scores.
pub struct Net {
    models: Models,
    audio: ::tinyaot::Arena<{ 2 * pipeline::SAMPLE_RATE }>,
    features: [u8; pipeline::FEATURE_COUNT * pipeline::FEATURE_SIZE],
    scores: [u8; 4],
}

impl Net {
    /// The group's shared arena.
    pub const ARENA_BYTES: usize = Models::SHARED_BYTES;
    /// The rest of the group's buffer: the preprocessor's state and the kept feature buffer.
    pub const STATE_BYTES: usize = Models::MEMORY_BYTES - Models::SHARED_BYTES;
    pub const INPUTS: usize = 1;
    pub const OUTPUTS: usize = 2;

    pub const fn new() -> Self {
        Net {
            models: Models::new(),
            audio: ::tinyaot::Arena::new(),
            features: [0; pipeline::FEATURE_COUNT * pipeline::FEATURE_SIZE],
            scores: [0; 4],
        }
    }
}

impl ::tinyaot::Model for Net {
    const ARENA_BYTES: usize = Net::ARENA_BYTES;
    const INPUTS: usize = Net::INPUTS;
    const OUTPUTS: usize = Net::OUTPUTS;

    fn invoke(&mut self) {
        let audio: &[i16; pipeline::SAMPLE_RATE] = ::tinyaot::bytes::array(&self.audio.0, 0);
        pipeline::features(&mut self.models, audio);
        self.features
            .copy_from_slice(::tinyaot::Model::input_bytes_mut(&mut self.models.keyword(), 0));
        let scores = pipeline::scores(&mut self.models);
        for (byte, score) in self.scores.iter_mut().zip(scores) {
            *byte = score as u8;
        }
    }

    // The pipeline's invokes take no hook: `--profile` reports no operators for it.
    fn invoke_with<H: ::tinyaot::OperatorHook>(&mut self, _hook: &mut H) {
        self.invoke()
    }

    fn input_bytes_mut(&mut self, index: usize) -> &mut [u8] {
        match index {
            0 => &mut self.audio.0,
            _ => panic!("input index out of range"),
        }
    }

    fn output_bytes(&self, index: usize) -> &[u8] {
        match index {
            0 => &self.features,
            1 => &self.scores,
            _ => panic!("output index out of range"),
        }
    }

    fn reset(&mut self) {
        self.models.reset()
    }
}
"#;

/// The C adapter's header: the firmware's one-model interface.
const C_ADAPTER_H: &str = r#"/* The keyword pipeline with a model's interface, for the firmware (see xtask/src/mcu_pipeline.rs):
 * input 0 one second of 16 kHz audio, output 0 the 49 x 40 features, output 1 the 4 scores. */
#ifndef NET_TINYAOT_H
#define NET_TINYAOT_H

#include <stddef.h>
#include <stdint.h>

#include "models.h"

#define NET_ARENA_BYTES MODELS_SHARED_BYTES
#define NET_STATE_BYTES (MODELS_MEMORY_BYTES - MODELS_SHARED_BYTES)
#define NET_NUM_INPUTS 1
#define NET_NUM_OUTPUTS 2

int net_invoke(void);
void net_reset(void);
void *net_input(int index);
size_t net_input_bytes(int index);
const void *net_output(int index);
size_t net_output_bytes(int index);

#endif
"#;

/// The C adapter: examples/micro-speech/c/micro_speech.c over one second of audio.
const C_ADAPTER_C: &str = r#"/* The keyword pipeline with a model's interface (see net.h). */
#include "net.h"

#include <string.h>

#include "micro_speech.h"

static int16_t net_audio[MICRO_SPEECH_SAMPLE_RATE];
static int8_t net_features[MICRO_SPEECH_FEATURE_COUNT * MICRO_SPEECH_FEATURE_SIZE];
static int8_t net_scores[MICRO_SPEECH_CATEGORIES];

int net_invoke(void)
{
    const int8_t *scores;
    if (micro_speech_features(net_audio, MICRO_SPEECH_SAMPLE_RATE) < 0) {
        return 1;
    }
    memcpy(net_features, keyword_input(0), sizeof net_features);
    if ((scores = micro_speech_scores()) == NULL) {
        return 1;
    }
    memcpy(net_scores, scores, sizeof net_scores);
    return 0;
}

void net_reset(void) { models_reset(); }

void *net_input(int index) { return index == 0 ? net_audio : NULL; }

size_t net_input_bytes(int index) { return index == 0 ? sizeof net_audio : 0u; }

const void *net_output(int index)
{
    return index == 0 ? (const void *)net_features : index == 1 ? (const void *)net_scores : NULL;
}

size_t net_output_bytes(int index)
{
    return index == 0 ? sizeof net_features : index == 1 ? sizeof net_scores : 0u;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_the_constants_each_model_states() {
        let header = "// @generated by tinyaot 0.1.0 from `a.tflite`, `b.tflite`. Do not edit.\n\
                      // Group `Models`: 2 models run one after another in one buffer of 6304 bytes.\n\
                      // `A` (`a.tflite`): 3 operators; arena 32 bytes; state 0 bytes; kept 0 bytes; constants 420 bytes.\n\
                      // `B` (`b.tflite`): 4 operators; arena 64 bytes; state 0 bytes; kept 16 bytes; constants 80 bytes.\n\
                      \n// constants 1 bytes.\n";
        assert_eq!(group_constants(header), Ok(500));
        assert!(group_constants("// nothing\n").is_err());
    }
}
